"""A review app that has exited, and its study, are freed once the event loop that ran them
is gone: the full suite runs hundreds of apps in two worker processes and must stay small
."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import weakref
from pathlib import Path

import pytest

from medjudge.store.study import Study
from medjudge.tui.app import ReviewApp, make_app

from .support.tui import build_study


def test_an_exited_app_and_its_study_are_freed(tmp_path: Path) -> None:
    async def review() -> tuple[weakref.ref[ReviewApp], weakref.ref[Study], sqlite3.Connection]:
        app = make_app(build_study(tmp_path), reviewer="alice", poll_interval=None)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("right_square_bracket")
        return weakref.ref(app), weakref.ref(app.study), app.study.conn

    app, study, conn = asyncio.run(review())
    with pytest.raises(sqlite3.ProgrammingError):  # closed when the app exited
        conn.execute("SELECT 1")
    gc.collect()
    assert (app(), study()) == (None, None)


def test_the_objects_made_to_start_the_app_are_kept_from_the_collector_until_it_exits(
    tmp_path: Path,
) -> None:
    """A full collection walked every object made to start the app (30-100 ms, one key in
    fifty): they are frozen once the first frame is up, and given back when the app ends (an
    ended app must still be freed, above)."""
    gc.unfreeze()
    frozen: list[int] = []

    async def review() -> None:
        app = make_app(build_study(tmp_path), reviewer="alice", poll_interval=None)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("right_square_bracket")
            frozen.append(gc.get_freeze_count())

    asyncio.run(review())
    assert frozen[0] > 10_000  # the modules, the app and its widgets
    assert gc.get_freeze_count() == 0
