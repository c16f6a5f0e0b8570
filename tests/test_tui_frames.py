"""The review and adjudication screens draw a partial frame from the widgets that meet a
changed region only (``medjudge.tui.compositor``): what that writes to the terminal is what
Textual's own compositor writes, frame for frame (``tests/support/frames.py``; the kind ×
surface matrix checks the same on every kind's screens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.demo.build import build_demo
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.frames import frames_checked
from .support.tui import past_guidelines, run_async


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    db = tmp_path / "demo.sqlite"
    build_demo(db, actor="tester").close()
    return db


@run_async
async def test_a_label_s_frame_goes_through_fewer_widgets_and_writes_the_same(demo: Path) -> None:
    db = demo
    app = make_app(db, reviewer="frames", poll_interval=None, assigned_only=False)
    with frames_checked() as check:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await past_guidelines(app, pilot, ReviewScreen)
            for keys in ("a", "b", "down", "up", "]", "a", "[", "t"):
                await pilot.press(keys)
                await pilot.pause()
            assert screen.session.labels, "no label was saved"
    assert check.frames >= 8
    assert check.skipped > 0, "every frame went through every widget Textual's does"
