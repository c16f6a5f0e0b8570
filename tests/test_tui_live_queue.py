"""Open apps pick up what the lead changes: an item assigned, or imported into an empty
study, while a reviewer's app is open reaches it within a poll, without a restart."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.assignments import assign
from medjudge.store.importing.run import import_file
from medjudge.store.items import list_items
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import current, run_async, screen_text, until


def _study(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "live.db"
    s = Study.create(path, StudySettings(name="live", allow_reviewer_override=True), actor="lead")
    if n:
        rows = [pairwise_row(i) for i in range(n)]
        import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="lead")
    s.close()
    return path


@run_async
async def test_an_item_assigned_while_the_app_is_open_reaches_it(tmp_path: Path) -> None:
    path = _study(tmp_path, 3)
    lead = Study.open(path)
    first, second = (r.id for r in list_items(lead)[:2])
    assign(lead, ["bob"], [first], by="lead")
    app = make_app(path, reviewer="bob", poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "1/1" in screen_text(app), "bob's one assigned item")
        assign(lead, ["bob"], [second], by="lead")  # the lead, in another connection
        await until(
            pilot, lambda: len(current(app, ReviewScreen).session.refs) == 2, "the new assignment"
        )

        def notices() -> list[str]:
            return [n.message for n in app._notifications]

        await until(pilot, lambda: "1 new item in your queue" in notices(), "the notice")
        await until(pilot, lambda: "1/2" in screen_text(app), "the queue of two")
    lead.close()


@run_async
async def test_items_imported_into_an_empty_study_show_without_a_restart(tmp_path: Path) -> None:
    path = _study(tmp_path, 0)
    app = make_app(path, reviewer="bob", poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "Nothing to review" in screen_text(app), "the empty queue")
        lead = Study.open(path)
        rows = [pairwise_row(i) for i in range(2)]
        import_file(lead, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="lead")
        lead.close()
        await until(pilot, lambda: "Question 0?" in screen_text(app), "the first imported item")
        assert "Nothing to review" not in screen_text(app)


@run_async
async def test_new_guidelines_and_settings_reach_an_open_app(tmp_path: Path) -> None:
    """The lead sets guidelines and renames the study while bob's app is open: within a poll
    the guidelines open by themselves and the status line shows the new name."""
    from medjudge.tui.guidelines_screen import GuidelinesScreen

    path = _study(tmp_path, 2)
    app = make_app(path, reviewer="bob", poll_interval=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "Question 0?" in screen_text(app), "the first item")
        lead = Study.open(path)
        changed = lead.settings.model_copy(
            update={"guidelines": "Judge dosing against the 2024 guideline.", "name": "renamed"}
        )
        lead.save_settings(changed, actor="lead")
        lead.close()
        await until(pilot, lambda: isinstance(app.screen, GuidelinesScreen), "the guidelines")
        await until(
            pilot, lambda: "Judge dosing against the 2024" in screen_text(app), "their text"
        )
        await pilot.press("escape")
        await until(pilot, lambda: "renamed" in screen_text(app), "the new study name")
