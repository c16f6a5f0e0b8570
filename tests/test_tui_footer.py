"""Every key a screen takes is findable on it at 80×24: shown in its footer, which fits the
width and always shows ``?`` (or, on the help, the key that closes it), or listed by ``?``.

The screens are walked on the demo study (an item of every kind) and on the adjudication
study of ``support/adjudication``: the review screen on each kind's first item (and a rating
item's scale row, a revealed item, a change armed with E), the reader, the guidelines, the
help, the overview, the adjudication queue and its detail of each kind of unit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from medjudge.demo.build import build_demo
from medjudge.store.reads import item_kind_counts
from medjudge.tui import textual_private
from medjudge.tui.app import make_app
from medjudge.tui.dialogs import HelpScreen
from medjudge.tui.keys import GENERAL, kind_keys
from medjudge.tui.widgets import KeyFooter

from .support.adjudication import adjudicator_app, disputed, loaded, open_unit
from .support.demo import demo_study
from .support.tui import current, run_async, screen_text, until

SIZE = (80, 24)
NAMES = {
    "question_mark": "?",
    "slash": "/",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "up": "↑",
    "down": "↓",
    "right": "→",
    "left": "←",
    "pageup": "pgup",
    "pagedown": "pgdn",
}
"""Textual's key names as the help writes them."""


@pytest.fixture(scope="module")
def demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    study = build_demo(path, actor="lead")
    try:
        settings = study.settings.model_copy(update={"guidelines": "# Read both answers."})
        study.save_settings(settings, actor="lead")
    finally:
        study.close()
    return path


demo = pytest.fixture(demo_study)


def help_keys(kinds: list[str] | None) -> set[str]:
    """Every key the help lists (its own spelling: ranges ``a–f`` and ``1–5`` spelled out)."""
    out: set[str] = set()
    for _, keys in [*kind_keys(kinds), *GENERAL]:
        for written, _what in keys:
            tokens = [t for t in re.split(r"[\s,]+", written) if t]
            for token in tokens:
                if re.fullmatch(r"\w–\w", token):
                    out.update(chr(c) for c in range(ord(token[0]), ord(token[2]) + 1))
                elif token != "or" and (token != "/" or len(tokens) == 1):  # "a / b": a and b
                    out.add(token)
    return out


def ours(screen: Screen[Any]) -> set[tuple[str, str]]:
    """(key, action) of every binding medjudge declares on the screen, the app and the
    screen's widgets (Textual's own bindings, for scrolling or copying, are not the app's)."""
    nodes = [screen, screen.app, *screen.query("*")]
    out: set[tuple[str, str]] = set()
    for node in nodes:
        for cls in type(node).__mro__:
            if not cls.__module__.startswith("medjudge"):
                continue
            for binding in cls.__dict__.get("BINDINGS", []):
                key, action = (
                    binding[:2] if isinstance(binding, tuple) else (binding.key, binding.action)
                )
                for one in key.split(","):
                    out.add((one.strip(), action))
    return out


def footer_line(app: Any) -> str:
    return screen_text(app).splitlines()[-1]


def check_screen(app: Any, what: str) -> None:
    """Every binding of the screen on top is in its footer's text or in the help; the footer
    fits and shows ``?``."""
    screen = app.screen
    footer = screen.query_one(KeyFooter)
    line = footer_line(app)
    keys = textual_private.footer_keys(footer)
    for key in keys:  # each key the footer holds is on screen whole
        assert 0 < key.region.width == key.size.width, f"{what}: {key.key} is cut: {line!r}"
        assert key.key_display in line
    shown = {k.action for k in keys}
    if isinstance(screen, HelpScreen):
        assert "esc Close" in line, f"{what}: {line!r}"
    else:
        assert "? Help" in line, f"{what}: no ? in the footer: {line!r}"
    listed = help_keys(list(item_kind_counts(app.study)))
    declared = ours(screen)
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if (key, binding.action) not in declared:
            continue
        if binding.action in shown:
            continue
        assert NAMES.get(key, key) in listed, (
            f"{what}: {key} ({binding.action}) is neither in the footer nor in the help; "
            f"footer: {line!r}"
        )


async def settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.pause()


@run_async
async def test_every_review_key_is_in_the_footer_or_the_help(demo: Path) -> None:
    from medjudge.tui.guidelines_screen import GuidelinesScreen
    from medjudge.tui.overview_screen import OverviewScreen
    from medjudge.tui.read_screen import ReadScreen
    from medjudge.tui.review.screen import ReviewScreen

    app = make_app(demo, reviewer="dr_demo", poll_interval=None)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GuidelinesScreen), "the guidelines")
        await settle(pilot)
        check_screen(app, "guidelines")
        await pilot.press("escape")
        review = current(app, ReviewScreen)
        for ext_id in ("st-01", "rt-01", "mt-01", "hb-01", "rank-01", "pw-01"):
            await pilot.press("g", *ext_id, "enter")
            await until(
                pilot,
                lambda e=ext_id: (
                    review.session.item is not None and review.session.item.ext_id == e
                ),
                ext_id,
            )
            await settle(pilot)
            check_screen(app, ext_id)
            if ext_id == "rt-01":
                await pilot.press("down")  # a scale row: the ticks and the scale keys both
                await settle(pilot)
                check_screen(app, "rt-01, a scale row")
        await pilot.press("a", "b", "t", "n", "a", "b")  # pw-01 revealed (the demo's verdicts)
        await until(pilot, review.session.locked, "the reveal")
        await settle(pilot)
        check_screen(app, "revealed")
        await pilot.press("E")
        await settle(pilot)
        check_screen(app, "a change armed")
        await pilot.press("escape", "v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader")
        await settle(pilot)
        check_screen(app, "reader")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(pilot)
        check_screen(app, "help")
        await pilot.press("escape", "escape", "o")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen), "the overview")
        await settle(pilot)
        check_screen(app, "overview")


@run_async
async def test_every_adjudication_key_is_in_the_footer_or_the_help(tmp_path: Path) -> None:
    app = adjudicator_app(disputed(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await settle(pilot)
        check_screen(app, "queue")
        for where in ("p0/correctness", "s0/statement 1", "r0/completeness"):
            await open_unit(pilot, where)
            await settle(pilot)
            check_screen(app, where)
            await pilot.press("escape")
            await loaded(pilot)


def test_the_help_keys_are_read_as_the_help_writes_them() -> None:
    keys = help_keys(None)
    assert {"a", "f", "1", "5", "]", "→", "ctrl+z", "tab", "shift+tab", "?", "/"} <= keys
