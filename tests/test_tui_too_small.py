"""A terminal smaller than the app can use gets a clear 'terminal too small' screen, which goes
away when the terminal is made larger; no key labels anything meanwhile."""

from __future__ import annotations

from pathlib import Path

from medjudge.tui.app import make_app
from medjudge.tui.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen

from .support.tui import build_study, labels, run_async, screen_text


@run_async
async def test_too_small_then_large_enough(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(60, 18)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        text = screen_text(app)
        assert f"terminal too small: needs at least {MIN_WIDTH}×{MIN_HEIGHT}" in text
        assert "(now 60×18)" in text
        await pilot.press("a", "b")
        await pilot.pause()
        assert labels(path, "alice") == {}, "no key labels while the screen is too small"
        await pilot.resize_terminal(MIN_WIDTH - 1, 40)
        await pilot.pause()
        assert f"(now {MIN_WIDTH - 1}×40)" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not isinstance(app.screen, TooSmallScreen)
        await pilot.press("a")
        await pilot.pause()
        assert len(labels(path, "alice")) == 1


@run_async
async def test_80x24_is_large_enough(tmp_path: Path) -> None:
    app = make_app(build_study(tmp_path), reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not isinstance(app.screen, TooSmallScreen)
