"""A key in the review app reads the same few rows however big the study has grown.

The cost of a key is counted in SQLite virtual-machine steps (a progress handler), which do
not depend on the machine's speed or load: the same keys on the next unlabelled item of a
study of 60 items and of one of 3,000, where the reviewer has labelled all but the last ten
and two others every item (with notes), must take about the same number of steps: moving on,
labelling an item to its reveal, going back. A query that SQLite plans from a rater's labels
instead of the item's units (the per-criterion notes' did: 4 ms a key at 30,000 labels) grows
with the study and fails this.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmarks.bench_review import REVIEWER, build
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.tui import current

STEP = 100
"""Virtual-machine instructions between two calls of the progress handler."""


def _steps_per_key(path: Path, done: int) -> dict[str, int]:
    async def go() -> dict[str, int]:
        app = make_app(path, reviewer=REVIEWER, poll_interval=None)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = current(app, ReviewScreen)
            item = screen.session.item
            assert item is not None and item.ext_id == f"q{done + 1:05d}"
            ticks = [0]

            def tick() -> int:
                ticks[0] += 1
                return 0

            conn = screen.session.study.conn
            out: dict[str, int] = {}
            for name, keys in (("next", ["right"] * 3), ("label", ["a"] * 6), ("back", ["left"])):
                await pilot.pause()
                ticks[0] = 0
                conn.set_progress_handler(tick, STEP)
                for key in keys:
                    await pilot.press(key)
                await pilot.pause()
                conn.set_progress_handler(None, STEP)
                out[name] = ticks[0] * STEP // len(keys)
                if name == "label":  # the item is complete: the others' labels are shown
                    assert screen.session.locked()
            return out

    result: dict[str, int] = asyncio.run(go())
    return result


@pytest.mark.slow
def test_a_key_reads_as_much_in_a_big_study_as_in_a_small_one(tmp_path: Path) -> None:
    small, big = tmp_path / "small.sqlite", tmp_path / "big.sqlite"
    build(small, n_items=60, done=50, others=("drchen", "drpatel"))
    build(big, n_items=3_000, done=2_990, others=("drchen", "drpatel"))
    few = _steps_per_key(small, 50)
    many = _steps_per_key(big, 2_990)
    for key, steps in few.items():
        # 60 times the labels; the same item-sized work (a B-tree is a level deeper at most)
        assert many[key] <= 1.5 * steps + 2_000, (key, few, many)
