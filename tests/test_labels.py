"""Human labels: history, undo, reveal marking, notes, time, and several writers at once."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from medjudge.store.items import get_item
from medjudge.store.label_reads import history, progress
from medjudge.store.labels import (
    LabelError,
    add_time,
    get_note,
    item_labels,
    mark_revealed,
    revert,
    set_label,
    set_note,
)
from medjudge.store.study import Study


def test_label_history_and_revert(pairwise_study: Study) -> None:
    item = get_item(pairwise_study, 1)
    unit = item.unit_for("correctness").id
    first = set_label(pairwise_study, unit, "alice", "A")
    second = set_label(pairwise_study, unit, "alice", "tie", note="on reflection")
    assert (second.old_value, second.new_value) == ("A", "tie")
    assert item_labels(pairwise_study, 1, "alice") == {unit: "tie"}
    undone = revert(pairwise_study, second, "alice")
    assert undone is not None and undone.new_value == "A"
    assert revert(pairwise_study, second, "alice") is None  # label no longer 'tie'
    revert(pairwise_study, first, "alice")
    assert item_labels(pairwise_study, 1, "alice") == {}
    rows = history(pairwise_study, unit_id=unit)
    assert [(r["action"], r["old_value"], r["new_value"]) for r in rows] == [
        ("label", None, "A"),
        ("label", "A", "tie"),
        ("undo", "tie", "A"),
        ("undo", "A", None),
    ]
    assert rows[1]["note"] == "on reflection"


def test_values_are_checked(pairwise_study: Study) -> None:
    item = get_item(pairwise_study, 1)
    with pytest.raises(LabelError, match="not one of"):
        set_label(pairwise_study, item.units[0].id, "alice", "C")
    st = get_item(pairwise_study, 6)
    set_label(pairwise_study, st.units[0].id, "alice", "entailed")
    with pytest.raises(LabelError):
        set_label(pairwise_study, st.units[0].id, "alice", "A")
    with pytest.raises(LabelError, match="no unit"):
        set_label(pairwise_study, 99999, "alice", "A")


def test_change_after_reveal_is_marked(pairwise_study: Study) -> None:
    item = get_item(pairwise_study, 2)
    for u in item.units:
        set_label(pairwise_study, u.id, "bob", "A")
    assert mark_revealed(pairwise_study, 2, "bob") is True
    assert mark_revealed(pairwise_study, 2, "bob") is False
    changed = set_label(pairwise_study, item.units[0].id, "bob", "B")
    assert changed.after_reveal is True
    flags = [r["after_reveal"] for r in history(pairwise_study, rater="bob")]
    assert flags == [0] * len(item.units) + [1]


def test_notes_time_and_progress(pairwise_study: Study) -> None:
    set_note(pairwise_study, 1, "alice", "Answer B cites an old guideline")
    assert get_note(pairwise_study, 1, "alice") == "Answer B cites an old guideline"
    set_note(pairwise_study, 1, "alice", "")
    assert get_note(pairwise_study, 1, "alice") == ""
    add_time(pairwise_study, 1, "alice", 12.5)
    add_time(pairwise_study, 1, "alice", 7.5)
    row = pairwise_study.conn.execute("SELECT seconds, visits FROM item_time").fetchone()
    assert (row[0], row[1]) == (20.0, 2)
    for u in get_item(pairwise_study, 1).units:
        set_label(pairwise_study, u.id, "alice", "tie")
    set_label(pairwise_study, get_item(pairwise_study, 2).units[0].id, "alice", "A")
    p = {x.rater: x for x in progress(pairwise_study)}["alice"]
    assert (p.units_labelled, p.items_done) == (7, 1)


def _writer(path: str, reviewer: str, n: int, queue: mp.Queue[tuple[str, int]]) -> None:
    study = Study.open(path)
    units = [
        r[0] for r in study.conn.execute("SELECT id FROM units WHERE criterion != 'entailment'")
    ]
    saved = 0
    for i in range(n):
        set_label(study, units[i % len(units)], reviewer, ["A", "B", "tie", "neither"][i % 4])
        saved += 1
    study.close()
    queue.put((reviewer, saved))


def test_two_processes_write_at_once(pairwise_study: Study) -> None:
    path = str(pairwise_study.path)
    ctx = mp.get_context("spawn")
    queue: mp.Queue[tuple[str, int]] = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, name, 60, queue)) for name in ("p1", "p2")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    reported = dict(queue.get(timeout=5) for _ in procs)
    assert reported == {"p1": 60, "p2": 60}
    counts = dict(
        pairwise_study.conn.execute(
            "SELECT r.name, count(*) FROM label_history h JOIN raters r ON r.id = h.rater_id GROUP BY r.name"
        )
    )
    assert counts == {"p1": 60, "p2": 60}
    assert pairwise_study.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_study_path_fixture_is_real_file(pairwise_study: Study) -> None:
    assert Path(pairwise_study.path).stat().st_size > 0
