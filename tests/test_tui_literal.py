"""Untrusted text is shown literally: no markup, no terminal escapes, no bidi reordering."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from medjudge.tui import render
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.tui import add_verdicts, build_study, run_async, screen_text

VISIBLE = ["[bold red]x[/]", "\\x1b[2J", "\\x1b]52;c;SGVsbG8=\\x07", "<U+202E>evil"]


@run_async
async def test_hostile_answer_text_appears_as_literal_text(tmp_path: Path) -> None:
    path = build_study(tmp_path, hostile=True, blind=False)
    add_verdicts(path, "p0", {"correctness": "A"}, reason="[blink]r[/] \x1b[31mred\x1b[0m")
    app = make_app(path, reviewer="[bold]alice[/]", poll_interval=None)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        for piece in VISIBLE:
            assert text.count(piece) >= 3, piece  # question and both answers
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
        assert "[blink]r[/] \\x1b[31mred\\x1b[0m" in text
        # No markup was applied: the segments holding the literal text carry no bold/red.
        strips = app.screen._compositor.render_strips()
        for strip in strips:
            for segment in strip:
                if "[bold red]x[/]" in segment.text:
                    style = segment.style
                    assert style is None or not (
                        style.bold and style.color and style.color.name == "red"
                    )
        await pilot.press("o")
        await pilot.pause()
        assert "[bold]alice[/]" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)


def test_render_functions_never_parse_markup() -> None:
    out = render.lit("[bold red]x[/] \x1b[2J \u202e")
    assert isinstance(out, Text)
    assert out.plain == "[bold red]x[/] \\x1b[2J <U+202E>"
    assert not out.spans


def test_no_color_keeps_meaning_in_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    monkeypatch.setenv("NO_COLOR", "1")
    path = build_study(tmp_path)

    async def go() -> str:
        app = make_app(path, reviewer="alice", poll_interval=None)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await pilot.pause()
            assert app.no_color
            return screen_text(app)

    text = asyncio.run(go())
    assert "▶ helpfulness" in text and "saved" in text  # marker and words, not colour alone
