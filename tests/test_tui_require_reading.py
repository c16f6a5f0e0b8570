"""`settings --require-reading`: labelling waits until every answer on screen has been
seen to its end — scrolled through in its pane, or read to the bottom of the reader's last
page (`v`). Short answers that fit are seen at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.read_screen import ReadScreen
from medjudge.tui.review.screen import ReviewScreen

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import run_async, screen_text, until

LONG = " ".join(f"word{i}" for i in range(2000)) + " THE-END"


def _study(tmp_path: Path, answer_a: str) -> Path:
    path = tmp_path / "read.db"
    settings = StudySettings(name="read", require_reading=True, allow_reviewer_override=True)
    s = Study.create(path, settings, actor="t")
    rows = [pairwise_row(0, answer_a=answer_a, answer_b="Short B.")]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    s.close()
    return path


def _labels(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM labels").fetchone()[0])
    finally:
        conn.close()


@run_async
async def test_a_long_answer_must_be_read_before_labelling(tmp_path: Path) -> None:
    path = _study(tmp_path, LONG)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "word0 word1" in screen_text(app), "the item")
        await pilot.press("a")
        await until(pilot, lambda: "read every answer to its end first" in screen_text(app), "no")
        assert _labels(path) == 0
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader")
        await pilot.press("escape")  # closed at the top: not read
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "back")
        await pilot.press("a")
        assert _labels(path) == 0
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader again")
        reader = app.screen
        assert isinstance(reader, ReadScreen)
        for _ in range(len(reader.pages) - 1):
            await pilot.press("n")
        await pilot.press("end")
        await until(pilot, lambda: "THE-END" in screen_text(app), "the last words")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "back")
        await pilot.press("a")
        await until(pilot, lambda: _labels(path) == 1, "the label saved")


@run_async
async def test_short_answers_are_seen_at_once(tmp_path: Path) -> None:
    path = _study(tmp_path, "Short A.")
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "Short A." in screen_text(app), "the item")
        await pilot.press("a")
        await until(pilot, lambda: _labels(path) == 1, "the label saved")
