"""Toasts never stack over the answers at 80×24: a repeated message is shown once while it is
up, another replaces it, and the toast sits over the bottom rows, not over an answer pane."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.geometry import Region

from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen
from medjudge.tui.widgets import Pane

from .support.tui import add_verdicts, build_study, current, run_async, until

PAIRWISE = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")


def toasts(app: Any) -> list[Any]:
    return [t for t in app.screen.query("Toast") if t.display and t.region.area]


def answer_regions(app: Any) -> list[Region]:
    """Where the question and the answers are on screen."""
    return [
        pane.region
        for pane in app.screen.query(Pane)
        if pane.id is not None
        and (pane.id == "question" or pane.id.startswith("pane-"))
        and pane.region.area
    ]


@run_async
async def test_label_keys_on_a_revealed_item_raise_one_toast_off_the_answers(
    tmp_path: Path,
) -> None:
    path = build_study(tmp_path)
    add_verdicts(path, "p0", {c: "A" for c in PAIRWISE})
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = current(app, ReviewScreen)
        await pilot.press(*"aaaaaa")  # the sixth label reveals the judge's verdicts
        await until(pilot, screen.session.locked, "the reveal")
        await pilot.press("a", "b", "t")  # held: the item is done
        await until(pilot, lambda: bool(toasts(app)), "the toast")
        await pilot.pause()
        shown = toasts(app)
        assert len(shown) == 1, [str(t.render()) for t in shown]
        panes = answer_regions(app)
        assert len(panes) >= 3  # the question and both answers
        for toast in shown:
            for pane in panes:
                assert not toast.region.overlaps(pane), (toast.region, pane)
        app.notify("Another message.")  # another message replaces the first
        await pilot.pause()
        assert len(toasts(app)) == 1


@run_async
async def test_every_kind_of_toast_at_80x24_keeps_off_the_answers(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.notify("x " * 150, title="a long error", severity="error", markup=False)
        await until(pilot, lambda: bool(toasts(app)), "the toast")
        await pilot.pause()
        (toast,) = toasts(app)
        for pane in answer_regions(app):
            assert not toast.region.overlaps(pane), (toast.region, pane)
