"""The review screen: one item at a time, one key per verdict.

Its state is four reactives, and their watchers repaint what each one owns: ``view`` (the
item on screen: the panes, the lists, the detail), ``cursor`` (the row under it, its detail and
the keys that apply to it), ``changing`` (the one label armed for a change after the reveal:
the keys) and ``revision`` (the reviewer's labels, ticks, notes or the reveal on this item
changed: the rows, the context, the detail, the progress and the keys). Actions only change the
session and these reactives; what they say goes to the status line.

Label writes run on the main thread: :meth:`ReviewSession.vote` returns only after SQLite
committed (``synchronous=FULL``), and only then does the status line say "saved". Keys are
handled one after another, so a vote and the cursor move it causes finish before the next key
is read. Results are also announced as past-tense messages (:class:`LabelSaved`, ...).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from medjudge import kinds
from medjudge.kinds import review_facet
from medjudge.kinds.review_facet import Shown
from medjudge.store.db import StudyError
from medjudge.tui import render
from medjudge.tui.messages import StudyChanged
from medjudge.tui.review import messages
from medjudge.tui.review.aids import ReviewerAids
from medjudge.tui.review.answer_panes import AnswerPanes
from medjudge.tui.review.context_documents import ContextDocuments
from medjudge.tui.review.labels import LabelActions
from medjudge.tui.review.moves import REVIEW_BINDINGS, QueueMoves
from medjudge.tui.review.status_text import where
from medjudge.tui.rows import ItemView
from medjudge.tui.session import ReviewSession
from medjudge.tui.value_keys import applies
from medjudge.tui.widgets import KeyFooter, Pane, ProgressLine, StatusLine, UnitRows, same_text

IDLE_WORK_S = 0.15
"""How long after the last text drawn the screen does what showing an item left for later."""


class ReviewScreen(ReviewerAids, LabelActions, QueueMoves, Screen[None]):
    """Label the items of the reviewer's queue."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    AUTO_FOCUS = None

    BINDINGS = REVIEW_BINDINGS

    view: reactive[ItemView | None] = reactive(None, init=False, always_update=True, repaint=False)
    """The item on screen (None: none yet, or an empty queue)."""
    cursor: reactive[int] = reactive(0, init=False, repaint=False)
    """The row under the cursor."""
    changing: reactive[int | None] = reactive(None, init=False, repaint=False)
    """The unit whose label the change key (E) armed on a done, revealed item; a label key
    changes that one label, then the item is locked again."""
    revision: reactive[int] = reactive(0, init=False, repaint=False)
    """Goes up when the reviewer's labels, ticks or notes on the item, or what is revealed
    of it, changed: what shows them is drawn again."""

    LabelSaved = messages.LabelSaved
    LabelUndone = messages.LabelUndone
    ItemShown = messages.ItemShown
    Revealed = messages.Revealed

    def __init__(self, session: ReviewSession) -> None:
        """A screen over one reviewer's session."""
        super().__init__()
        self.session = session
        self._binding_key: tuple[object, ...] = ()
        self._settings_serial = 0
        """The app's settings serial this screen has shown (a change re-shows the item)."""
        self.read_to_end: int | None = None
        """The item last read to its end in the reader (``settings --require-reading``)."""
        self._unrecorded: list[tuple[int, float]] = []
        """(item id, seconds) of the item left, written once the next one is on screen."""
        self._to_prepare: list[Pane] = []
        """Panes drawn since the last idle work, whose next texts are to be wrapped."""
        self._idle_work_timer: Timer | None = None
        self._ahead: tuple[int, dict[str, Text]] | None = None
        """The next item's pane texts, by pane id, and its queue position (read once)."""

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        """Status, progress, question, context, the answer panes (as many as a kind may show),
        the unit list, detail, footer;
        on a study this login cannot write, a banner above them all."""
        if self.session.read_only is not None:
            yield Static(
                "READ-ONLY: nothing you label can be saved. " + self.session.read_only,
                markup=False,
                id="read-only",
            )
        yield StatusLine(id="status")
        yield ProgressLine(id="progress")
        yield Pane("Question", id="question", tells_drawn=True)
        yield ContextDocuments(id="context")
        yield AnswerPanes(id="panes")
        yield UnitRows("Criteria", id="criteria")
        yield Pane("", id="detail")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Show new guidelines first (every key goes to them until they are dismissed), and
        under them the first item not yet finished."""
        self.show_guidelines_if_new()
        if not self.session.refs:
            self._show_empty()
        else:
            self.show_index(self.session.first_index())

    def on_screen_suspend(self) -> None:
        """Another screen covers the item (overview, help, guidelines): its time stops."""
        self.session.pause()

    def on_screen_resume(self) -> None:
        """The item is on screen again: its time runs from now."""
        self.session.resume()

    @property
    def answer_panes(self) -> AnswerPanes:
        """The pane stack: the answers, and the list beside them."""
        return self.query_one(AnswerPanes)

    @property
    def unit_list(self) -> UnitRows:
        """The list being labelled: statements beside the answer, else criteria below."""
        beside = self.view is not None and kinds.get(self.view.item.kind).lists_entries
        return self.query_one("#statements" if beside else "#criteria", UnitRows)

    # -- showing items -------------------------------------------------------------------------
    def show_index(self, index: int, *, cursor_unit: int | None = None) -> None:
        """Leave the current item (its time, unsaved ticks) and show the one at ``index``."""
        self.leave_item()
        self._ahead = None
        self.changing = None
        s = self.session
        s.load(index)
        view = ItemView.of(s)
        if s.reveal_if_due():
            view.refresh_reveal()
        # the new item's cursor first, without its watcher (it would draw the old item's rows):
        # showing the view draws them all
        start = view.row_of(cursor_unit) if cursor_unit is not None else view.start_row()
        self.set_reactive(ReviewScreen.cursor, start)
        self.view = view
        note = s.note()
        self._status(
            f"{len(s.labels)}/{len(view.item.units)} labelled" + (" · has a note" if note else ""),
            "saved" if s.complete() else "",
        )
        self.post_message(self.ItemShown(view.item.id))

    # -- what each piece of state draws --------------------------------------------------------
    def watch_view(self, view: ItemView | None) -> None:
        """A new item: its question, answers, context and list, the cursor's row and detail."""
        if view is None:
            return
        item = view.item
        kind = kinds.get(item.kind)
        facet = review_facet.facet(item.kind)
        asked = facet.question(item)
        question = self.query_one("#question", Pane)
        question.display = asked is not None
        if asked is not None:
            question.show(asked.text, title=asked.title)
        self.answer_panes.show(facet.answers(item, self.session.settings.decline_phrases))
        entries = self.query_one("#statements", UnitRows)
        entries.display = kind.lists_entries
        if kind.lists_entries:
            entries.border_title = kind.listed_title
        self.query_one("#criteria").display = not kind.lists_entries
        self._show_context()
        cursor = self.cursor
        self.unit_list.set_rows(len(view.rows), lambda i: view.render_row(i, self.cursor), cursor)
        focused = self.focused
        if (
            focused is None
            or not focused.display
            or focused.id == "question"
            or (isinstance(focused, UnitRows) and focused is not self.unit_list)
        ):
            self.unit_list.focus()
        self._detail()
        self._progress()
        self._bindings_changed()

    def action_toggle_rendered(self) -> None:
        """Answers as Markdown (headings, lists, tables) or literally, letter for letter."""
        panes = self.answer_panes
        panes.rendered = not panes.rendered
        how = "rendered as Markdown (r: literal)" if panes.rendered else "shown literally"
        self._status(f"answers {how}", "info")

    def watch_cursor(self, old: int, new: int) -> None:
        """The rows the cursor left and reached, the detail, the keys that apply."""
        view = self.view
        if view is None or not view.rows:
            return
        units = [view.rows[i].unit.id for i in (old, new) if 0 <= i < len(view.rows)]
        for i in sorted(view.rows_of(*units)):
            self.unit_list.set_row(i, view.render_row(i, new))
        self.unit_list.set_cursor(new)
        self._detail()
        self._bindings_changed()

    def watch_changing(self) -> None:
        """Armed or disarmed: the keys that apply (E, esc) change."""
        self._bindings_changed()

    def watch_revision(self) -> None:
        """The labels, ticks, notes or reveal changed: every row, the context, the detail,
        the progress and the keys."""
        if self.view is None:
            return
        self._show_context()
        self.unit_list.redraw()
        self.unit_list.set_cursor(self.cursor)
        self._detail()
        self._progress()
        self._bindings_changed()

    def labels_changed(self, *, cursor: int | None = None) -> None:
        """Say that the item's labels, ticks, notes or reveal changed (:attr:`revision`);
        ``cursor``: the row the cursor moves to with it, drawn by the same redraw (its own
        watcher would draw the rows and the detail a second time)."""
        if cursor is not None:
            self.set_reactive(ReviewScreen.cursor, cursor)
        self.revision += 1

    @on(Pane.Drawn)
    def _after_frame(self, event: Pane.Drawn) -> None:
        """A text is on screen (handled once the frame is written). What showing an item
        leaves for later (the time on the item left, wrapping the next item's texts) is done
        once no new text has been drawn for :data:`IDLE_WORK_S`: a key typed right after
        the item appears is not kept waiting for it."""
        self._to_prepare.append(event.pane)
        if self._idle_work_timer is not None:
            self._idle_work_timer.stop()
        self._idle_work_timer = self.set_timer(IDLE_WORK_S, self._idle_work)

    def _idle_work(self) -> None:
        self._idle_work_timer = None
        self._record_times()
        panes, self._to_prepare = self._to_prepare, []
        for pane in dict.fromkeys(panes):
            self._prepare_next(pane)

    def _prepare_next(self, pane: Pane) -> None:
        """Wrap what ``pane`` will show for the next item (:meth:`Pane.prepare`), so the key
        that shows it only swaps lines in: wrapping was a third of that key's work."""
        s = self.session
        if s.item is None or s.index + 1 >= len(s.refs):
            return
        if self._ahead is None or self._ahead[0] != s.index + 1:
            try:
                item = s.peek(s.index + 1)
            except StudyError:  # the key that shows it reports the same error
                return
            facet = review_facet.facet(item.kind)
            answers = facet.answers(item, s.settings.decline_phrases)
            texts = {f"pane-{n}": shown.text for n, shown in enumerate(answers, 1)}
            asked = facet.question(item)
            if asked is not None:
                texts["question"] = asked.text
            self._ahead = (s.index + 1, texts)
        text = self._ahead[1].get(pane.id or "")
        if text is not None:
            pane.prepare(text)

    def leave_item(self, *, now: bool = False) -> None:
        """Save ticked-but-unconfirmed options and record the time spent on the current item.

        The time is written once the next item is on screen and no key has followed for a
        moment (``now=False``: :meth:`_after_frame`), so moving on never waits for that
        commit; on quit it is written at once. A time still waiting when the reviewer moves on
        again is written first.
        """
        view = self.view
        if view is None:
            return
        for unit_id in view.unsaved():
            if self._save(unit_id, view.options_value(unit_id)) is None:
                return
            view.pending.pop(unit_id, None)
        visit = self.session.leave()
        if visit is None:
            return
        self._record_times()
        self._unrecorded.append(visit)
        if now:
            self._record_times()

    def _record_times(self) -> None:
        while self._unrecorded:
            item_id, seconds = self._unrecorded.pop(0)
            try:
                self.session.record_time(item_id, seconds)
            except StudyError as exc:
                self.notify(str(exc), title="time not recorded", severity="warning", markup=False)

    def _show_empty(self) -> None:
        why = self.session.why_empty()
        for pane_id in ("#statements", "#criteria", "#context", "#question"):
            self.query_one(pane_id).display = False
        self.answer_panes.show_nothing(Shown("Queue", Text(f"Nothing to review: {why}.")))
        self._status("", "")

    def _status(self, saved: str | Text, state: str) -> None:
        right = saved if isinstance(saved, Text) else Text(saved)
        self.query_one(StatusLine).show(where(self.session), right, state=state)

    def _detail(self) -> None:
        if self.view is None or not self.view.rows:
            return
        detail = self.query_one("#detail", Pane)
        content = self.view.render_detail(self.cursor)
        if not same_text(detail.text, content):
            detail.show(content)
        shown = self.view.revealed and bool(self.view.verdicts or self.view.others)
        self.set_class(shown, "-revealed")

    def _unread(self) -> bool:
        """With ``settings --require-reading``: whether an answer on screen has not been seen
        to its end (scrolled through, or read to the last page with ``v``); if so, say it."""
        s = self.session
        if not s.settings.require_reading or s.item is None or self.read_to_end == s.item.id:
            return False
        unread = self.answer_panes.unread()
        if not unread:
            return False
        self._status(
            "read every answer to its end first: scroll it (tab, then ↓ or pgdn) or read "
            "the item with v",
            "info",
        )
        return True

    def _progress(self) -> None:
        bar = self.query_one(ProgressLine)
        bar.total = len(self.session.refs)
        bar.done = self.session.items_done()

    def _show_context(self) -> None:
        """The context documents; a match item's document kinds once they may be seen (the
        study is not blind, or the reviewer's labels on the item are saved)."""
        s = self.session
        self.query_one(ContextDocuments).show(
            s.item,
            show_kinds=not s.settings.blind or s.revealed(),
            marked=s.marked_documents() if s.item is not None and s.item.context else set(),
        )

    def _bindings_changed(self) -> None:
        view = self.view
        row = view.rows[self.cursor] if view and view.rows else None
        # Only what check_action looks at: a new criterion of the same sort keeps the footer.
        key = (
            view.item.kind if view else None,
            (row.criterion.options, row.criterion.scale, row.option is not None) if row else None,
            self.session.locked(),
            self.session.complete(),
            self.changing,
            self._ticks_to_save(),
        )
        if key != self._binding_key:
            self._binding_key = key
            self.refresh_bindings()

    # -- which keys apply ----------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Vote keys apply to the current item kind and criterion only."""
        view = self.view
        if action in ("continue_on", "continue_on_quietly"):
            # Enter always moves on (unless it saves ticks); the footer shows it once the
            # item is done, to keep the footer short while labelling.
            if self.session.item is None or self._ticks_to_save():
                return False
            return self.session.complete() == (action == "continue_on")
        if action == "change_after_reveal":
            return self.session.locked()
        if action == "cancel_change":
            return self.changing is not None or bool(view and view.composing)
        if action == "mark_document":
            item = self.session.item
            return item is not None and kinds.get(item.kind).marks_documents and bool(item.context)
        if action in ("vote", "toggle_option", "save_options"):
            if view is None or not view.rows:
                return False
            row = view.rows[self.cursor]
            if action == "vote":
                return applies(parameters, view.item.kind, row.criterion)
            if action == "toggle_option":
                letters = [letter for letter, _ in render.options_of(view.item)]
                if parameters[0] == "":
                    return row.option is not None
                return view.has_options and parameters[0] in letters
            return self._ticks_to_save()
        if action in (
            "next_item",
            "previous_item",
            "next_unlabelled",
            "go_to",
            "note",
            "undo",
            "move",
            "zoom",
            "toggle_context",
            "read",
            "flag",
            "next_flagged",
        ):
            return self.session.item is not None or action == "undo"
        return True

    # -- moving ----------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        """Cursor to the previous / next row."""
        view = self.view
        if view is None or not view.rows:
            return
        new = max(0, min(len(view.rows) - 1, self.cursor + step))
        if new == self.cursor:
            return
        self.changing = None  # an armed change belongs to the row it was armed on
        self.cursor = new

    def action_continue_on(self) -> None:
        """Enter: on to the next item, always (a revealed item's labels stay as they are)."""
        self.changing = None
        self._advance_after_item(Text(""))

    def action_continue_on_quietly(self) -> None:
        """Enter on an item not yet done: the next item too (not shown in the footer)."""
        self.action_continue_on()

    def _ticks_to_save(self) -> bool:
        """Enter saves the ticks of the options row under the cursor while it has unsaved
        ticks, or no saved label yet (nothing ticked is saved as "none of them")."""
        view = self.view
        if view is None or not view.rows:
            return False
        row = view.rows[self.cursor]
        if not row.criterion.options or self.session.locked() and self.changing is None:
            return False
        return row.unit.id in view.unsaved() or view.mine(row.unit.id) is None

    def action_toggle_context(self) -> None:
        """Open or close the context documents."""
        self.query_one(ContextDocuments).toggle()

    def action_zoom(self) -> None:
        """Give the focused pane the whole screen (escape returns)."""
        if self.focused is not None:
            self.maximize(self.focused)

    # -- other reviewers -------------------------------------------------------------------
    @on(StudyChanged)
    def _study_changed(self) -> None:
        """Another process wrote: the queue (items imported or assigned since), progress, and
        what is revealed on this item may differ."""
        s = self.session
        serial = getattr(self.app, "settings_serial", 0)
        if serial != self._settings_serial:  # the lead changed the settings or the guidelines
            self._settings_serial = serial
            self.notify("The study's settings changed.", title="settings", markup=False)
            self.show_guidelines_if_new()
            if s.item is not None:
                unit = self.view.rows[self.cursor].unit.id if self.view and self.view.rows else None
                self.show_index(s.index, cursor_unit=unit)
        added = s.reload_queue()
        if added:
            self.notify(
                f"{added} new item{'s' if added != 1 else ''} in your queue",
                title="queue",
                markup=False,
            )
        s.reload_progress()
        if s.item is None and s.refs:  # the queue was empty: show its first item now
            self.show_index(s.first_index())
            return
        if s.item is None or self.view is None:
            return
        s.reload_labels()
        s.reveal_if_due()
        self.view.refresh_reveal()
        self.labels_changed()
        if added:  # the left side counts the longer queue; the right side says why
            self._status(f"{added} new item{'s' if added != 1 else ''} in your queue", "info")
