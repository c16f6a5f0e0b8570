"""One disagreement in full, and recording its final label.

The item is shown in the file frame (docs/design.md §2 "Answer-letter frame"): pairwise answers in
the import file's order, ``A`` = ``answer_a``, labelled so, with the answers' sources, which only
the adjudicator sees; the keys a / b record exactly that letter, as ``adjudicate --value`` does. Below or beside it:
every reviewer's label with their notes, every judge's verdict with its AB and BA samples and
reasons, the raw reply of each failed sample, and the adjudication history.

Storage contract: a final label is written by :func:`store.adjudications.adjudicate` on the
main thread, from the rationale dialog, and has committed when it returns; the dialog closes
and the status line says "saved" only then. A refused write (no rationale, no adjudicator role)
leaves the dialog open with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Collapsible, Static

from medjudge import kinds
from medjudge.judging.analysis.disagreements import Disagreement, UnitDetail, unit_detail
from medjudge.kinds import review_facet
from medjudge.store.adjudications import adjudicate
from medjudge.store.db import StudyError
from medjudge.store.items import Item, get_item
from medjudge.store.settings import Criterion
from medjudge.tui import render
from medjudge.tui.adjudication.render import KIND_NAMES, item_text, shown, votes_text
from medjudge.tui.adjudication.widgets import ItemPane, RationaleDialog
from medjudge.tui.dialogs import ConfirmDialog
from medjudge.tui.messages import StudyChanged
from medjudge.tui.value_keys import applies, label_key_unused, value_bindings
from medjudge.tui.widgets import KeyFooter, Pane, StatusLine

if TYPE_CHECKING:
    from medjudge.tui.app import ReviewApp

ITEM_TITLE = "Item (answers in file order)"
"""The item pane's title: the answers are the import file's, not a reviewer's display order."""

TICK = Binding.Group("Tick", compact=True)


@dataclass(frozen=True)
class DetailClosed:
    """What the detail hands back to the queue."""

    unit_id: int
    """The unit last shown (the queue puts its cursor there)."""
    recorded: bool
    """Whether any final label was recorded (the queue reads itself again)."""


class AdjudicationDetailScreen(Screen[DetailClosed]):
    """Every vote on one unit; one key per final label, then a rationale."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    AUTO_FOCUS = None

    BINDINGS = [
        *value_bindings("pick"),
        *[Binding(c, f"tick('{c.upper()}')", f"Tick {c.upper()}", group=TICK) for c in "abcdef"],
        Binding("enter", "save_ticks", "Record ticks"),
        Binding("right_square_bracket", "step(1)", "Next", key_display="]"),
        Binding("left_square_bracket", "step(-1)", "Prev", key_display="["),
        Binding("x", "toggle_context", "Context", show=False),
        Binding("z", "zoom", "Zoom", show=False),
        Binding("escape", "back", "Back"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.quit", "Quit", show=False),
    ]

    class Recorded(Message):
        """A final label was committed to the study file."""

        def __init__(self, unit_id: int, value: str, row_id: int) -> None:
            self.unit_id = unit_id
            self.value = value
            self.row_id = row_id
            super().__init__()

    def __init__(self, entries: list[Disagreement], index: int) -> None:
        """Show ``entries[index]``; ``[`` and ``]`` move through ``entries``."""
        super().__init__()
        self.entries = entries
        self.index = index
        self.item: Item | None = None
        self.criterion: Criterion | None = None
        self.detail = UnitDetail(reviewers=[], judges=[], adjudications=[])
        self.ticks: set[str] = set()
        self.composing = ""
        """The keys pressed so far of a value built from several keys (a ranking)."""
        self.recorded = False

    @property
    def review_app(self) -> ReviewApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def entry(self) -> Disagreement:
        """The unit shown."""
        return self.entries[self.index]

    def compose(self) -> ComposeResult:
        """Status, what is disputed, the item and the votes side by side (or stacked)."""
        yield StatusLine(id="status")
        yield Static("", id="adj-about")
        with Container(id="adj-panes"):
            yield ItemPane(ITEM_TITLE, id="adj-item")
            yield Pane("Votes, reasons, history", id="adj-votes")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """The first unit."""
        self.show(self.index)
        self.query_one("#adj-item").focus()

    # -- showing -----------------------------------------------------------------------------
    def show(self, index: int) -> None:
        """Load and show ``entries[index]``."""
        self.index = index
        entry = self.entry
        study = self.review_app.study
        self.ticks = set()
        self.composing = ""
        try:
            self.item = get_item(study, entry.item_id, paged=True)  # may hold 100,000
            self.criterion = study.settings.criterion(entry.criterion)
            self.detail = unit_detail(study, entry.unit_id)
        except (KeyError, StudyError) as exc:
            self.item = self.criterion = None
            self.notify(f"{entry.where} cannot be shown: {exc}", severity="error", markup=False)
            return
        item = self.item
        self.query_one("#adj-item", ItemPane).show(
            item_text(
                item,
                entry.statement,
                order_per_reviewer=study.settings.order == "per-reviewer",
            ),
            title=ITEM_TITLE,
        )
        context = self.query_one("#adj-context", Collapsible)
        context.display = bool(item.context)
        if item.context:
            context.title = f"Context documents: {len(item.context)} (x to show or hide)"
            self.query_one("#adj-context-text", Static).update(
                render.shown_part(render.context_text(item))
            )
        self.query_one("#adj-votes", Pane).show(votes_text(item, self.detail))
        self._about()
        self._status(Text(""), "")
        self.refresh_bindings()

    def _final(self) -> str | None:
        history = self.detail["adjudications"]
        return history[-1]["value"] if history else None

    def _about(self) -> None:
        crit, item = self.criterion, self.item
        if crit is None or item is None:
            return
        out = Text(end="")
        at = item.statement_index(self.entry.statement)
        stmt = None if at is None else item.statements[at]
        if stmt is not None and at is not None:  # the criterion's question is every entry's
            out.append_text(review_facet.facet(item.kind).about(item, stmt, at + 1))
        else:
            out.append_text(render.lit(crit.name, "bold"))
            out.append(": ")
            out.append_text(render.lit(crit.question, "italic"))
        out.append("\nDisputed: ", "dim")
        out.append(" · ".join(KIND_NAMES.get(k, k) for k in self.entry.kinds))
        final = self._final()
        out.append("   Final: ", "dim")
        out.append_text(render.lit(shown(final), "bold") if final else Text("none yet"))
        out.append("  (", "dim")
        out.append(self._keys_hint(), "dim")
        out.append(")", "dim")
        self.query_one("#adj-about", Static).update(out)

    def _keys_hint(self) -> str:
        crit = self.criterion
        if crit is None:
            return ""
        return f"{kinds.get(crit.kind).key_hint(crit)}, then a rationale"

    def _status(self, saved: Text, state: str) -> None:
        entry = self.entry
        where = Text(end="")
        where.append_text(render.lit(entry.where, "bold"))
        where.append(f"  {self.index + 1}/{len(self.entries)} in the queue")
        if self.item is not None:
            where.append(f"  {self.item.kind}")
        self.query_one(StatusLine).show(where, saved, state=state)

    @on(StudyChanged)
    def _changed(self) -> None:
        """Another process wrote (another adjudicator, a judge run): re-read the votes."""
        if self.item is None:
            return
        try:
            self.detail = unit_detail(self.review_app.study, self.entry.unit_id)
        except StudyError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.query_one("#adj-votes", Pane).replace(votes_text(self.item, self.detail))
        self._about()

    # -- which keys apply --------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Label keys apply to the unit's kind and criterion only."""
        crit, item = self.criterion, self.item
        if action not in ("pick", "tick", "save_ticks"):
            return True
        if crit is None or item is None:
            return False
        if action == "pick":
            return applies(parameters, item.kind, crit)
        if action == "tick":
            return crit.options and parameters[0] in [k for k, _ in render.options_of(item)]
        return crit.options

    # -- recording ---------------------------------------------------------------------------
    def action_pick(self, kind: str, value: str) -> None:
        """A final label with the kind's key (pairwise letters in the file frame: 'A' is the
        file's answer_a, as the votes pane shows them). A value built from several keys (a
        ranking: ``1``–``5`` name the file's answers A–E, best first) is recorded once
        complete."""
        item = self.item
        if item is None:
            return
        of_kind = kinds.get(kind)
        if of_kind.composes:
            partial, done = of_kind.compose(self.composing, value, len(item.slots))
            self.composing = "" if done else partial
            so_far = of_kind.to_file_frame(partial, None)
            if not done:
                self._status(Text(f"● {so_far} > …: the next answer's number"), "pending")
                return
            value = so_far
        self._record(value)

    def action_tick(self, letter: str) -> None:
        """Tick or untick an option of the final option set (enter records it)."""
        self.ticks.symmetric_difference_update({letter})
        chosen = ",".join(sorted(self.ticks)) or "none"
        self._status(Text(f"● ticked {chosen}: enter records them"), "pending")

    def action_save_ticks(self) -> None:
        """Record the ticked options as the final label; none ticked asks first (recorded as
        ``-``, none of the options)."""
        if self.ticks:
            self._record(",".join(sorted(self.ticks)))
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._record("-")
            else:
                self._status(Text("not recorded: tick the options first"), "info")

        question = Text("Record none of the options as the final label?")
        self.app.push_screen(ConfirmDialog("No option ticked", question), answered)

    LABEL_ACTIONS = ("pick", "tick", "save_ticks")

    def key_not_taken(self, key: str, character: str | None) -> None:
        """A key the app passes on (it sees every key, taken or not): a label key that does
        nothing on this unit says so."""
        if self.criterion is not None and label_key_unused(self, key, self.LABEL_ACTIONS):
            self.notify(
                f"{character or key} does nothing on this unit: {self._keys_hint()}.",
                title="no such label",
                markup=False,
            )

    def _record(self, value: str) -> None:
        item, entry = self.item, self.entry
        if item is None:
            return
        actor = self.review_app.session.reviewer
        saved: list[int] = []

        def save(rationale: str) -> str | None:
            try:
                saved.append(
                    adjudicate(
                        self.review_app.study,
                        entry.unit_id,
                        value,
                        rationale,
                        actor=actor,
                        settles=entry.kinds,
                    )
                )
            except StudyError as exc:
                self.notify(
                    str(exc), title="final label not recorded", severity="error", markup=False
                )
                return str(exc)
            return None

        def done(rationale: str | None) -> None:
            if rationale is None or not saved:
                self._status(Text("not recorded (cancelled)"), "info")
                return
            self.recorded = True
            self.ticks = set()
            self.post_message(self.Recorded(entry.unit_id, value, saved[0]))
            if self.entry.unit_id != entry.unit_id:
                return
            self._changed()
            votes = self.query_one("#adj-votes", Pane)  # bring the new history row into view
            votes.call_after_refresh(votes.scroll_end, animate=False)
            status = Text("✓ saved final label ", style="bold")
            status.append_text(render.lit(shown(value)))
            self._status(status, "saved")

        what = shown(value)
        if value in item.answers:
            answer = item.answers[value]
            what = f"{value} (answer_{value.lower()}, {answer.source})"  # the dialog escapes it
        self.app.push_screen(
            RationaleDialog(
                f"Final label for {entry.where}: {what}",
                "why (required); it is kept with the label",
                save,
            ),
            done,
        )

    # -- moving ------------------------------------------------------------------------------
    def action_step(self, step: int) -> None:
        """The previous / next unit of the queue."""
        new = self.index + step
        if 0 <= new < len(self.entries):
            self.show(new)
        else:
            self.notify("This is the " + ("last" if step > 0 else "first") + " unit of the queue.")

    def action_toggle_context(self) -> None:
        """Open or close the context documents."""
        context = self.query_one("#adj-context", Collapsible)
        if context.display:
            context.collapsed = not context.collapsed

    def action_zoom(self) -> None:
        """Give the focused pane the whole screen (escape returns)."""
        if self.focused is not None:
            self.maximize(self.focused)

    def action_back(self) -> None:
        """Back to the queue."""
        self.dismiss(DetailClosed(self.entry.unit_id, self.recorded))
