"""At 80×24 a reviewer can read a long answer in full: the reading key (v), shown in the
footer, opens the whole item full screen and scrolls to its last word."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.read_screen import ReadScreen

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import run_async, screen_text, until

LONG = " ".join(f"sentence{i} of a long answer about dosing." for i in range(200))


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "long.db"
    s = Study.create(path, StudySettings(name="long", allow_reviewer_override=True), actor="t")
    row = pairwise_row(0, answer_a=LONG + " THE-END-A", answer_b="Short [b]B[/b] answer.")
    import_file(s, write_jsonl(tmp_path / "p.jsonl", [row]), "pairwise", actor="t")
    s.close()
    return path


@run_async
async def test_the_reading_key_shows_a_long_answer_in_full_at_80x24(tmp_path: Path) -> None:
    app = make_app(_study(tmp_path), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "v Read" in screen_text(app), "the footer's reading key")
        text = screen_text(app)
        assert "THE-END-A" not in text
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ReadScreen)
        first_page = screen_text(app)
        assert "sentence0 of a long answer" in first_page
        for _ in range(60):
            await pilot.press("pagedown")
        await pilot.pause()
        text = screen_text(app)
        assert "THE-END-A" in text, "scrolled to the last word"
        # Both answers, in display order, literally (the short one is first or last).
        assert "Short [b]B[/b] answer." in first_page + text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReadScreen)
        await pilot.press("a")
        await pilot.pause()
        assert "saved" in screen_text(app), "back on the review screen, keys label again"


@run_async
async def test_an_answer_pane_says_its_length_and_that_it_continues(tmp_path: Path) -> None:
    """a 1,400-word answer at 80×24 is not taken for a short one: its pane's title gives
    the words and says it continues; the short answer's title says its words only."""
    app = make_app(_study(tmp_path), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:

        def titles() -> list[str]:
            return [str(app.screen.query_one(f"#pane-{n}").border_title) for n in (1, 2)]

        await until(pilot, lambda: any("continues" in t for t in titles()), "the length mark")
        long_title = next(t for t in titles() if "continues" in t)
        short_title = next(t for t in titles() if "continues" not in t)
        assert "1,401 words · continues: v to read" in long_title
        assert short_title.endswith("· 3 words")
        assert "continues: v to read" in screen_text(app)
