"""Guidelines before the first item: a reviewer who types at once labels nothing while
the study's new guidelines are up; after they are dismissed the first item is unlabelled."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.guidelines_screen import GuidelinesScreen

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import labels, run_async, screen_text, until


@run_async
async def test_keys_typed_at_once_go_to_the_guidelines_not_the_item(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    settings = StudySettings(
        name="g", allow_reviewer_override=True, guidelines="# Read both answers in full."
    )
    s = Study.create(path, settings, actor="lead")
    import_file(s, write_jsonl(tmp_path / "p.jsonl", [pairwise_row(0)]), "pairwise", actor="lead")
    s.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, GuidelinesScreen)  # before any pause: the first screen
        await pilot.press("a", "b", "t")  # typed at once, meant for the item
        assert labels(path, "alice") == {}
        await pilot.press("escape")
        await until(pilot, lambda: "Question 0?" in screen_text(app), "the first item")
    assert labels(path, "alice") == {}
