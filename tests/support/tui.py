"""Builders and probes shared by the review-app tests.

Studies are small, seeded and built through the real importers, so item ids, display order
(``swap``) and units are what a user would get.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study

from .kind_rows import pairwise_row, rating_row, statements_row, write_jsonl

HOSTILE = "[bold red]x[/] \x1b[2J \x1b]52;c;SGVsbG8=\x07 \u202eevil"
"""Rich markup, a clear-screen escape, an OSC 52 clipboard write and a bidi override."""


def build_study(
    tmp_path: Path,
    *,
    name: str = "tui.db",
    blind: bool = True,
    override: bool = True,
    pairwise: int = 4,
    statements: int = 2,
    rating: int = 1,
    hostile: bool = False,
    context: bool = False,
) -> Path:
    """A study file with pairwise, statements and rating items; returns its path."""
    path = tmp_path / name
    settings = StudySettings(name="TUI test study", blind=blind, allow_reviewer_override=override)
    study = Study.create(path, settings, actor="lead")
    try:
        rows = [pairwise_row(i) for i in range(pairwise)]
        if hostile and rows:
            rows[0]["question"] = "Q " + HOSTILE
            rows[0]["answer_a"] = "A says " + HOSTILE
            rows[0]["answer_b"] = "B says " + HOSTILE
        if context and rows:
            rows[0]["context"] = ["Document one about fever.", "Document two about aspirin."]
        if rows:
            import_file(study, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="lead")
        if statements:
            import_file(
                study,
                write_jsonl(tmp_path / "st.jsonl", [statements_row(i) for i in range(statements)]),
                "statements",
                actor="lead",
            )
        if rating:
            import_file(
                study,
                write_jsonl(tmp_path / "rt.jsonl", [rating_row(i) for i in range(rating)]),
                "rating",
                actor="lead",
            )
    finally:
        study.close()
    return path


def trail(ab: list[str], ba: list[str], inconsistent: bool = False) -> dict[str, Any]:
    """A pairwise verdict trail as the resolver writes it (votes in the item's own terms)."""
    return {
        "orders": {"AB": {"votes": ab}, "BA": {"votes": ba}},
        "position_inconsistent": inconsistent,
    }


def add_verdicts(
    path: Path,
    ext_id: str,
    values: dict[str, str],
    *,
    judge: str = "openai:fake-judge",
    reason: str | None = None,
) -> None:
    """Store a judge's verdicts on one item: criterion (or statement position) → value."""
    study = Study.open(path)
    try:
        item_id = next(r.id for r in list_items(study) if r.ext_id == ext_id)
        item = get_item(study, item_id)
        out = []
        for unit in item.units:
            key = unit.criterion
            if unit.statement_id is not None:
                key = str(next(s.position for s in item.statements if s.id == unit.statement_id))
            if key in values:
                v = values[key]
                out.append(
                    NewVerdict(
                        unit.id,
                        v,
                        reason or f"because {key} [b]reason[/b]",
                        trail([v, v, "tie"], [v, v, v])
                        if item.kind == "pairwise"
                        else {"votes": [v, v]},
                    )
                )
        write_verdicts(study, judge, {"spec": judge}, out, run_id=None, actor="lead")
    finally:
        study.close()


def item_swap(path: Path, ext_id: str) -> bool:
    """Whether an item shows answer B on the left."""
    conn = sqlite3.connect(path)
    try:
        return bool(
            conn.execute("SELECT shown_order FROM items WHERE ext_id = ?", (ext_id,)).fetchone()[0]
            == "BA"
        )
    finally:
        conn.close()


def labels(path: Path, rater: str) -> dict[tuple[str, str], str]:
    """A rater's current labels: (item ext id, criterion or statement position) → value."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT i.ext_id, u.criterion, s.position, l.value FROM labels l "
            "JOIN units u ON u.id = l.unit_id JOIN items i ON i.id = u.item_id "
            "LEFT JOIN statements s ON s.id = u.statement_id JOIN raters r ON r.id = l.rater_id "
            "WHERE r.name = ?",
            (rater,),
        ).fetchall()
    finally:
        conn.close()
    return {(e, c if p is None else str(p)): v for e, c, p, v in rows}


def history(path: Path, rater: str) -> list[tuple[str, str | None, str | None, str, int]]:
    """A rater's history rows: (ext id, old, new, action, after_reveal), oldest first."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT i.ext_id, h.old_value, h.new_value, h.action, h.after_reveal "
            "FROM label_history h "
            "JOIN units u ON u.id = h.unit_id JOIN items i ON i.id = u.item_id "
            "JOIN raters r ON r.id = h.rater_id WHERE r.name = ? ORDER BY h.id",
            (rater,),
        ).fetchall()
    finally:
        conn.close()


def scalar(path: Path, sql: str, *args: object) -> Any:
    """One value from the study file."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(sql, args).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def run_async(fn: Any) -> Any:
    """Run an async test function with ``asyncio.run`` (no async pytest plugin needed)."""
    import asyncio
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


def screen_text(app: Any) -> str:
    """Everything on the terminal right now, as plain text lines."""
    app.screen._on_timer_update()
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def static_text(app: Any, selector: str) -> str:
    """The plain text a Static or a Pane holds."""
    from textual.widgets import Static

    from medjudge.tui.widgets import Pane

    widget = app.screen.query_one(selector)
    if isinstance(widget, Pane):
        return widget.plain
    static = widget if isinstance(widget, Static) else widget.query_one(Static)
    return str(static.visual) if not hasattr(static.visual, "plain") else static.visual.plain


async def until(
    pilot: Any, condition: Any, what: str = "the screen", timeout: float = 120.0
) -> None:
    """Let the app run until ``condition()`` holds (an event, not a fixed pause: a loaded
    machine renders later, never wrongly); fail after ``timeout`` seconds saying ``what``."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


S = TypeVar("S", bound=Screen[Any])


def current(app: App[Any], kind: type[S]) -> S:
    """The app's current screen, asserted to be a ``kind``."""
    screen = app.screen
    assert isinstance(screen, kind), f"expected {kind.__name__}, on {type(screen).__name__}"
    return screen


async def past_guidelines(app: App[Any], pilot: Any, kind: type[S]) -> S:
    """The app's first screen of ``kind``, once the study's guidelines (if it has any, shown
    first) are dismissed."""
    await pilot.pause()
    if app.screen.__class__.__name__ == "GuidelinesScreen":
        await pilot.press("escape")
    return current(app, kind)


def top_screen(app: App[Any]) -> Screen[Any]:
    """The screen on top now (a call, so a check made earlier does not narrow what it is)."""
    return app.screen
