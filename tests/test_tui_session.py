"""The review session and row model without a terminal: display order, queue, time, reveal."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.frames import shown_order, to_display, to_file
from medjudge.store.ledger import IDLE_GAP_S
from medjudge.store.study import Study
from medjudge.tui.rows import ItemView
from medjudge.tui.session import ReviewSession

from .support.checks import some
from .support.tui import add_verdicts, build_study, item_swap, scalar


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_display_mapping_is_its_own_inverse(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    with Study.open(path) as study:
        s = ReviewSession(study, "alice")
        item = s.load(0)
        swapped = item_swap(path, "p0")
        assert item.order == ("BA" if swapped else "AB")
        order = shown_order(item)
        for v in ("A", "B", "tie", "neither"):
            assert to_file(to_display(v, order), order) == v
            assert to_display(v, order) == to_file(v, order)  # two answers: a swap
        assert to_file("A", order) == ("B" if swapped else "A")
        assert [a.position for a in item.shown_answers()] == (["B", "A"] if swapped else ["A", "B"])


def test_queue_find_and_next_unlabelled_wrap(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    with Study.open(path) as study:
        s = ReviewSession(study, "alice")
        assert s.first_index() == 0 and s.find("s1") == 5 and s.find("3") == 2
        assert s.find("#7") == 6 and s.find("0") is None and s.find("zz") is None
        s.load(0)
        for u in some(s.item).units:
            s.vote(u.id, "tie")
        assert s.items_done() == 1 and s.is_done(some(s.item).id)
        assert s.next_unlabelled(6) == 1  # wraps past the end, skips the finished p0
        s.undo()
        assert s.items_done() == 0


def test_time_counts_activity_and_leaves_out_idle_stretches(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    clock = Clock()
    with Study.open(path) as study:
        s = ReviewSession(study, "alice", clock=clock)
        s.load(0)
        clock.now += 10
        s.touch()
        clock.now += 3600  # an hour away from the keyboard: not review time
        s.touch()
        clock.now += IDLE_GAP_S  # a long read, at the limit: counted
        item_id, seconds = some(s.leave())
        assert seconds == 10 + IDLE_GAP_S
        s.record_time(item_id, seconds)
    assert scalar(path, "SELECT seconds FROM item_time") == 10 + IDLE_GAP_S


def test_time_on_a_finished_item_and_on_other_screens_is_not_counted(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    clock = Clock()
    with Study.open(path) as study:
        s = ReviewSession(study, "alice", clock=clock)
        s.load(0)
        clock.now += 20
        s.touch()
        s.pause()  # the overview or the help covers the item
        clock.now += 120
        s.resume()
        clock.now += 5
        for u in some(s.item).units:  # every label given: the item is finished
            s.touch()
            s.vote(u.id, "tie")
        s.touch()
        clock.now += 200  # parked on the finished item
        _, seconds = some(s.leave())
        assert seconds == 25
        s.load(0)  # coming back to a finished item to look
        clock.now += 30
        assert some(s.leave())[1] == 0


def test_reveal_waits_for_every_label_then_marks_once(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    add_verdicts(path, "p0", {"correctness": "A"})
    with Study.open(path) as study:
        s = ReviewSession(study, "alice")
        s.load(0)
        view = ItemView.of(s)
        assert not view.revealed and s.verdicts() == [] and not s.reveal_if_due()
        for u in some(s.item).units:
            s.vote(u.id, "A")
        assert s.reveal_if_due() and not s.reveal_if_due()
        view.refresh_reveal()
        assert view.revealed and view.judge_value(s.item.units[0].id) == "A"
    assert scalar(path, "SELECT count(*) FROM reveals") == 1


def test_rows_of_a_rating_item_and_option_values(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=0, statements=0, rating=1)
    with Study.open(path) as study:
        s = ReviewSession(study, "alice")
        s.load(0)
        view = ItemView.of(s)
        kinds = [(r.criterion.name, r.option) for r in view.rows]
        assert kinds[:5] == [
            ("completeness", None),
            ("completeness", "A"),
            ("completeness", "B"),
            ("completeness", "C"),
            ("completeness", "D"),
        ]
        assert view.start_row() == 1  # the first checkbox
        unit = view.rows[0].unit.id
        assert view.options_value(unit) == "-"
        view.toggle(unit, "C")
        view.toggle(unit, "A")
        assert view.options_value(unit) == "A,C" and view.unsaved() == [unit]
        view.toggle(unit, "C")
        assert view.options_value(unit) == "A"
