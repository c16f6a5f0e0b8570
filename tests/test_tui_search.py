"""``/`` in the review app: search the reviewer's own queue, choose a match, land on it;
a bad query is named in the box; study text in the results is literal; no answer's source."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from medjudge.store.assignments import assign
from medjudge.store.importing.run import import_file
from medjudge.store.items import find_item
from medjudge.store.roles import grant
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import ReviewApp, make_app
from medjudge.tui.review.screen import ReviewScreen
from medjudge.tui.search_screen import SearchScreen

from .support.checks import some
from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import HOSTILE, run_async, screen_text, static_text, top_screen, until


def _study(tmp_path: Path) -> Path:
    """Six pairwise items; alice is assigned p0–p4. "pneumothorax" is in p3's second answer
    and in p5's question (not alice's); p1's answer holds hostile text beside "tension"."""
    path = tmp_path / "search.db"
    s = Study.create(
        path, StudySettings(name="search", blind=True, allow_reviewer_override=True), actor="lead"
    )
    rows = [
        pairwise_row(i, source_a="gpt-sourcename", source_b="claude-sourcename") for i in range(6)
    ]
    rows[3]["answer_b"] = "A collapsed lung (pneumothorax) needs urgent care."
    rows[5]["question"] = "Is a small pneumothorax dangerous?"
    rows[1]["answer_a"] = "Tension headache " + HOSTILE
    import_file(s, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="lead")
    grant(s, "lead", "lead", by="lead")
    grant(s, "alice", "reviewer", by="lead")
    ids = [find_item(s, f"p{i}") for i in range(5)]
    assign(s, ["alice"], [i for i in ids if i is not None], by="lead")
    s.close()
    return path


def _review(app: ReviewApp) -> ReviewScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, ReviewScreen)
    return screen


@run_async
async def test_search_lists_the_queue_matches_and_jumps_to_the_chosen_item(
    tmp_path: Path,
) -> None:
    path = _study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await until(pilot, lambda: _review(app).session.item is not None, "the first item")
        assert some(_review(app).session.item).ext_id == "p0"
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search box")
        await pilot.press(*"pneumothorax", "enter")
        results = app.screen.query_one(OptionList)
        await until(pilot, lambda: results.option_count > 0, "the results")
        assert results.option_count == 1  # p5 matches too, but it is not alice's
        text = screen_text(app)
        assert "p3" in text and "p5" not in text and "1 of your 5 items match" in text
        assert "sourcename" not in text  # no answer's source
        await pilot.press("enter")
        await until(pilot, lambda: top_screen(app) is _review(app), "the review screen")
        screen = _review(app)
        assert some(screen.session.item).ext_id == "p3"
        shown = static_text(app, "#pane-1") + static_text(app, "#pane-2")
        assert "pneumothorax" in shown


@run_async
async def test_a_bad_query_is_named_in_the_box_and_escape_goes_back(tmp_path: Path) -> None:
    path = _study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await until(pilot, lambda: _review(app).session.item is not None, "the first item")
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search box")
        await pilot.press(*"covid-19", "enter")
        await until(pilot, lambda: "not a query" in static_text(app, "#search-status"), "error")
        assert isinstance(app.screen, SearchScreen)
        assert 'double quotes, e.g. "covid-19"' in static_text(app, "#search-status")
        await pilot.press("escape")
        await until(pilot, lambda: top_screen(app) is _review(app), "the review screen")
        assert some(_review(app).session.item).ext_id == "p0"


@run_async
async def test_study_text_in_the_results_is_literal(tmp_path: Path) -> None:
    path = _study(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(160, 45)) as pilot:
        await until(pilot, lambda: _review(app).session.item is not None, "the first item")
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search box")
        await pilot.press(*"tension", "enter")
        results = app.screen.query_one(OptionList)
        await until(pilot, lambda: results.option_count == 1, "the result")
        text = screen_text(app)
        assert "[bold red]x[/]" in text  # markup shown as typed
        assert "\\x1b]52" in text and "<U+202E>" in text  # escapes made visible
        assert "\x1b" not in text
