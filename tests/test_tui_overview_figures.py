"""The overview's agreement table: "computing…" until its first figures arrive; each figure
with the units it is from, and the report's † on a figure from fewer than 20 units."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable

from medjudge.tui.agreement_feed import AgreementFeed
from medjudge.tui.app import make_app
from medjudge.tui.overview_screen import OverviewScreen

from .support.tui import build_study, run_async, screen_text, until
from .test_tui_overview import seed_labels, table_text


def agreement_rows(app: object) -> int:
    screen = app.screen  # type: ignore[attr-defined]
    if not isinstance(screen, OverviewScreen):
        return 0
    return screen.query_one("#ov-agreement", DataTable).row_count


@run_async
async def test_computing_shows_until_the_first_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = build_study(tmp_path)
    seed_labels(path)
    release = threading.Event()
    real = AgreementFeed.snapshot

    def held(self: AgreementFeed) -> object:
        release.wait(60)
        return real(self)

    monkeypatch.setattr(AgreementFeed, "snapshot", held)
    app = make_app(path, reviewer="carol", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen), "the overview")
        await pilot.pause()
        assert "computing…" in screen_text(app)
        assert agreement_rows(app) == 0
        release.set()
        await until(pilot, lambda: agreement_rows(app) > 0, "the figures")
        await pilot.pause()
        assert "computing…" not in screen_text(app)


@run_async
async def test_a_figure_on_few_units_carries_the_dagger_and_its_n(tmp_path: Path) -> None:
    path = build_study(tmp_path)
    seed_labels(path)  # two reviewers on two items: 2 units per criterion
    app = make_app(path, reviewer="carol", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        await until(pilot, lambda: agreement_rows(app) > 0, "the figures")
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = table_text(app, "#ov-agreement")
        correctness = next(line for line in rows.splitlines() if line.startswith("correctness"))
        assert "†" in correctness and "n=2" in correctness, correctness
        assert "† fewer than 20 units" in screen_text(app)
