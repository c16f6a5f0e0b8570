"""Reviewer guidelines and "come back to this" flags: store, CLI and the real app."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app as cli_app
from medjudge.store import reviewer_aids
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.guidelines_screen import GuidelinesScreen
from medjudge.tui.read_screen import ReadScreen
from medjudge.tui.review.screen import ReviewScreen

from .support.checks import some
from .support.tui import build_study, run_async, screen_text

cli = CliRunner()
GUIDE = "# How to score\n\nPrefer the **safer** answer. [red]this is not markup[/red]\x1b[2J\n"


def _with_guidelines(path: Path, text: str = GUIDE) -> None:
    with Study.open(path) as s:
        s.save_settings(s.settings.model_copy(update={"guidelines": text}), actor="lead")


def test_flags_keep_their_history_and_the_latest_holds(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    with Study.open(path) as s:
        reviewer_aids.set_flag(s, 1, "ann", True)
        reviewer_aids.set_flag(s, 2, "ann", True)
        reviewer_aids.set_flag(s, 1, "ann", False)
        reviewer_aids.set_flag(s, 3, "bob", True)
        assert reviewer_aids.flagged_items(s, "ann") == {2}
        assert reviewer_aids.flagged_items(s, "bob") == {3}
        assert s.conn.execute("SELECT count(*) FROM item_flags").fetchone()[0] == 4
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            s.conn.execute("DELETE FROM item_flags")


def test_guidelines_are_due_once_per_version(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    with Study.open(path) as s:
        assert not reviewer_aids.guidelines_unread(s, "ann")  # none set
    _with_guidelines(path)
    with Study.open(path) as s:
        assert reviewer_aids.guidelines_unread(s, "ann")
        reviewer_aids.mark_guidelines_read(s, "ann")
        assert not reviewer_aids.guidelines_unread(s, "ann")
        assert reviewer_aids.guidelines_unread(s, "bob")
    _with_guidelines(path, GUIDE + "\nNew rule: flag anything unclear.\n")
    with Study.open(path) as s:
        assert reviewer_aids.guidelines_unread(s, "ann")  # changed: shown again


def test_settings_guidelines_from_a_file_and_clear_errors(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    r = cli.invoke(cli_app, ["settings", str(path), "--guidelines", str(guide)])
    assert r.exit_code == 0, r.output
    assert "reviewer guidelines: " in r.output
    with Study.open(path) as s:
        assert s.settings.guidelines == GUIDE
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"ok \xff")
    r = cli.invoke(cli_app, ["settings", str(path), "--guidelines", str(bad)])
    assert r.exit_code == 1 and "bad.md: not UTF-8 text (byte 4 is 0xff)" in r.output
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    r = cli.invoke(cli_app, ["settings", str(path), "--guidelines", str(empty)])
    assert r.exit_code == 1 and "empty" in r.output
    r = cli.invoke(cli_app, ["settings", str(path), "--guidelines", str(tmp_path / "nope.md")])
    assert r.exit_code == 1 and "nope.md: cannot read it" in r.output
    r = cli.invoke(cli_app, ["settings", str(path), "--clear-guidelines"])
    assert r.exit_code == 0
    with Study.open(path) as s:
        assert s.settings.guidelines is None


@run_async
async def test_guidelines_open_on_first_launch_literally_then_on_g_only(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    _with_guidelines(path)
    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, GuidelinesScreen)
        text = screen_text(app)
        assert "How to score" in text and "new or changed" in text
        assert "[red]this is not markup[/red]" in text  # shown, not interpreted
        assert "\\x1b" in text  # the escape sequence is made visible, not sent
        await pilot.press("escape")
        assert isinstance(app.screen, ReviewScreen)
    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)  # seen: not again
        await pilot.press("G")
        assert isinstance(app.screen, GuidelinesScreen)
        assert "new or changed" not in screen_text(app)
        await pilot.press("G")
        assert isinstance(app.screen, ReviewScreen)


@run_async
async def test_flag_an_item_and_find_it_again(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=4, statements=0, rating=0)
    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        session = app.review.session
        first = some(session.item).id
        await pilot.press("f")
        assert first in session.flagged and "flagged" in screen_text(app)
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert some(session.item).id != first
        await pilot.press("F")
        assert some(session.item).id == first
    # Stored in the study: a new session (another day) still has the flag; f again clears it.
    with Study.open(path) as s:
        assert reviewer_aids.flagged_items(s, "ann") == {first}
    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("F")
        assert some(app.review.session.item).id == first
        await pilot.press("f")
    with Study.open(path) as s:
        assert reviewer_aids.flagged_items(s, "ann") == set()


@run_async
async def test_the_reading_screen_shows_the_items_metadata(tmp_path: Path) -> None:
    from medjudge.store.importing.run import import_file

    from .support.kind_rows import pairwise_row, write_jsonl

    path = build_study(tmp_path, pairwise=0, statements=0, rating=0)
    row = {**pairwise_row(0), "specialty": "cardiology", "p": 20}
    with Study.open(path) as s:
        import_file(s, write_jsonl(tmp_path / "m.jsonl", [row]), "pairwise", actor="lead")
    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("v")
        assert isinstance(app.screen, ReadScreen)
        text = screen_text(app)
        assert "specialty: cardiology" in text and "p: 20" in text
