"""Notes per criterion as well as per item: `M` writes a note on the criterion under the
cursor, kept with the reviewer's label (and exported with it); it needs the label first, and
saving it is not a change of mind (anchoring does not count it)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app as cli_app
from medjudge.store.history import post_reveal_changes
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.dialogs import PromptDialog

from .support.tui import build_study, run_async, screen_text, until

cli = CliRunner()


@run_async
async def test_a_note_on_a_criterion(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=1, statements=0, rating=0, blind=False)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "Question 0?" in screen_text(app), "the item")
        await pilot.press("M")  # nothing labelled yet: said, no dialog
        await until(pilot, lambda: "label it first" in screen_text(app), "the hint")
        assert not isinstance(app.screen, PromptDialog)
        await pilot.press("a")  # correctness labelled; the cursor moves to helpfulness
        await until(pilot, lambda: "saved" in screen_text(app), "the label")
        await pilot.press("up", "M")
        await until(pilot, lambda: isinstance(app.screen, PromptDialog), "the note dialog")
        await pilot.press(*"dose too high for CKD", "enter")
        await until(pilot, lambda: "note on correctness saved" in screen_text(app), "saved")
        await until(pilot, lambda: "Your note (M): dose too high" in screen_text(app), "shown")
    r = cli.invoke(cli_app, ["export", str(path), "labels"])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    (mine,) = [x for x in rows if x["rater"] == "alice" and x["criterion"] == "correctness"]
    assert mine["note"] == "dose too high for CKD" and mine["note_frame"] == "display"
    with Study.open(path) as s:
        assert post_reveal_changes(s) == [], "a note is not a change of the value"
        # the note's history row carries the order the label was given in (its letters)
        rows = s.conn.execute(
            "SELECT h.display_order, l.display_order FROM label_history h "
            "JOIN labels l ON l.unit_id = h.unit_id AND l.rater_id = h.rater_id "
            "WHERE h.note IS NOT NULL"
        ).fetchall()
        assert len(rows) == 1 and rows[0][0] == rows[0][1] and rows[0][0] in ("AB", "BA")
