"""The adjudication queue: every unit where raters disagree, most split first.

Opened by ``medjudge adjudicate STUDY`` (as the app's first screen) or with ``A`` on the
overview — for adjudicators only: the app checks the role before opening it, and
:func:`store.adjudications.adjudicate` checks again on every write.

Concurrency: :func:`judging.disagreements.queue` reads every label and verdict of the study,
so it runs in a thread worker on its own short-lived connection and its result arrives as
:class:`AdjudicationScreen.QueueLoaded`; results of an older read are dropped. Filters apply
on the main thread to the list last read (instant, no I/O). The queue is read again when the
app reports another writer (:class:`StudyChanged`) and on return from a detail in which a final
label was recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from medjudge.judging.analysis.disagreements import Disagreement, counts, queue
from medjudge.judging.analysis.queue_kinds import KINDS
from medjudge.store.study import Study
from medjudge.tui import render
from medjudge.tui.adjudication.render import (
    KIND_NAMES,
    counts_text,
    kinds_text,
    shown,
    votes_summary,
)
from medjudge.tui.messages import StudyChanged
from medjudge.tui.widgets import KeyFooter

if TYPE_CHECKING:
    from medjudge.tui.adjudication.detail import DetailClosed
    from medjudge.tui.app import ReviewApp

FILTERS = ("kind", "criterion", "source", "reviewer")


@dataclass
class QueueFilters:
    """What the adjudicator narrowed the queue to (None: all)."""

    kind: str | None = None
    criterion: str | None = None
    source: str | None = None
    reviewer: str | None = None
    unresolved_only: bool = False
    """Leave out units that already have a final label."""

    def keep(self, d: Disagreement, *, any_kind: bool = False) -> bool:
        """Whether a unit passes (``any_kind``: ignore the kind filter, for the counts)."""
        return (
            (any_kind or self.kind is None or self.kind in d.kinds)
            and (self.criterion is None or d.criterion == self.criterion)
            and (self.source is None or self.source in d.sources)
            and (self.reviewer is None or self.reviewer in d.reviewers)
            and (not self.unresolved_only or d.reference is None)
        )


def present(entries: list[Disagreement], name: str) -> list[str]:
    """The values of one filter that occur in the queue, in a stable order."""
    if name == "kind":
        return [k for k in KINDS if any(k in d.kinds for d in entries)]
    if name == "criterion":
        return sorted({d.criterion for d in entries})
    if name == "source":
        return sorted({s for d in entries for s in d.sources})
    return sorted({r for d in entries for r in d.reviewers})


def cycle(current: str | None, values: list[str]) -> str | None:
    """all → each value in turn → all."""
    if current not in values:
        return values[0] if values else None
    i = values.index(current)
    return values[i + 1] if i + 1 < len(values) else None


@dataclass(frozen=True)
class LoadedQueue:
    """One read of the queue."""

    entries: list[Disagreement] = field(default_factory=list)
    error: str | None = None


class AdjudicationScreen(Screen[None]):
    """The disagreements of a study, filtered; enter opens one."""

    BINDINGS = [
        Binding("enter", "open", "Open", show=False),
        Binding("k", "cycle('kind')", "Kind"),
        Binding("c", "cycle('criterion')", "Criterion"),
        Binding("s", "cycle('source')", "Source"),
        Binding("r", "cycle('reviewer')", "Reviewer"),
        Binding("u", "unresolved", "Unresolved"),
        Binding("x", "clear_filters", "Clear filters", show=False),
        Binding("escape", "back", "Back"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    class QueueLoaded(Message):
        """A read of the queue finished (in a worker thread)."""

        def __init__(self, serial: int, loaded: LoadedQueue) -> None:
            self.serial = serial
            self.loaded = loaded
            super().__init__()

    def __init__(self, *, base: bool = False, filters: QueueFilters | None = None) -> None:
        """The queue; ``base`` when it is the app's first screen (escape has nowhere to go)."""
        super().__init__()
        self.base = base
        self.filters = filters or QueueFilters()
        self.loaded = LoadedQueue()
        self.rows: list[Disagreement] = []
        """The units shown, in order."""
        self._serial = 0
        self._stale = True
        self._ready = False
        self._want_unit: int | None = None

    @property
    def review_app(self) -> ReviewApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Heading, counts per kind, filters, the table."""
        yield Static("", id="aq-head")
        yield Static(Text("reading the queue…"), id="aq-counts")
        yield Static("", id="aq-filters")
        table: DataTable[Any] = DataTable(id="aq-table", cursor_type="row")
        table.border_title = "Disagreements, most split first (enter: open)"
        yield table
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Columns now, rows from a worker."""
        session = self.review_app.session
        head = Text(end="")
        head.append("Adjudication queue  ", "bold")
        head.append_text(render.lit(session.settings.name))
        head.append("  ·  adjudicator ")
        head.append_text(render.lit(session.reviewer, "bold"))
        self.query_one("#aq-head", Static).update(head)
        table = self.query_one(DataTable)
        table.add_columns("where", "kinds", "split", "final", "votes")
        self._show_filters()
        table.focus()

    def on_screen_resume(self) -> None:
        """First shown, or back on top after another writer changed the study."""
        if self._stale:
            self.reload()

    # -- reading -----------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the queue again (in a worker)."""
        self._stale = False
        self._serial += 1
        self._read(self._serial)

    @work(thread=True, group="adjudication-queue", exit_on_error=False)
    def _read(self, serial: int) -> None:
        try:
            study = Study.open(self.review_app.study.path)
            try:
                entries = queue(study)
            finally:
                study.close()
            loaded = LoadedQueue(entries)
        except Exception as exc:  # noqa: BLE001 - shown, never fatal
            loaded = LoadedQueue(error=f"the queue could not be read: {exc}")
        self.post_message(self.QueueLoaded(serial, loaded))

    @on(QueueLoaded)
    def _loaded(self, message: QueueLoaded) -> None:
        if message.serial != self._serial:
            return  # an older read finished after a newer one started
        self.loaded = message.loaded
        self._ready = True
        if message.loaded.error:
            self.notify(message.loaded.error, severity="error", markup=False)
        self._rebuild()

    @on(StudyChanged)
    def _changed(self) -> None:
        if self.is_current:
            self.reload()
        else:
            self._stale = True

    # -- showing -----------------------------------------------------------------------------
    def _rebuild(self) -> None:
        if not self._ready:
            self._show_filters()
            return
        table = self.query_one(DataTable)
        keep = self._want_unit
        if keep is None and self.rows and 0 <= table.cursor_row < len(self.rows):
            keep = self.rows[table.cursor_row].unit_id
        self._want_unit = None
        entries = self.loaded.entries
        f = self.filters
        self.rows = [d for d in entries if f.keep(d)]
        table.clear()
        for d in self.rows:
            table.add_row(
                render.lit(d.where, "bold" if d.reference is None else ""),
                Text(kinds_text(d.kinds)),
                Text(f"{d.split:.2f}"),
                render.lit(shown(d.reference), "bold"),
                render.lit(votes_summary(d)),
                key=str(d.unit_id),
            )
        if self.rows:
            at = next((i for i, d in enumerate(self.rows) if d.unit_id == keep), 0)
            table.move_cursor(row=at, animate=False)
        line = counts_text(counts([d for d in entries if f.keep(d, any_kind=True)]), f.kind)
        done = sum(1 for d in self.rows if d.reference is not None)
        line.append(f"\n{len(self.rows)} unit{'s' if len(self.rows) != 1 else ''} shown", "bold")
        line.append(f", {done} with a final label", "")
        line.append("   (A = answer_a, B = answer_b)", "dim")  # the file frame, as everywhere
        if not self.rows:
            line.append(
                "  —  nothing to adjudicate"
                + (" with these filters (x clears them)" if self._filtered() else ""),
                "dim",
            )
        self.query_one("#aq-counts", Static).update(line)
        self._show_filters()

    def _filtered(self) -> bool:
        f = self.filters
        return f.unresolved_only or any(getattr(f, n) is not None for n in FILTERS)

    def _show_filters(self) -> None:
        f = self.filters
        out = Text(end="")
        for n, (key, name) in enumerate(zip("kcsr", FILTERS, strict=True)):
            if n:
                out.append(" · ", "dim")
            value = getattr(f, name)
            out.append(f"{key} {name} ", "dim")
            shown_value = KIND_NAMES.get(value, value) if name == "kind" else value
            out.append_text(render.lit(shown_value or "all", "bold" if value else ""))
        out.append(" · ", "dim")
        out.append("u show ", "dim")
        out.append(
            "unresolved only" if f.unresolved_only else "all",
            "bold" if f.unresolved_only else "",
        )
        self.query_one("#aq-filters", Static).update(out)

    # -- actions -----------------------------------------------------------------------------
    def action_cycle(self, name: str) -> None:
        """The next value of one filter (all → each value present → all)."""
        values = present(self.loaded.entries, name)
        if not values:
            self.notify(f"No {name} to filter on in this queue.")
            return
        setattr(self.filters, name, cycle(getattr(self.filters, name), values))
        self._rebuild()

    def action_unresolved(self) -> None:
        """Show only units without a final label, or all again."""
        self.filters.unresolved_only = not self.filters.unresolved_only
        self._rebuild()

    def action_clear_filters(self) -> None:
        """Every unit again."""
        self.filters = QueueFilters()
        self._rebuild()

    def action_back(self) -> None:
        """Back to the overview (or, as the first screen, a hint)."""
        if self.base:
            self.notify("This is the adjudication queue: q quits (final labels are saved).")
        else:
            self.dismiss(None)

    def action_open(self) -> None:
        """Open the unit under the cursor."""
        self._open(self.query_one(DataTable).cursor_row)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open(event.cursor_row)

    def _open(self, row: int) -> None:
        if not self.rows or not 0 <= row < len(self.rows):
            return
        from medjudge.tui.adjudication.detail import AdjudicationDetailScreen

        self.app.push_screen(AdjudicationDetailScreen(list(self.rows), row), self._detail_closed)

    def _detail_closed(self, closed: DetailClosed | None) -> None:
        if closed is None:
            return
        self._want_unit = closed.unit_id
        if closed.recorded:
            self.reload()
        else:
            self._rebuild()
