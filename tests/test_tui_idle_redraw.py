"""An open app stays quiet while others write what it does not show.

Every commit by another process (a judge run, another reviewer) reaches each open app within a
poll. When nothing on its screen differs — a blind study, another reviewer's label, a verdict
on another item — the app must neither lay out nor repaint anything: an equal update still
lays out the whole screen, which with a judge writing every second cost each of 30 open
sessions ~17 ms of CPU a second (benchmarks/bench_sessions.py). A change it does show still
shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual._compositor import Compositor
from textual.screen import Screen
from textual.visual import visualize
from textual.widget import Widget

from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui import textual_private, unit_rows
from medjudge.tui.app import make_app
from medjudge.tui.review import screen as review_screen
from medjudge.tui.session import ReviewSession
from medjudge.tui.widgets import KeyFooter, Pane

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import run_async, screen_text, until


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "idle.db"
    s = Study.create(path, StudySettings(name="idle", allow_reviewer_override=True), actor="lead")
    rows = [pairwise_row(i) for i in range(3)]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="lead")
    s.close()
    return path


async def settled(
    pilot: Any,
    app: Any,
    reset: Callable[[], object],
    quiet: Callable[[], bool],
    pause: float = 0.25,
) -> None:
    """Until a pause passes quietly (``quiet()`` after ``reset()``) with no work of the review
    screen's waiting for the keys to stop: as long as that takes (a loaded machine runs the
    start-up's work later), failing only after :data:`SETTLE_S`."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        reset()
        await pilot.pause(pause)
        if quiet() and getattr(app.screen, "_idle_work_timer", None) is None:
            return
        assert time.monotonic() < deadline, "the app never settled"


SETTLE_S = 120.0


class Layouts:
    """Counts the layouts of the whole screen (``Screen._refresh_layout``) from now on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        real = Screen._refresh_layout

        def counted(screen: Screen[object], *args: object, **kwargs: object) -> None:
            self.n += 1
            real(screen, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Screen, "_refresh_layout", counted)


def _units(study: Study, ext_id: str) -> list[int]:
    return [
        r[0]
        for r in study.conn.execute(
            "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id WHERE i.ext_id = ? "
            "ORDER BY u.position",
            (ext_id,),
        )
    ]


@run_async
async def test_writes_the_screen_does_not_show_lay_nothing_out_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _study(tmp_path)
    other = Study.open(path)
    layouts = Layouts(monkeypatch)
    repainted: list[str] = []
    refresh = Widget.refresh

    def noted(self: Widget, *args: object, **kwargs: object) -> Widget:
        repainted.append(repr(self))
        return refresh(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Widget, "refresh", noted)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "p0" in screen_text(app), "bob's first item")

        def reset() -> None:
            layouts.n = 0
            repainted.clear()

        def quiet() -> bool:
            screen_text(app)
            return layouts.n == 0 and not repainted

        await settled(pilot, app, reset, quiet, 0.05)  # what the first screen scheduled
        for n, unit in enumerate(_units(other, "p1") + _units(other, "p0")):
            set_label(other, unit, "carol", "tie")  # another reviewer; blind: not shown to bob
            app.poll_study()
            await pilot.pause()
            screen_text(app)
            assert app.change_serial == n + 1, "the app saw the write"
        assert layouts.n == 0, f"{layouts.n} layouts of the screen for writes it does not show"
        assert not repainted, f"repainted for writes it does not show: {repainted}"

        first = _units(other, "p0")[0]
        set_label(other, first, "bob", "tie")  # bob himself, from another terminal: shown
        app.poll_study()
        await until(pilot, lambda: "(5 to go)" in screen_text(app), "bob's own label")
        assert repainted, "a write the screen shows repaints it"
        # … the row, the detail and the status line in place: none of them changed size
        assert layouts.n == 0, f"{layouts.n} layouts for a change that keeps every size"
    other.close()


async def _first_vote(pilot: Any, app: Any, layouts: Layouts) -> None:
    """Bob's first label on p0, and the layouts it brings settled."""
    await until(pilot, lambda: "p0" in screen_text(app), "bob's first item")
    await pilot.press("a")  # the first vote adds "u Undo" to the footer: laid out, rightly
    await until(pilot, lambda: "(5 to go)" in screen_text(app), "vote 1")
    await settled(pilot, app, lambda: setattr(layouts, "n", 0), lambda: layouts.n == 0, 0.05)


@run_async
async def test_a_vote_repaints_in_place_without_a_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A label key changes a row, the detail and the status line, none of which changes size:
    they are repainted where they are, and the screen is not laid out again (a layout of the
    whole screen was half of what a key cost)."""
    path = _study(tmp_path)
    layouts = Layouts(monkeypatch)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await _first_vote(pilot, app, layouts)
        for n in range(2, 5):  # three more of the item's six criteria: no reveal yet
            await pilot.press("a")
            await until(pilot, lambda n=n: f"({6 - n} to go)" in screen_text(app), f"vote {n}")
        assert "✓ saved" in screen_text(app)
        assert layouts.n == 0, f"{layouts.n} layouts of the screen for three votes"
    with Study.open(path) as s:
        assert s.conn.execute("SELECT count(*) FROM labels").fetchone()[0] == 4


@run_async
async def test_a_vote_leaves_no_idle_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What showing an item leaves for an idle moment (the time on the item left, the next
    item's texts wrapped ahead) waits for a new answer or question on screen; a label key
    changes the detail line, never those: it starts none of that work (every label key
    wrapped the next item's texts again and looked for times to record)."""
    path = _study(tmp_path)
    layouts = Layouts(monkeypatch)
    idle: list[int] = []
    real = review_screen.ReviewScreen._idle_work

    def noted(screen: Any) -> None:
        idle.append(1)
        real(screen)

    monkeypatch.setattr(review_screen.ReviewScreen, "_idle_work", noted)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await _first_vote(pilot, app, layouts)
        idle.clear()
        for n in range(2, 5):
            await pilot.press("a")
            await until(pilot, lambda n=n: f"({6 - n} to go)" in screen_text(app), f"vote {n}")
            assert getattr(app.screen, "_idle_work_timer", None) is None, f"vote {n}"
        await settled(pilot, app, lambda: None, lambda: True)
        assert idle == [], f"{len(idle)} rounds of idle work for three votes"


@run_async
async def test_the_cursor_and_a_vote_redraw_rows_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moving the cursor down the criteria and back lays nothing out, and a vote wraps only
    the row whose text is new (the one labelled), not the whole list: the list draws its
    rows' lines itself, and the row the cursor moves to was drawn so before (the cursor went
    down and back), so it comes from the rows the list keeps wrapped."""
    path = _study(tmp_path)
    layouts = Layouts(monkeypatch)
    wrapped: list[str] = []
    real = visualize

    def noted(widget: Widget, *args: Any, **kwargs: Any) -> Any:
        wrapped.append(widget.id or "")
        return real(widget, *args, **kwargs)

    monkeypatch.setattr(unit_rows, "visualize", noted)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await _first_vote(pilot, app, layouts)
        details = set()
        for key in ["down"] * 4 + ["up"] * 4:
            await pilot.press(key)
            await pilot.pause()
            details.add(screen_text(app).split("\n")[-4:-1].__repr__())
        assert len(details) > 2  # the detail did change with the cursor
        assert layouts.n == 0, f"{layouts.n} layouts for moving the cursor"
        wrapped.clear()
        await pilot.press("a")
        await until(pilot, lambda: "(4 to go)" in screen_text(app), "vote 2")
        assert wrapped.count("criteria") == 1, wrapped


@run_async
async def test_a_criterion_s_detail_shown_before_is_not_wrapped_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The detail pane goes through the same criteria's texts on every item: moving the cursor
    back over rows whose detail was shown takes their lines from the pane's wrapped texts."""
    path = _study(tmp_path)
    layouts = Layouts(monkeypatch)
    wrapped: list[str] = []
    real = Pane._strips

    def noted(pane: Pane, text: Any, width: int, *, selection: bool) -> Any:
        wrapped.append(pane.id or "")
        return real(pane, text, width, selection=selection)

    monkeypatch.setattr(Pane, "_strips", noted)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await _first_vote(pilot, app, layouts)
        await pilot.pause(0.5)  # the wrapping ahead of the next item's texts is over
        wrapped.clear()
        shown = []
        for key in ["down"] * 3:
            await pilot.press(key)
            await pilot.pause()
            shown.append(screen_text(app).split("\n")[-4:-1])
        assert wrapped == ["detail"] * 3, wrapped  # three details not shown yet
        wrapped.clear()
        for key in ["up"] * 2:
            await pilot.press(key)
            await pilot.pause()
        assert screen_text(app).split("\n")[-4:-1] == shown[0]
        assert wrapped.count("detail") == 0, wrapped


class Frames:
    """Counts the frames drawn (``Compositor.render_update``) from now on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        real = Compositor.render_update

        def counted(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
            self.n += 1
            return real(compositor, *args, **kwargs)

        monkeypatch.setattr(Compositor, "render_update", counted)


@run_async
async def test_the_next_item_lays_nothing_out_and_is_one_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next item's answers, of other lengths, change what the panes scroll over, not the
    screen's layout: one frame and no layout per item (a pane made of a text widget in a
    scrolling container laid the screen out whenever its text changed height, and drew its
    scrollbar in a second frame). The titles still say which answer runs past its pane."""
    path = tmp_path / "lengths.db"
    s = Study.create(
        path, StudySettings(name="lengths", allow_reviewer_override=True), actor="lead"
    )
    rows = [
        pairwise_row(i, answer_a="word " * (4 + 60 * i), answer_b="other " * (3 + 35 * (i % 2)))
        for i in range(4)
    ]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="lead")
    s.close()
    layouts, frames = Layouts(monkeypatch), Frames(monkeypatch)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "p0" in screen_text(app), "the first item")
        continued = 0
        for i in range(1, 4):
            # the footer's start-up recomposes are over
            await settled(pilot, app, lambda: setattr(frames, "n", 0), lambda: frames.n == 0)
            layouts.n = frames.n = 0
            await pilot.press("right_square_bracket")
            await until(pilot, lambda i=i: f"p{i} " in screen_text(app), f"item p{i}")
            assert (layouts.n, frames.n) == (0, 1), f"p{i}: {layouts.n} layouts, {frames.n} frames"
            panes = [app.screen.query_one(f"#pane-{n}", Pane) for n in (1, 2)]
            words = {f"{4 + 60 * i:,} words", f"{3 + 35 * (i % 2):,} words"}
            assert {str(p.border_title).split(" · ")[1] for p in panes} == words
            for pane in panes:  # "continues" exactly when the text runs past the pane
                assert ("continues" in str(pane.border_title)) == (pane.max_scroll_y > 0)
            continued += sum(pane.max_scroll_y > 0 for pane in panes)
    assert continued >= 2  # the lengths were long enough to test the titles


@run_async
async def test_after_the_next_items_frame_the_time_is_written_and_the_one_after_wrapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key that shows the next item does no more than show it: the time spent on the item
    left is committed, and the texts of the item after are wrapped for the panes, after the
    frame is written and the screen has been left alone for a moment (the time's commit ran
    before the frame). The next key then wraps nothing, and its panes hold the lines a wrap
    at that moment gives."""
    path = tmp_path / "ahead.db"
    s = Study.create(path, StudySettings(name="ahead", allow_reviewer_override=True), actor="lead")
    rows = [
        pairwise_row(i, answer_a="word " * (4 + 60 * i), answer_b="other " * (3 + 35 * (i % 2)))
        for i in range(4)
    ]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="lead")
    s.close()
    events: list[str] = []
    real_strips, real_render = Pane._strips, Compositor.render_update

    def strips(pane: Pane, text: Any, width: int, *, selection: bool) -> Any:
        events.append("wrap")
        return real_strips(pane, text, width, selection=selection)

    def render(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
        events.append("frame")
        return real_render(compositor, *args, **kwargs)

    real_time = ReviewSession.record_time

    def record_time(session: ReviewSession, item_id: int, seconds: float) -> None:
        events.append("time")
        real_time(session, item_id, seconds)

    monkeypatch.setattr(Pane, "_strips", strips)
    monkeypatch.setattr(Compositor, "render_update", render)
    monkeypatch.setattr(ReviewSession, "record_time", record_time)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "p0" in screen_text(app), "the first item")
        for i in range(1, 4):
            # start-up recomposes and the wrapping ahead are over
            await settled(pilot, app, events.clear, lambda: not events)
            await pilot.press("right_square_bracket")
            await until(pilot, lambda i=i: f"p{i} " in screen_text(app), f"item p{i}")
            # the question and both answers of the next item, less those wrapped before: p3's
            # answer B is p1's, which the pane keeps wrapped since it showed it
            ahead = {1: 3, 2: 2, 3: 0}[i]
            await until(
                pilot, lambda ahead=ahead: events.count("wrap") == ahead and "time" in events
            )
            assert events[0] == "frame", f"p{i}: {events}"
            assert sorted(events[1:]) == ["time"] + ["wrap"] * ahead, f"p{i}: {events}"
            for pane in app.screen.query(Pane):
                if pane.display:
                    drawn = [list(line) for line in pane._draw(pane._wrapped_at)]
                    assert [list(line) for line in pane._lines] == drawn, pane.id


@run_async
async def test_bindings_that_keep_the_keys_shown_leave_the_footer_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A label changes what the screen's keys may do, not the keys the footer shows: the
    footer keeps its keys (Textual's own removed and mounted every one of them before the
    frame, the first label on each item a fifth of a second slower at the tail). Keys that
    come with the reveal (Enter, E to change) are shown when it comes."""
    path = _study(tmp_path)
    with Study.open(path) as other:  # another reviewer's labels: bob's last one reveals them
        for unit in _units(other, "p0"):
            set_label(other, unit, "carol", "tie")
    rebuilt: list[str] = []
    real = KeyFooter.recompose

    async def noted(footer: KeyFooter) -> None:
        rebuilt.append(footer.screen.__class__.__name__)
        await real(footer)

    monkeypatch.setattr(KeyFooter, "recompose", noted)
    app = make_app(path, reviewer="bob", poll_interval=None)

    def keys() -> list[str]:
        footer = app.screen.query_one(KeyFooter)
        return [k.description for k in textual_private.footer_keys(footer)]

    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "p0" in screen_text(app), "bob's first item")
        # the footer's start-up recomposes are over
        await settled(pilot, app, rebuilt.clear, lambda: not rebuilt)
        shown = keys()
        for n in range(1, 6):
            await pilot.press("a")
            await until(pilot, lambda n=n: f"({6 - n} to go)" in screen_text(app), f"vote {n}")
        await pilot.pause(0.25)
        assert rebuilt == [] and keys() == shown
        await pilot.press("a")  # the last unit: the reveal brings its keys
        await until(pilot, lambda: "Change" in keys(), "the reveal's keys in the footer")
        assert "Next item" in keys() and rebuilt


@run_async
async def test_a_key_right_after_the_next_item_comes_before_the_work_the_item_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A label typed as soon as the next item appears is saved and shown first; the time on
    the item left and the wrapping of the item after wait until the keys stop."""
    path = _study(tmp_path)
    events: list[str] = []
    real_time, real_vote = ReviewSession.record_time, ReviewSession.vote
    real_strips = Pane._strips

    def record_time(session: ReviewSession, item_id: int, seconds: float) -> None:
        events.append("time")
        real_time(session, item_id, seconds)

    def vote(session: ReviewSession, *args: Any, **kwargs: Any) -> Any:
        events.append("vote")
        return real_vote(session, *args, **kwargs)

    def strips(pane: Pane, text: Any, width: int, *, selection: bool) -> Any:
        events.append("shown" if selection else "prepared")  # (prepared: drawn ahead)
        return real_strips(pane, text, width, selection=selection)

    monkeypatch.setattr(ReviewSession, "record_time", record_time)
    monkeypatch.setattr(ReviewSession, "vote", vote)
    monkeypatch.setattr(Pane, "_strips", strips)
    # a pause no loaded machine stretches two key presses past (the app's is 0.15 s)
    monkeypatch.setattr(review_screen, "IDLE_WORK_S", 2.0)
    app = make_app(path, reviewer="bob", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "p0" in screen_text(app), "bob's first item")
        await until(pilot, lambda: "prepared" in events, "p1's texts wrapped ahead")
        events.clear()
        await pilot.press("right_square_bracket", "a")
        await until(pilot, lambda: "p1 " in screen_text(app) and "(5 to go)" in screen_text(app))
        await until(pilot, lambda: "time" in events, "the time on p0")
        await until(pilot, lambda: "prepared" in events, "p2's texts wrapped ahead")
        assert events.index("vote") < events.index("time"), events
        assert events.index("vote") < events.index("prepared"), events
