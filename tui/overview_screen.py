"""The study overview: the reviewer's items, everyone's progress, live agreement, judge runs,
and the judge audit once the study has a recorded random sample.

Blind studies: the item list shows only the reviewer's own state; other raters appear only as
aggregate figures (progress counts, agreement coefficients, the audit's corrected figures),
never as per-item labels. Figures are computed in a thread worker
(:meth:`ReviewApp.refresh_agreement`) and arrive as :class:`AgreementRefreshed`; the screen
repaints the small tables only when they arrive. The audit (one row per corrected figure:
judge only, physicians only, corrected, with intervals —
:func:`medjudge.judging.analysis.audit_lines.study_audit_lines`) is computed by this screen's
own thread worker on a connection of its own, and its table shows only when there is a sample.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar, Static

from medjudge.store.literal import plural
from medjudge.store.study import Study
from medjudge.tui.widgets import KeyFooter

from . import render
from .messages import AgreementRefreshed, JudgeRunProgressed, StudyChanged
from .session import ReviewSession

if TYPE_CHECKING:
    from .app import ReviewApp


UNSTABLE_MARK = "†"
"""The report's mark of a figure from fewer than 20 units (``judging/report/text.py``)."""
AGREEMENT_TITLE = "Agreement, live (enter: detail)"


def _unstable(*figures: Any) -> bool:
    """Whether any of the figures is defined on fewer than 20 units (``Estimate.unstable``)."""
    return any(getattr(f, "unstable", False) for f in figures)


def _pair_cell(percent: Any, kappa: Any) -> Text:
    """Percent agreement and κ in one cell with the units they are from: ``83% κ 0.61 n=40``
    (``–`` where undefined); a figure from fewer than 20 units carries the report's ``†``."""
    p = getattr(percent, "value", None)
    k = getattr(kappa, "value", None)
    if p is None and k is None:
        return Text("–", style="dim")

    def mark(fig: Any) -> str:
        return UNSTABLE_MARK if _unstable(fig) else ""

    out = Text(f"{p:.0%}{mark(percent)}" if p is not None else "–", end="")
    out.append(f" κ {k:.2f}{mark(kappa)}" if k is not None else " κ –", "bold")
    n = getattr(percent if p is not None else kappa, "n", None)
    if n is not None:
        out.append(f" n={n:,}", "dim")
    return out


JUDGE_WIDTH = 24
"""Longest rater name shown in the overview's tables (longer ones end in …)."""


def _figure_cell(fig: Any, pct: bool) -> Text:
    """A figure with its interval: ``0.42 [0.35, 0.49]`` or ``42% [35, 49]`` (``–``: none)."""
    value = getattr(fig, "value", None)
    if value is None:
        return Text("–", style="dim")

    def f(x: float) -> str:
        return f"{x * 100:.0f}" if pct else f"{x:.2f}"

    out = Text(f(value) + ("%" if pct else ""), end="")
    if fig.ci_low is not None and fig.ci_high is not None:
        out.append(f" [{f(fig.ci_low)}, {f(fig.ci_high)}]", "dim")
    return out


def _audit_lines(path: Any) -> list[Any] | None:
    """The study's corrected figures on a connection of the caller's thread (None: no
    recorded sample)."""
    from medjudge.judging.analysis.audit_lines import study_audit_lines

    with Study.open(path) as study:
        return study_audit_lines(study)


class OverviewScreen(Screen[int | None]):
    """Where the study stands; dismisses with an item id to open, or None."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    DEFAULT_CSS = """
    OverviewScreen #ov-audit { height: auto; max-height: 12; display: none; }
    OverviewScreen.-narrow #ov-audit { max-height: 8; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back to review"),
        Binding("enter", "open", "Open", show=False),
        Binding("J", "judge", "Run judge"),
        Binding("K", "stop_judge", "Stop judge"),
        Binding("r", "refresh", "Refresh"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    def __init__(self, session: ReviewSession) -> None:
        """An overview of the session's study."""
        super().__init__()
        self.session = session
        self._status: dict[int, str] = {}
        self._rows: list[Any] = []
        self._audit_running = False
        self._audit_again = False

    @property
    def review_app(self) -> ReviewApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Heading, agreement and progress tables, judge progress, the item list."""
        yield Static("", id="ov-head")
        with Horizontal(id="ov-top"):
            agreement: DataTable[Text] = DataTable(
                id="ov-agreement", cursor_type="row", zebra_stripes=False
            )
            agreement.border_title = f"{AGREEMENT_TITLE} · computing…"
            yield agreement
            people: DataTable[Text] = DataTable(id="ov-raters", cursor_type="none")
            people.border_title = "Progress"
            yield people
        with Container(id="ov-judge"):
            yield Static("", id="judge-line")
            yield ProgressBar(id="judge-bar", show_eta=False)
        audit: DataTable[Text] = DataTable(id="ov-audit", cursor_type="row")
        audit.border_title = "Judge audit: corrected figures (random physician sample)"
        yield audit
        items: DataTable[Text] = DataTable(id="ov-items", cursor_type="row")
        items.border_title = "Your items (enter: open)"
        yield items
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Fill the tables: the item list now, the figures from a worker."""
        s = self.session
        head = Text(end="")
        head.append_text(render.lit(s.settings.name, "bold"))
        head.append("  ·  reviewer ")
        head.append_text(render.lit(s.reviewer, "bold"))
        head.append(f"  ·  {plural(len(s.refs), 'item')} in your queue")
        if s.batch:
            head.append(" of batch ")
            head.append_text(render.lit(s.batch))
        if s.assigned_only:
            head.append(" (assigned to you)")
        head.append("  ·  blind review" if s.settings.blind else "  ·  open review (not blind)")
        self.query_one("#ov-head", Static).update(head)
        agreement = self.query_one("#ov-agreement", DataTable)
        agreement.add_columns("criterion", "units", "reviewers", "judge vs reviewers", "judge")
        people = self.query_one("#ov-raters", DataTable)
        people.add_columns("rater", "kind", "done", "items done")
        audit = self.query_one("#ov-audit", DataTable)
        audit.add_columns("criterion", "figure", "judge only", "physicians only", "corrected")
        items = self.query_one("#ov-items", DataTable)
        items.add_columns("#", "item", "kind", "batch", "you")
        self._status = {r.id: self._state(r.id) for r in s.refs}
        items.add_rows(
            [
                (
                    Text(str(i + 1)),
                    render.lit(r.ext_id),
                    Text(r.kind),
                    render.lit(r.batch or ""),
                    Text(self._status[r.id]),
                )
                for i, r in enumerate(s.refs)
            ]
        )
        if s.index >= 0:
            items.move_cursor(row=s.index, animate=False)
        items.focus()
        self._show_judge(self.review_app.judge_state)
        self.review_app.refresh_agreement()
        self._refresh_audit()

    def _state(self, item_id: int) -> str:
        s = self.session
        if s.is_done(item_id):
            return "✓ done"
        n = s.mine.get(item_id, 0)
        return f"{n}/{s.unit_total.get(item_id, 0)}" if n else render.EMPTY

    @on(AgreementRefreshed)
    def _figures(self, message: AgreementRefreshed) -> None:
        snap = message.snapshot
        agreement = self.query_one("#ov-agreement", DataTable)
        cursor = agreement.cursor_row
        agreement.clear()
        self._rows = list(snap.rows)
        for row in self._rows:
            agreement.add_row(
                render.lit(row.criterion, "bold"),
                Text(str(row.n_units)),
                _pair_cell(row.human_human, row.human_kappa),
                _pair_cell(row.judge_human, row.judge_kappa),
                render.lit(render.clip(row.judge or "–", JUDGE_WIDTH)),
            )
        if self._rows:
            agreement.move_cursor(row=min(cursor, len(self._rows) - 1), animate=False)
        title = AGREEMENT_TITLE
        if any(
            _unstable(r.human_human, r.human_kappa, r.judge_human, r.judge_kappa)
            for r in self._rows
        ):
            title += f" · {UNSTABLE_MARK} fewer than 20 units"
        if snap.error:
            title += " · unavailable"
            self.notify(snap.error, severity="warning", markup=False)
        agreement.border_title = title
        people = self.query_one("#ov-raters", DataTable)
        people.clear()
        for p in snap.progress:
            name = render.lit(
                render.clip(p.rater, JUDGE_WIDTH),
                "bold" if p.rater == self.session.reviewer else "",
            )
            # Say what is counted: a reviewer's labels, a judge's verdicts (units either way).
            n = p.units_labelled
            done = f"{n:,} labelled" if p.kind == "human" else plural(n, "verdict")
            people.add_row(name, Text(p.kind), Text(done), Text(str(p.items_done)))

    @on(StudyChanged)
    def _changed(self) -> None:
        self.session.reload_progress()
        self._update_items()
        self.review_app.refresh_agreement()
        self._refresh_audit()

    def on_screen_resume(self) -> None:
        """Back from the agreement detail: bring the figures up to date."""
        self._update_items()
        self.review_app.refresh_agreement()
        self._refresh_audit()

    def _refresh_audit(self) -> None:
        """Recompute the audit in a thread; a request during a run queues one more run (so
        runs never pile up while labels are being saved)."""
        if self._audit_running:
            self._audit_again = True
            return
        self._audit_running = True
        self._audit_worker()

    @work(thread=True, group="overview-audit", exit_on_error=False)
    def _audit_worker(self) -> None:
        """Compute the audit's lines off the main thread and hand them to :meth:`_show_audit`."""
        try:
            lines, error = _audit_lines(self.session.study.path), None
        except Exception as exc:  # noqa: BLE001 - shown, never fatal
            lines, error = None, f"the judge audit could not be computed: {exc}"
        self.app.call_from_thread(self._show_audit, lines, error)

    def _show_audit(self, lines: list[Any] | None, error: str | None) -> None:
        """One row per corrected figure; the table shows only when the study has a sample."""
        self._audit_running = False
        if not self.is_attached:  # the screen closed while the worker ran
            return
        if self._audit_again:
            self._audit_again = False
            self._refresh_audit()
        audit = self.query_one("#ov-audit", DataTable)
        if error:
            self.notify(error, severity="warning", markup=False)
        audit.display = bool(lines)
        cursor = audit.cursor_row
        audit.clear()
        for line in lines or ():
            if line.withheld:
                audit.add_row(
                    render.lit(line.criterion, "bold"),
                    render.lit(render.clip(line.withheld, 72), "dim"),
                    Text("–", style="dim"),
                    Text("–", style="dim"),
                    Text("–", style="dim"),
                )
                continue
            audit.add_row(
                render.lit(line.criterion, "bold"),
                render.lit(line.figure),
                _figure_cell(line.judge, line.percent),
                _figure_cell(line.physicians, line.percent),
                _figure_cell(line.corrected, line.percent),
            )
        if lines:
            audit.move_cursor(row=min(cursor, len(lines) - 1), animate=False)

    def _update_items(self) -> None:
        items = self.query_one("#ov-items", DataTable)
        for i, r in enumerate(self.session.refs):
            new = self._state(r.id)
            if self._status.get(r.id) != new:
                self._status[r.id] = new
                items.update_cell_at(Coordinate(i, 4), Text(new))

    @on(JudgeRunProgressed)
    def _judge(self, message: JudgeRunProgressed) -> None:
        self._show_judge(message.state)

    def _show_judge(self, state: Any) -> None:
        box = self.query_one("#ov-judge")
        box.display = state is not None
        if state is None:
            return
        line = Text(end="")
        line.append("Judge ", "bold")
        line.append_text(render.lit(state.judge, "bold"))
        line.append(f"  {state.status}")
        if state.total:
            line.append(
                f"  {state.done}/{state.total} calls  ({state.cached} cached, "
                f"{state.failed} failed)  ${state.cost_usd:.4f}"
            )
        if state.message:
            line.append("  ")
            line.append_text(render.lit(state.message))
        self.query_one("#judge-line", Static).update(line)
        bar = self.query_one("#judge-bar", ProgressBar)
        bar.display = state.active
        if state.total:
            bar.update(total=state.total, progress=state.done)

    # -- actions ---------------------------------------------------------------------------
    def action_back(self) -> None:
        """Back to the review screen, on the item it was showing."""
        self.dismiss(None)

    def action_open(self) -> None:
        """Open the selected item or the selected criterion's agreement detail."""
        if isinstance(self.focused, DataTable):
            self._open_from(self.focused)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_from(event.data_table)

    def _open_from(self, table: DataTable[Text]) -> None:
        if table.id == "ov-items" and self.session.refs:
            self.dismiss(self.session.refs[table.cursor_row].id)
        elif table.id == "ov-agreement" and self._rows:
            from .agreement_screen import AgreementScreen

            criterion = self._rows[table.cursor_row].criterion
            self.app.push_screen(AgreementScreen([r.criterion for r in self._rows], criterion))

    def action_judge(self) -> None:
        """Start an LLM judge run (asks for the judge)."""
        self.review_app.ask_judge()

    def action_stop_judge(self) -> None:
        """Stop the running judge run cleanly."""
        self.review_app.stop_judge()

    def action_refresh(self) -> None:
        """Recompute the figures now."""
        self.review_app.refresh_agreement()
        self._refresh_audit()
