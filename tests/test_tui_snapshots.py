"""Snapshots of the review app on the demo study at fixed terminal sizes.

Every SVG under ``tests/__snapshots__/test_tui_snapshots/`` was looked at before it was
accepted; after a deliberate change, inspect the new ones (``--snapshot-update``) the same way.
Nothing on these screens depends on the clock, and Input cursors do not blink.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from medjudge.tui.app import ReviewApp, make_app

from .support.demo import demo_master_study, demo_study

SnapCompare = Callable[..., bool]
"""pytest-textual-snapshot's fixture: it takes a file or an App (its annotation says only a file)."""

NARROW = (80, 24)
WIDE = (140, 40)


demo_master = pytest.fixture(scope="module")(demo_master_study)
demo = pytest.fixture(demo_study)


def app_on(path: Path) -> ReviewApp:
    return make_app(path, reviewer="dr_demo", poll_interval=None)


def test_pairwise_first_item_narrow(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=NARROW)


def test_pairwise_first_item_wide(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=WIDE)


def test_pairwise_revealed_after_the_last_label_wide(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=WIDE, press=["a", "b", "t", "n", "a", "b"])


def test_pairwise_revealed_narrow(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=NARROW, press=["a", "b", "t", "n", "a", "b"])


def test_statements_narrow(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(
        app_on(demo), terminal_size=NARROW, press=["g", "s", "t", "-", "0", "1", "enter", "e", "c"]
    )


def test_rating_with_ticks_wide(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(
        app_on(demo), terminal_size=WIDE, press=["g", "r", "t", "-", "0", "2", "enter", "a", "c"]
    )


def test_help_narrow(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=NARROW, press=["question_mark"])


async def _overview(pilot: Pilot[None]) -> None:
    await pilot.press("o")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    table = pilot.app.screen.query_one("#ov-agreement", DataTable)
    assert table.row_count > 0
    await pilot.pause()


def test_overview_wide(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=WIDE, run_before=_overview)


def test_overview_narrow(snap_compare: SnapCompare, demo: Path) -> None:
    assert snap_compare(app_on(demo), terminal_size=NARROW, run_before=_overview)
