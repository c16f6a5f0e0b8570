"""The adjudication queue and detail, driven by keys through Textual's Pilot.

Assertions are on the study file (the ``adjudications`` table) and on what the screen shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.widgets import DataTable
from typer.testing import CliRunner

from medjudge.store.adjudications import adjudicate
from medjudge.store.items import get_item
from medjudge.store.labels import set_label
from medjudge.store.roles import PermissionDenied, grant
from medjudge.store.study import Study
from medjudge.tui.adjudication.detail import AdjudicationDetailScreen
from medjudge.tui.adjudication.screen import AdjudicationScreen
from medjudge.tui.adjudication.widgets import RationaleDialog
from medjudge.tui.app import make_app

from .support.adjudication import (
    RAW,
    adjudications,
    adjudicator_app,
    disputed,
    loaded,
    notifications,
    open_unit,
)
from .support.tui import HOSTILE, item_swap, run_async, screen_text, top_screen

VISIBLE = ["[bold red]x[/]", "\\x1b[2J", "\\x1b]52;c;SGVsbG8=\\x07", "<U+202E>evil"]


ALL = {
    "s0/statement 1": {"reviewer_vs_reviewer"},
    "r0/completeness": {"reviewer_vs_reviewer"},
    "r0/correctness_rating": {"reviewer_vs_reviewer"},
    "p0/correctness": {"reviewer_vs_reviewer", "reviewer_vs_judge", "failed_samples"},
    "p1/correctness": {"reviewer_vs_judge", "position_inconsistency"},
    "p0/helpfulness": {"samples_disagreed"},
}


@run_async
async def test_queue_lists_every_disagreement_with_counts_and_filters(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        assert {d.where: set(d.kinds) for d in screen.rows} == ALL
        assert [d.split for d in screen.rows] == sorted(
            (d.split for d in screen.rows), reverse=True
        )
        text = screen_text(app)
        for piece in ("R↔R 4", "R↔J 2", "J↔J 0", "AB≠BA 1", "samples 1", "failed 1", "6 units"):
            assert piece in text, piece
        table = screen.query_one(DataTable)
        assert table.row_count == 6
        p0 = table.get_row(
            str(screen.rows[[d.where for d in screen.rows].index("p0/correctness")].unit_id)
        )
        assert item_swap(path, "p0")  # reviewers saw answer B first: letters must not follow
        assert "".join(str(c) for c in p0[:2]) == "p0/correctnessR↔R R↔J failed"
        assert str(p0[4]) == "A×2  B×1"  # alice A, judge A; bob B (file frame)
        assert "(A = answer_a, B = answer_b)" in text

        await pilot.press("k")  # kinds cycle through those present: R↔R first
        assert screen.filters.kind == "reviewer_vs_reviewer" and len(screen.rows) == 4
        await pilot.press("k")
        assert {d.where for d in screen.rows} == {"p0/correctness", "p1/correctness"}
        await pilot.press("k")  # judge_vs_judge is absent: skipped
        assert screen.filters.kind == "position_inconsistency"
        assert [d.where for d in screen.rows] == ["p1/correctness"]
        await pilot.pause()
        assert "kind judge AB vs BA" in screen_text(app)
        await pilot.press("x", "c")
        assert screen.filters.criterion == "completeness"
        assert [d.where for d in screen.rows] == ["r0/completeness"]
        await pilot.press("x", "s")
        assert screen.filters.source == "model-x" and len(screen.rows) == 6
        await pilot.press("s")
        assert screen.filters.source == "model-y"
        assert {d.where for d in screen.rows} == {
            "p0/correctness",
            "p1/correctness",
            "p0/helpfulness",
        }
        await pilot.press("x", "r", "r")
        assert screen.filters.reviewer == "bob" and len(screen.rows) == 6
        await pilot.press("x", "u")
        assert screen.filters.unresolved_only and len(screen.rows) == 6


@run_async
async def test_detail_shows_the_item_and_every_vote(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(110, 90)) as pilot:
        detail = await open_unit(pilot, "p0/correctness")
        assert item_swap(path, "p0")  # shown in the file frame all the same
        a, b = "A", "B"
        text = screen_text(app)
        for piece in (
            "p0/correctness  4/6 in the queue",
            "Disputed: reviewer vs reviewer · reviewer vs judge · failed judge samples",
            "Sources (hidden from reviewers): A = model-x, B = model-y",
            "reviewers saw B first",
            "Item (answers in file order)",
            "Question 0?",
            f"• alice: {a}  ⚑ changed after the reveal",
            "note: A names the red flags",
            f"• bob: {b}",
            "note on the item: bob's note on p0",
            f"• openai:judge: {a}",
            f"AB order (the judge's Response A: Answer {a})",
            f"BA order (swapped, Response A: Answer {b}; votes mapped back)",
            f"votes: {a} {a} → {a}",
            f"votes: {a} {a} {a} → {a}",
            f"1. {a} AB reason 1",
            f"3. {a} BA reason 3",
            "judge wrote (Response letters): B B B",  # in BA, Response B is the item's A
            "✗ failed sample 3: no verdict in reply",
            "raw reply (untrusted model output, shown literally):",
            RAW,
            "no final label yet",
        ):
            assert piece in text, piece
        order = ["Answer A (answer_a)", "Answer A 0.", "Answer B (answer_b)", "Answer B 0."]
        assert [text.index(piece) for piece in order] == sorted(text.index(p) for p in order)
        assert "Context documents: 2 (x to show or hide)" in text
        assert "Document one about fever." not in text
        await pilot.press("x")
        await pilot.pause()
        assert "Document one about fever." in screen_text(app)
        await pilot.press("right_square_bracket")  # next unit in the queue
        await pilot.pause()
        assert detail.entry.where == "p1/correctness"
        assert "position-inconsistent: AB ≠ BA" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        queue_screen = app.screen
        assert isinstance(queue_screen, AdjudicationScreen)
        assert (
            queue_screen.rows[queue_screen.query_one(DataTable).cursor_row].where
            == "p1/correctness"
        )


@run_async
async def test_recording_and_revising_a_final_label_at_80x24(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    recorded: dict[int, AdjudicationDetailScreen.Recorded] = {}

    def hook(message: object) -> None:  # a message is seen by each node it bubbles through
        if isinstance(message, AdjudicationDetailScreen.Recorded):
            recorded[id(message)] = message

    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        queue_screen = await loaded(pilot)
        text = screen_text(app)
        assert "where" in text and "final" in text and "votes" in text  # every column fits
        assert "k Kind" in text and "esc Back" in text
        detail = await open_unit(pilot, "p0/correctness")
        kinds = list(detail.entry.kinds)
        text = screen_text(app)
        assert "a A" in text and "n Neither" in text and "Final: none yet" in text
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, RationaleDialog)
        assert "Final label for p0/correctness: A (answer_a, model-x)" in screen_text(app)
        await pilot.press(*"A names the red flags", "enter")
        await pilot.pause()
        assert top_screen(app) is detail
        first = "A"  # the key a records the file's answer_a, though reviewers saw it second
        assert adjudications(path) == [
            ("p0/correctness", first, "A names the red flags", "carol", kinds)
        ]
        assert "✓ saved final label A" in screen_text(app)
        assert [m.value for m in recorded.values()] == [first]
        await pilot.press("t", *"on review, a tie", "enter")
        await pilot.pause()
        rows = adjudications(path)
        assert len(rows) == 2 and rows[1][1:4] == ("tie", "on review, a tie", "carol")
        await pilot.press("tab", "z")  # the votes pane, full screen: the whole history
        await pilot.pause()
        text = screen_text(app)
        assert "(revised later)" in text and "(current)" in text and "on review, a tie" in text
        await pilot.press("escape", "escape")  # un-zoom, back to the queue
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert top_screen(app) is queue_screen
        entry = next(d for d in queue_screen.rows if d.where == "p0/correctness")
        assert entry.reference == "tie"
        assert "1 with a final label" in screen_text(app)
        await pilot.press("u")  # unresolved only: the settled unit leaves the list
        assert "p0/correctness" not in [d.where for d in queue_screen.rows]


@run_async
async def test_a_blank_rationale_is_refused(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = await open_unit(pilot, "p0/correctness")
        await pilot.press("b", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RationaleDialog)
        assert "A rationale is required" in screen_text(app)
        await pilot.press("space", "space", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RationaleDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert top_screen(app) is detail and "not recorded (cancelled)" in screen_text(app)
    assert adjudications(path) == []


@run_async
async def test_statement_and_rating_keys(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        detail = await open_unit(pilot, "s0/statement 1")
        text = screen_text(app)
        assert "statement 1 MUST  Must 0.1" in text and "▶  1 MUST  Must 0.1" in text
        await pilot.press("b", "a", "t")  # pairwise keys do nothing on a statement
        await pilot.pause()
        assert top_screen(app) is detail
        await pilot.press("c", *"the answer says the opposite", "enter")
        await pilot.pause()
        await pilot.press("escape")
        await loaded(pilot)
        await open_unit(pilot, "r0/correctness_rating")
        await pilot.press("6", "3", *"3 of 5", "enter")  # 6 is off the scale
        await pilot.pause()
        await pilot.press("escape")
        await loaded(pilot)
        await open_unit(pilot, "r0/completeness")
        await pilot.press("a", "c", "b", "b")
        await pilot.pause()
        assert "ticked A,C: enter records them" in screen_text(app)
        await pilot.press("enter", *"A and C justified", "enter")
        await pilot.pause()
    assert [r[:3] for r in adjudications(path)] == [
        ("s0/0", "contradicted", "the answer says the opposite"),
        ("r0/correctness_rating", "3", "3 of 5"),
        ("r0/completeness", "A,C", "A and C justified"),
    ]


@run_async
async def test_only_adjudicators_open_the_queue(tmp_path: Path) -> None:
    from medjudge.tui.overview_screen import OverviewScreen

    path = disputed(tmp_path)
    with pytest.raises(PermissionDenied, match="alice is not an adjudicator"):
        make_app(path, reviewer="alice", poll_interval=None, start="adjudicate")
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert "Adjudicate" not in screen_text(app)  # not offered in the footer
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        (severity, message), *_ = notifications(app)
        assert severity == "error" and "alice is not an adjudicator" in message
        assert "medjudge role" in message and "--as adjudicator" in message
    app = make_app(path, reviewer="carol", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert "A Adjudicate" in screen_text(app)
        await pilot.press("A")
        screen = await loaded(pilot)
        assert len(screen.rows) == 6
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)


@run_async
async def test_a_revoked_adjudicator_gets_a_clear_refusal(tmp_path: Path) -> None:
    from medjudge.store.roles import revoke

    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_unit(pilot, "p1/correctness")
        other = Study.open(path)
        revoke(other, "carol", "adjudicator", by="lead")
        other.close()
        await pilot.press("t", *"both orders", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RationaleDialog)  # stays open, the reason shown
        assert "not recorded: carol is not an adjudicator" in screen_text(app)
        assert any(s == "error" and "not an adjudicator" in m for s, m in notifications(app))
    assert adjudications(path) == []


@run_async
async def test_untrusted_text_is_shown_literally(tmp_path: Path) -> None:
    from medjudge.store.adjudications import adjudicate

    path = disputed(tmp_path, hostile=True)
    study = Study.open(path)
    unit = get_item(study, 1).unit_for("correctness").id
    set_label(study, unit, "[bold]dave[/]", "tie")
    grant(study, "carol", "adjudicator", by="lead")
    adjudicate(study, unit, "tie", "rationale " + HOSTILE, actor="carol")
    study.close()
    app = adjudicator_app(path)
    async with app.run_test(size=(200, 90)) as pilot:
        await open_unit(pilot, "p0/correctness")
        text = screen_text(app)
        for piece in VISIBLE:
            # question, both answers, the note, three AB reasons... the raw reply, the rationale
            assert text.count(piece) >= 8, (piece, text.count(piece))
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
        assert "[bold]dave[/]" in text and "I think {verdict: maybe} [not json" in text
        strips = app.screen._compositor.render_strips()
        for strip in strips:
            for segment in strip:
                if "[bold red]x[/]" in segment.text and segment.style is not None:
                    color = segment.style.color
                    assert not (color and color.name == "red")


@run_async
async def test_the_queue_follows_other_writers(tmp_path: Path) -> None:
    from medjudge.store.adjudications import adjudicate

    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        other = Study.open(path)
        unit = get_item(other, 2).unit_for("correctness").id
        adjudicate(other, unit, "tie", "another adjudicator", actor="carol")
        set_label(other, get_item(other, 3).unit_for("bias").id, "alice", "A")
        set_label(other, get_item(other, 3).unit_for("bias").id, "bob", "B")
        other.close()
        app.poll_study()  # what the timer does every poll_interval
        screen = await loaded(pilot)
        assert {d.where: d.reference for d in screen.rows}["p1/correctness"] == "tie"
        assert "p2/bias" in [d.where for d in screen.rows]


def test_cli_refuses_a_non_adjudicator_and_opens_the_queue_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.cli import app as cli
    from medjudge.store.paths import login_name
    from medjudge.tui.app import ReviewApp

    ran: list[ReviewApp] = []

    def fake_run(self: ReviewApp, *args: object, **kwargs: object) -> None:
        ran.append(self)
        self.study.close()

    monkeypatch.setattr(ReviewApp, "run", fake_run)
    monkeypatch.setattr("medjudge.commands.review.has_terminal", lambda: True)
    path = disputed(tmp_path)
    r = CliRunner().invoke(cli, ["adjudicate", str(path)])
    assert r.exit_code == 1 and "is not an adjudicator" in r.output and not ran
    study = Study.open(path)
    grant(study, login_name(), "adjudicator", by="lead")
    study.close()
    r = CliRunner().invoke(cli, ["adjudicate", str(path), "--kind", "failed_samples"])
    assert r.exit_code == 0, r.output
    assert len(ran) == 1 and ran[0].start == "adjudicate"
    assert ran[0].queue_filters is not None and ran[0].queue_filters.kind == "failed_samples"


@run_async
async def test_help_lists_every_adjudication_key(tmp_path: Path) -> None:
    from medjudge.tui.app import ReviewApp
    from medjudge.tui.dialogs import HelpScreen
    from medjudge.tui.keys import KEYMAP

    shown_keys = " ".join(k for _, keys in KEYMAP for k, _ in keys)
    names = {"question_mark": "?", "left_square_bracket": "[", "right_square_bracket": "]"}
    for owner in (AdjudicationScreen, AdjudicationDetailScreen, ReviewApp):
        for binding in owner.BINDINGS:
            assert isinstance(binding, Binding), binding
            for key in binding.key.split(","):
                label = names.get(key, key)
                if label.isdigit():
                    assert "1–5" in shown_keys
                    continue
                if binding.action.startswith("tick("):
                    assert "a–f, enter" in shown_keys
                    continue
                assert label in shown_keys, f"{owner.__name__}: {key} missing from the help"
    app = adjudicator_app(disputed(tmp_path))
    async with app.run_test(size=(100, 80)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "Adjudication queue" in screen_text(app)


# -- snapshots (looked at before they were accepted) ------------------------------------------


async def _queue_ready(pilot: Any) -> None:
    await loaded(pilot)


async def _detail_ready(pilot: Any) -> None:
    await open_unit(pilot, "p0/correctness")


def test_snapshot_queue_narrow(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(
        adjudicator_app(disputed(tmp_path)), terminal_size=(80, 24), run_before=_queue_ready
    )


def test_snapshot_detail_wide(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(
        adjudicator_app(disputed(tmp_path)), terminal_size=(140, 40), run_before=_detail_ready
    )


def test_the_queue_puts_what_needs_a_physician_first(tmp_path: Path) -> None:
    """reviewers who disagree first, then a reviewer against a judge, then judges' own
    inconsistencies; failed judge samples last; a unit with a final label after all open ones."""
    from medjudge.judging.analysis.disagreements import NEED, queue

    path = disputed(tmp_path)
    with Study.open(path) as s:
        entries = queue(s)
        tiers = [min(NEED[k] for k in e.kinds) for e in entries]
        assert tiers == sorted(tiers), [(e.where, e.kinds) for e in entries]
        assert entries[-1].kinds != ["failed_samples"] or tiers[-1] == 3
        first = entries[0]
        assert "reviewer_vs_reviewer" in first.kinds
        helpfulness = next(e for e in entries if e.kinds == ["samples_disagreed"])
        rev_judge = next(e for e in entries if e.kinds[0] == "reviewer_vs_judge")
        assert entries.index(rev_judge) < entries.index(helpfulness)
        grant(s, "carol", "adjudicator", by="lead")
        value = next(v for v in first.votes.values() if v)
        adjudicate(s, first.unit_id, value, "settled", actor="carol")
        again = queue(s)
        assert again[-1].unit_id == first.unit_id, "a settled unit goes after the open ones"
