"""The review screen, driven by keys through Textual's Pilot; asserts on the study file."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Collapsible, Input

from medjudge.store.db import StudyError
from medjudge.store.labels import Saved, set_label
from medjudge.store.study import Study
from medjudge.tui.app import ReviewApp, ReviewSetupError, make_app
from medjudge.tui.dialogs import HelpScreen, PromptDialog
from medjudge.tui.review.screen import ReviewScreen
from medjudge.tui.widgets import Pane, UnitRows

from .support.checks import some
from .support.tui import (
    add_verdicts,
    build_study,
    history,
    item_swap,
    labels,
    run_async,
    scalar,
    screen_text,
    static_text,
)

PAIRWISE = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")


def stored(path: Path, ext_id: str, shown: str) -> str:
    """What key a/b stores on an item, given its display order."""
    if shown in ("A", "B") and item_swap(path, ext_id):
        return "B" if shown == "A" else "A"
    return shown


def review(app: ReviewApp) -> ReviewScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, ReviewScreen)
    return screen


@run_async
async def test_pairwise_keys_store_votes_in_display_order(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    saved_messages = []
    async with app.run_test(
        size=(100, 40), message_hook=lambda m: saved_messages.append(m)
    ) as pilot:
        assert some(review(app).session.item).ext_id == "p0"
        await pilot.press("a", "b", "t", "n", "b", "a")
        await pilot.pause()
        got = labels(path, "alice")
        want = dict(zip(PAIRWISE, ["A", "B", "tie", "neither", "B", "A"], strict=True))
        assert got == {("p0", c): stored(path, "p0", v) for c, v in want.items()}
        # No verdicts or other labels: nothing to reveal, so the app went straight on.
        assert some(review(app).session.item).ext_id == "p1"
        assert "saved" in static_text(app, "#saved")
        rows = history(path, "alice")
        assert [r[3] for r in rows] == ["label"] * 6 and not any(r[4] for r in rows)
    assert len({id(m) for m in saved_messages if isinstance(m, ReviewScreen.LabelSaved)}) == 6


@run_async
async def test_saved_is_shown_only_after_the_commit(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    seen: list[tuple[str, int]] = []

    def hook(message: object) -> None:
        if isinstance(message, ReviewScreen.LabelSaved):  # read with another connection
            if ("label", 1) not in seen:
                seen.append(("label", scalar(path, "SELECT count(*) FROM labels")))

    async with app.run_test(size=(100, 40), message_hook=hook) as pilot:
        await pilot.press("t")
        await pilot.pause()
        assert seen == [("label", 1)]
        screen = review(app)

        def broken(unit_id: int, value: str) -> Saved:
            raise StudyError("the disk is full; nothing was saved by this step")

        screen.session.vote = broken  # type: ignore[method-assign]
        await pilot.press("a")
        await pilot.pause()
        text = static_text(app, "#saved")
        assert "NOT saved" in text and "disk is full" in text
        assert some(screen.session.item).ext_id == "p0" and screen.cursor == 1
    assert scalar(path, "SELECT count(*) FROM labels") == 1


@run_async
async def test_undo_takes_back_labels_one_by_one_across_items(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"aaaaaa")  # all of p0, then p1 is shown
        await pilot.press("t")  # p1 correctness
        await pilot.pause()
        assert some(review(app).session.item).ext_id == "p1"
        await pilot.press("u")
        await pilot.pause()
        assert ("p1", "correctness") not in labels(path, "alice")
        await pilot.press("u")  # the last label of p0: the app goes back there
        await pilot.pause()
        screen = review(app)
        assert some(screen.session.item).ext_id == "p0"
        assert some(screen.view).rows[screen.cursor].criterion.name == "bias"
        assert ("p0", "bias") not in labels(path, "alice")
        assert ("p0", "efficiency") in labels(path, "alice")
        assert "undone" in static_text(app, "#saved")
    actions = [r[3] for r in history(path, "alice")]
    assert actions == ["label"] * 7 + ["undo", "undo"]


@run_async
async def test_changing_a_vote_then_undo_restores_the_earlier_vote(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("a", "up", "b")  # correctness A, back up, correctness B
        await pilot.pause()
        assert labels(path, "alice")[("p0", "correctness")] == stored(path, "p0", "B")
        await pilot.press("u")
        await pilot.pause()
        assert labels(path, "alice")[("p0", "correctness")] == stored(path, "p0", "A")


@run_async
async def test_blind_review_reveals_the_verdict_only_when_every_label_is_saved(
    tmp_path: Path,
) -> None:
    path = build_study(tmp_path)
    add_verdicts(path, "p0", {c: "A" for c in PAIRWISE})
    study = Study.open(path)
    set_label(study, 1, "bob", "tie")  # unit 1 is p0's correctness
    study.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        screen = review(app)
        await pilot.press(*"aaaaa")
        await pilot.pause()
        text = screen_text(app)
        assert "hidden until you have labelled all 6" in text
        assert "openai:fake-judge" not in text and "bob" not in text
        assert scalar(path, "SELECT count(*) FROM reveals") == 0
        await pilot.press("b")  # the sixth label: reveal
        await pilot.pause()
        assert scalar(path, "SELECT count(*) FROM reveals") == 1
        assert screen.session.locked() and some(screen.session.item).ext_id == "p0"
        detail = static_text(app, "#detail")
        assert "Judge openai:fake-judge" in detail
        assert "AB:" in detail and "BA:" in detail
        assert "[b]reason[/b]" in detail  # the reason is data: shown literally
        shown_a = "A" if not item_swap(path, "p0") else "B"
        assert f"judge {shown_a}" in screen_text(app)
        assert "✓" in screen_text(app) and "✗" in screen_text(app)
        before = labels(path, "alice")
        # A vote key now must not silently change the revealed item — not even after moving
        # the cursor (the old bug: ↑/↓ unlocked the item and Enter stopped advancing).
        await pilot.press("t", "up", "down", "t", "up", "a")
        await pilot.pause()
        assert labels(path, "alice") == before
        assert not any(h[4] for h in history(path, "alice")), "no change after the reveal"
        # The change key makes it deliberate: one label, flagged as after the reveal.
        await pilot.press("down", "E")
        await pilot.pause()
        assert "changing bias after the reveal" in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        assert labels(path, "alice")[("p0", "bias")] == "tie"
        assert history(path, "alice")[-1][4] == 1
        await pilot.press("a")  # the item is locked again: one armed change, one label
        await pilot.pause()
        assert labels(path, "alice")[("p0", "bias")] == "tie"
        # Escape disarms; Enter always moves on.
        await pilot.press("E", "escape", "t", "enter")
        await pilot.pause()
        assert labels(path, "alice")[("p0", "bias")] == "tie"
        assert some(screen.session.item).ext_id == "p1"


@run_async
async def test_others_labels_appear_with_the_reveal(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    study = Study.open(path)
    for unit in range(1, 7):
        set_label(study, unit, "bob", "tie")
    study.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.press(*"nnnnn")
        await pilot.pause()
        assert "bob" not in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert "Other reviewers: bob tie" in static_text(app, "#detail")


@run_async
async def test_open_study_shows_verdicts_from_the_start(tmp_path: Path) -> None:
    path = build_study(tmp_path, blind=False)
    add_verdicts(path, "p0", {"correctness": "B"})
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.pause()
        assert "Judge openai:fake-judge" in static_text(app, "#detail")
        assert scalar(path, "SELECT count(*) FROM reveals") == 1
        await pilot.press("a")
        await pilot.pause()
    assert history(path, "alice")[0][4] == 1  # labelled having seen the verdict


@run_async
async def test_note_is_saved_edited_and_removed(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    sql = "SELECT note FROM item_notes n JOIN items i ON i.id = n.item_id WHERE i.ext_id = 'p0'"
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, PromptDialog)
        await pilot.press(*"check dose", "enter")
        await pilot.pause()
        assert scalar(path, sql) == "check dose"
        assert "note saved" in static_text(app, "#saved")
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.query_one("Input", Input).value == "check dose"
        await pilot.press("escape")  # cancel: unchanged
        await pilot.pause()
        assert scalar(path, sql) == "check dose"
        await pilot.press("m", "ctrl+u", "enter")
        await pilot.pause()
    assert scalar(path, sql) is None


@run_async
async def test_next_previous_jump_and_go_to(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    study = Study.open(path)
    for unit in range(7, 13):  # p1 is complete already
        set_label(study, unit, "alice", "tie")
    study.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = review(app)
        assert some(screen.session.item).ext_id == "p0"
        await pilot.press("right_square_bracket")
        assert some(screen.session.item).ext_id == "p1"
        await pilot.press("right", "left", "left_square_bracket")
        assert some(screen.session.item).ext_id == "p0"
        await pilot.press("j")  # skips p1, which is done
        assert some(screen.session.item).ext_id == "p2"
        await pilot.press("g", *"s1", "enter")
        await pilot.pause()
        assert some(screen.session.item).ext_id == "s1"
        await pilot.press("g", *"#2", "enter")
        await pilot.pause()
        assert some(screen.session.item).ext_id == "p1"
        await pilot.press("g", *"nope", "enter")
        await pilot.pause()
        assert some(screen.session.item).ext_id == "p1"
    # Time spent was recorded for each item left.
    assert scalar(path, "SELECT count(*) FROM item_time") >= 3
    assert scalar(path, "SELECT sum(visits) FROM item_time") >= 5


@run_async
async def test_statements_keys_label_each_statement_in_turn(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=0, rating=0)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = review(app)
        assert some(screen.session.item).ext_id == "s0"
        text = screen_text(app)
        assert "MUST" in text and "nice" in text and "Must 0.1" in text
        await pilot.press("e", "n", "c")
        await pilot.pause()
        assert some(screen.session.item).ext_id == "s1"
    assert labels(path, "alice") == {
        ("s0", "0"): "entailed",
        ("s0", "1"): "neutral",
        ("s0", "2"): "contradicted",
    }


@run_async
async def test_rating_options_and_scales(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=0, statements=0, rating=2)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = review(app)
        assert "Correct option: A" in static_text(app, "#pane-1")
        await pilot.press("a", "c")  # tick A and C (pending)
        await pilot.pause()
        assert labels(path, "alice") == {}
        assert "not saved" in static_text(app, "#saved")
        await pilot.press("down", "space")  # the cursor is on C after the letter: D ticked
        await pilot.press("enter")
        await pilot.pause()
        assert labels(path, "alice") == {("r0", "completeness"): "A,C,D"}
        await pilot.press("4", "5")
        await pilot.pause()
        assert some(screen.session.item).ext_id == "r1"
        # Nothing ticked and confirmed is stored as '-'; ticks left unconfirmed are saved
        # when leaving the item rather than lost.
        await pilot.press("enter", "3", "b")
        await pilot.press("left")
        await pilot.pause()
    got = labels(path, "alice")
    assert got[("r0", "correctness_rating")] == "4" and got[("r0", "relevance")] == "5"
    assert got[("r1", "completeness")] == "B" and got[("r1", "correctness_rating")] == "3"


def _answered(tmp_path: Path, answer: str) -> Path:
    """The test study, every answer replaced by ``answer``."""
    path = build_study(tmp_path)
    with Study.open(path) as s:
        s.conn.execute("UPDATE answers SET text = ?", (answer,))
        s.conn.commit()
    return path


@run_async
async def test_an_answer_rewraps_on_resize_and_its_text_can_be_selected(tmp_path: Path) -> None:
    """A pane wraps its text at its width (again when the terminal is resized: more lines when
    narrower), and a mouse drag over it selects its words, to copy (the pane draws its own
    lines)."""
    long_answer = " ".join(f"word{i}" for i in range(120))
    app = make_app(_answered(tmp_path, long_answer), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one("#pane-1", Pane)
        wide = pane.virtual_size
        await pilot.resize_terminal(100, 24)  # still side by side, each pane narrower
        await pilot.pause()
        assert pane.virtual_size.width < wide.width and pane.virtual_size.height > wide.height
        assert "continues: v to read" in str(pane.border_title)
        await pilot.mouse_down("#pane-1", offset=(3, 1))
        await pilot.hover("#pane-1", offset=(30, 2))
        await pilot.mouse_up("#pane-1", offset=(30, 2))
        await pilot.pause()
        selected = app.screen.get_selected_text() or ""
        assert len(selected.split()) >= 3 and " ".join(selected.split()) in long_answer


@run_async
async def test_a_rows_text_can_be_selected_to_copy(tmp_path: Path) -> None:
    """A mouse drag over the unit list selects the rows' words (the list draws its own lines),
    and they are drawn highlighted."""
    app = make_app(build_study(tmp_path), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        rows = app.screen.query_one("#criteria", UnitRows)
        first, second = rows.row_text(0).split(), rows.row_text(1).split()
        await pilot.mouse_down(rows, offset=(2, 1))
        await pilot.hover(rows, offset=(20, 2))
        await pilot.mouse_up(rows, offset=(20, 2))
        await pilot.pause()
        selected = app.screen.get_selected_text() or ""
        assert first[1] in selected and second[0] in selected, (selected, first, second)
        look = app.screen.get_component_rich_style("screen--selection")
        drawn = rows.render_line(0)
        assert any(seg.style and seg.style.bgcolor == look.bgcolor for seg in drawn), drawn


@run_async
async def test_an_answers_scrollbar_shows_where_the_pane_is_and_takes_the_mouse(
    tmp_path: Path,
) -> None:
    """The pane's scrollbar (drawn line by line) has its thumb at the top, then lower once the
    pane scrolls; a click on the bar below the thumb scrolls the pane down, and dragging the
    thumb back to the top scrolls it back."""
    long_answer = " ".join(f"word{i}" for i in range(400))
    app = make_app(_answered(tmp_path, long_answer), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one("#pane-1", Pane)
        bar = pane.vertical_scrollbar
        assert pane.max_scroll_y > 0 and bar.display

        def thumb() -> list[int]:
            """The bar's rows drawn as thumb (the bar's colour, reversed)."""
            rows = bar.render_lines(Region(0, 0, 1, bar.size.height))
            return [
                y for y, line in enumerate(rows) if any(s.style and s.style.reverse for s in line)
            ]

        top = thumb()
        assert top and top[0] == 0 and len(top) < bar.size.height
        await pilot.click(bar, offset=(0, bar.size.height - 1))
        await pilot.pause()
        assert pane.scroll_y > 0
        lower = thumb()
        assert lower and lower[0] > 0
        await pilot.mouse_down(bar, offset=(0, lower[0]))
        await pilot.hover(bar, offset=(0, -5))
        await pilot.mouse_up(bar, offset=(0, -5))
        await pilot.pause()
        assert pane.scroll_y == 0 and thumb()[0] == 0


@run_async
async def test_layout_stacks_when_narrow_and_survives_resizing(tmp_path: Path) -> None:
    path = build_study(tmp_path, context=True)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(140, 40)) as pilot:
        one, two = app.screen.query_one("#pane-1", Pane), app.screen.query_one("#pane-2", Pane)
        assert one.region.y == two.region.y and one.region.x < two.region.x
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.screen.has_class("-narrow")
        assert one.region.x == two.region.x and one.region.y < two.region.y
        for widget in (one, two, app.screen.query_one("#criteria")):
            assert widget.region.height >= 2 and widget.region.bottom <= 23
        text = screen_text(app)
        assert "a A" in text and "? Help" in text  # the footer keys are there
        await pilot.press("a")
        await pilot.pause()
        assert labels(path, "alice")
        await pilot.resize_terminal(200, 60)
        await pilot.pause()
        assert one.region.y == two.region.y


@run_async
async def test_context_documents_fold_out_with_x(tmp_path: Path) -> None:
    path = build_study(tmp_path, context=True)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        context = app.screen.query_one("#context", Collapsible)
        assert context.display and context.collapsed
        assert "Document one" not in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        assert not context.collapsed and "Document one about fever." in screen_text(app)
        await pilot.press("right")
        await pilot.pause()
        assert not context.display  # p1 has no context


@run_async
async def test_help_lists_every_key(tmp_path: Path) -> None:
    from medjudge.tui.agreement_screen import AgreementScreen
    from medjudge.tui.keys import KEYMAP
    from medjudge.tui.overview_screen import OverviewScreen

    shown = " ".join(k for _, keys in KEYMAP for k, _ in keys)
    names = {
        "question_mark": "?",
        "slash": "/",
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "space": "space",
        "enter": "enter",
        "escape": "escape",
        "up": "↑",
        "down": "↓",
        "right": "→",
        "left": "←",
    }
    for screen in (ReviewScreen, OverviewScreen, AgreementScreen):
        for binding in screen.BINDINGS:
            for key in binding.key.split(","):  # type: ignore[union-attr]
                label = names.get(key, key)
                if (
                    len(label) == 1
                    and label.isalpha()
                    and label.islower()
                    and "a–f" in shown
                    and label in "abcdef"
                ):
                    continue
                if label.isdigit():
                    assert "1–5" in shown
                    continue
                assert label in shown, f"{screen.__name__}: {key} missing from the help"
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 70)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "undo your last label" in text
        # the keys of the study's kinds only: this study has no ranking items
        assert "Pairwise items" in text and "Ranking items" not in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)


@run_async
async def test_zoom_gives_a_pane_the_screen(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("shift+tab", "shift+tab", "z")  # criteria → B → A
        await pilot.pause()
        assert app.screen.maximized is app.screen.query_one("#pane-1")
        await pilot.press("a")  # votes still work while zoomed
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None
    assert len(labels(path, "alice")) == 1


def test_reviewer_name_needs_the_study_to_allow_it(tmp_path: Path) -> None:
    path = build_study(tmp_path, override=False)
    with pytest.raises(ReviewSetupError, match="does not allow"):
        make_app(path, reviewer="someone-else", poll_interval=None)


@run_async
async def test_assigned_items_only_by_default(tmp_path: Path) -> None:
    from medjudge.store.assignments import assign

    path = build_study(tmp_path)
    study = Study.open(path)
    assign(study, ["alice"], [2, 4], by="lead")
    study.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)):
        assert [r.id for r in review(app).session.refs] == [2, 4]
    everything = make_app(path, reviewer="alice", assigned_only=False, poll_interval=None)
    async with everything.run_test(size=(100, 40)):
        assert len(review(everything).session.refs) == 7


@run_async
async def test_batch_filter(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", batch="week-9", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert review(app).session.refs == []
        assert "no items in batch 'week-9'" in screen_text(app)


@run_async
async def test_an_empty_queue_says_so(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=0, statements=0, rating=0)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a", "right", "j", "u")
        assert "Nothing to review" in screen_text(app)


@run_async
async def test_quit_records_the_time_on_the_current_item(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await pilot.press("q")
    assert scalar(path, "SELECT visits FROM item_time") == 1
