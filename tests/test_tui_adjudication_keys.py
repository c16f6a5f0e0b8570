"""The adjudication detail's keys at 80×24: the rationale prompt takes every character typed
with the key that opened it, an empty tick set asks before it is recorded as ``-``, and a
label key that does nothing on a unit says so."""

from __future__ import annotations

from pathlib import Path

from textual import events

from medjudge.tui.adjudication.detail import AdjudicationDetailScreen
from medjudge.tui.adjudication.widgets import RationaleDialog
from medjudge.tui.dialogs import ConfirmDialog

from .support.adjudication import adjudications, adjudicator_app, disputed, open_unit
from .support.tui import run_async, screen_text, top_screen, until


def burst(app: object, keys: str) -> None:
    """Keys typed at once (one read of the terminal): queued before any is handled."""
    for key in keys:
        name = {"\r": "enter"}.get(key, key)
        app.post_message(events.Key(name, key))  # type: ignore[attr-defined]


@run_async
async def test_a_rationale_typed_at_once_goes_to_the_prompt_not_the_ticks(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = await open_unit(pilot, "r0/completeness")
        burst(app, "a\rbad choice\r")  # tick A, record, the rationale, enter
        await until(pilot, lambda: bool(adjudications(path)), "the final label")
        await pilot.pause()
        assert top_screen(app) is detail
        assert detail.ticks == set()
        assert [r[:3] for r in adjudications(path)] == [("r0/completeness", "A", "bad choice")]


@run_async
async def test_a_rationale_typed_key_by_key_takes_the_letters_too(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = await open_unit(pilot, "r0/completeness")
        await pilot.press("a", "c", "enter")
        await until(pilot, lambda: isinstance(app.screen, RationaleDialog), "the prompt")
        await pilot.press(*"abcdef", "enter")
        await until(pilot, lambda: top_screen(app) is detail, "the detail again")
        assert detail.ticks == set()
        assert [r[1:3] for r in adjudications(path)] == [("A,C", "abcdef")]


@run_async
async def test_no_option_ticked_asks_before_it_is_recorded(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = await open_unit(pilot, "r0/completeness")
        await pilot.press("enter")  # nothing ticked
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        assert "Record none of the options" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: top_screen(app) is detail, "the detail again")
        assert adjudications(path) == []
        assert "not recorded" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, RationaleDialog), "the prompt")
        await pilot.press(*"none is justified", "enter")
        await until(pilot, lambda: bool(adjudications(path)), "the final label")
    assert [r[1:3] for r in adjudications(path)] == [("-", "none is justified")]


@run_async
async def test_a_label_key_that_does_nothing_on_a_unit_says_so(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    app = adjudicator_app(path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        detail = await open_unit(pilot, "s0/statement 1")
        await pilot.press("b")  # a pairwise key, on a statement
        await until(pilot, lambda: "does nothing on this unit" in screen_text(app), "the notice")
        assert top_screen(app) is detail and isinstance(detail, AdjudicationDetailScreen)
        said = [n.message for n in app._notifications]
        assert said == [f"b does nothing on this unit: {detail._keys_hint()}."]
    assert adjudications(path) == []
