"""Garbage collection is paused while medjudge starts and always resumes: a command
resumes it before it runs (and on the way out), the review app once its first frame is on
screen."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from medjudge import cli
from medjudge.store.summary import summary as store_summary
from medjudge.tui.app import make_app

from .support.studies import small_study
from .support.tui import build_study, run_async


def test_a_command_runs_with_collection_on_and_leaves_it_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    seen: list[bool] = []
    from medjudge.commands import study as study_cmd

    real = store_summary  # what the status command calls, before it is replaced

    def summary(study: object) -> object:  # what `status` reads: note the collector's state
        seen.append(gc.isenabled())
        return real(study)  # type: ignore[arg-type]

    monkeypatch.setattr(study_cmd, "summary", summary)
    monkeypatch.setattr(sys, "argv", ["medjudge", "status", str(path)])
    try:
        with pytest.raises(SystemExit) as done:
            cli.main()
        assert done.value.code == 0
        assert seen == [True] and gc.isenabled()
        monkeypatch.setattr(sys, "argv", ["medjudge", "status", str(tmp_path / "missing.db")])
        with pytest.raises(SystemExit):  # a failing command resumes it too
            cli.main()
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


@run_async
async def test_the_review_app_calls_back_once_its_first_frame_is_shown(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=2, statements=0, rating=0)
    app = make_app(path, reviewer="alice", poll_interval=None)
    calls: list[str] = []
    app.when_ready = lambda: calls.append(app.screen.__class__.__name__)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert calls == ["ReviewScreen"]
    app.study.close()
