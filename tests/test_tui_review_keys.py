"""The review screen's label keys at 80×24: a label key that does nothing on the row under the
cursor says so, names the keys that do, and writes nothing; a key that applies says nothing
of the sort."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.demo import demo_master_study, demo_study
from .support.tui import current, labels, run_async, screen_text, until

demo_master = pytest.fixture(scope="module")(demo_master_study)
demo = pytest.fixture(demo_study)


def said(app: object) -> list[str]:
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]


async def open_item(app: object, pilot: object, ext_id: str) -> ReviewScreen:
    review = current(app, ReviewScreen)  # type: ignore[arg-type]
    await pilot.press("g", *ext_id, "enter")  # type: ignore[attr-defined]
    await until(
        pilot,
        lambda: review.session.item is not None and review.session.item.ext_id == ext_id,
        ext_id,
    )
    return review


@run_async
async def test_a_label_key_that_does_nothing_on_the_row_says_so(demo: Path) -> None:
    app = make_app(demo, reviewer="dr_demo", poll_interval=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        review = await open_item(app, pilot, "rt-01")
        view = review.view
        assert view is not None
        while view.rows[review.cursor].criterion.scale is None:  # past the option rows
            await pilot.press("down")
            await pilot.pause()
        assert view.rows[review.cursor].criterion.scale == (1, 5)
        await pilot.press("7")  # a scale key of another scale
        await until(pilot, lambda: "does nothing on this row" in screen_text(app), "the notice")
        assert said(app) == ["7 does nothing on this row: 1–5."]
        assert labels(demo, "dr_demo") == {}
        await pilot.press("3")  # one that applies: saved, and no such notice
        await until(pilot, lambda: bool(labels(demo, "dr_demo")), "the label")
        assert list(labels(demo, "dr_demo").values()) == ["3"]
        assert not any("does nothing" in m for m in said(app)[1:])


@run_async
async def test_another_kinds_key_on_a_pairwise_row_names_the_pairwise_keys(demo: Path) -> None:
    app = make_app(demo, reviewer="dr_demo", poll_interval=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        review = await open_item(app, pilot, "pw-01")
        await pilot.press("e")  # a statements key, on a pairwise criterion
        await until(pilot, lambda: "does nothing on this row" in screen_text(app), "the notice")
        assert review.session.item is not None
        assert said(app) == ["e does nothing on this row: a b t n."]
        assert labels(demo, "dr_demo") == {}
