"""Labelling on the review screen: votes, option ticks, the reveal, undo.

A mixin of :class:`~medjudge.tui.review.screen.ReviewScreen`, kept apart so each module stays
short. Storage contract: every write goes through :meth:`ReviewSession.vote` (or ``undo``) on
the main thread and has committed when it returns; only then does the status line say
"saved", and the past-tense message (``LabelSaved``, ``LabelUndone``, ``Revealed``) is posted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.binding import BindingType

from medjudge import kinds
from medjudge.store.db import StudyError
from medjudge.store.frames import shown_order
from medjudge.store.labels import Saved, UndoRefused
from medjudge.tui import render
from medjudge.tui.value_keys import label_key_unused

if TYPE_CHECKING:
    from medjudge.tui.rows import ItemView
    from medjudge.tui.session import ReviewSession


LABEL_ACTIONS = ("vote", "toggle_option")
"""The actions a label key runs (the keys other kinds label with reach a row as these too)."""


class LabelActions:
    """The labelling actions of the review screen (mixed into ``ReviewScreen``)."""

    session: ReviewSession
    view: ItemView | None
    cursor: int
    changing: int | None
    LabelSaved: Any
    LabelUndone: Any
    Revealed: Any

    if TYPE_CHECKING:  # provided by ReviewScreen / Screen

        def _status(self, saved: str | Text, state: str) -> None: ...
        def labels_changed(self, *, cursor: int | None = None) -> None: ...
        def _unread(self) -> bool: ...
        def show_index(self, index: int, *, cursor_unit: int | None = None) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def post_message(self, message: Any) -> bool: ...

        BINDINGS: ClassVar[list[BindingType]]

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None: ...

    def key_not_taken(self, key: str, character: str | None) -> None:
        """A key the app passes on (it sees every key, taken or not): a label key that does
        nothing on the row under the cursor says so, with the keys that do."""
        view = self.view
        if view is None or not view.rows or not label_key_unused(self, key, LABEL_ACTIONS):
            return
        row = view.rows[self.cursor]
        hint = kinds.get(view.item.kind).key_hint(row.criterion)
        self.notify(
            f"{character or key} does nothing on this row: {hint}.",
            title="no such label",
            markup=False,
        )

    def _save(self, unit_id: int, value: str) -> Saved | None:
        """Write one label; the status says "saved" only once it is committed."""
        assert self.session.item is not None
        if self.session.read_only is not None:
            self._status(Text("✗ NOT saved: the study is read-only here"), "error")
            self.notify(self.session.read_only, title="read-only", severity="error", markup=False)
            return None
        try:
            saved = self.session.vote(unit_id, value)
        except StudyError as exc:
            self._status(Text("✗ NOT saved: ") + render.lit(str(exc)), "error")
            self.notify(str(exc), title="label not saved", severity="error", markup=False)
            return None
        self.post_message(self.LabelSaved(saved, self.session.item.id))
        return saved

    def _held(self) -> bool:
        """On a done and revealed item a label key writes only after the change key armed it
        for the row under the cursor; otherwise it is refused, visibly."""
        view = self.view
        if not self.session.locked() or view is None or not view.rows:
            return False
        if self.changing == view.rows[self.cursor].unit.id:
            return False
        self.notify(
            "This item is done and its verdicts are shown. Enter: next item. "
            "E: change the label under the cursor (recorded as a change after the reveal).",
            title="item done",
        )
        return True

    def action_change_after_reveal(self) -> None:
        """Arm a change of the label under the cursor on a done, revealed item (one label)."""
        view = self.view
        if view is None or not view.rows or not self.session.locked():
            return
        row = view.rows[self.cursor]
        self.changing = row.unit.id
        what = view.row_name(row)
        self._status(
            render.lit(f"✎ changing {what} after the reveal: press its new label (Esc cancels)"),
            "pending",
        )

    def action_cancel_change(self) -> None:
        """Disarm a change armed with E; drop a value being built from several keys."""
        view = self.view
        if view is not None and view.composing:
            view.composing.clear()
            self.labels_changed()
            self._status(Text("started again: nothing was saved"), "info")
            return
        if self.changing is not None:
            self.changing = None
            self._status(Text("change cancelled"), "info")

    def _label_current(self, value: str) -> None:
        view = self.view
        if view is None or not view.rows or self._held() or self._unread():
            return
        self.session.touch()
        index = self.cursor
        row = view.rows[index]
        saved = self._save(row.unit.id, value)
        if saved is None:
            return
        view.pending.pop(row.unit.id, None)
        shown = render.display_value(view.item, row.criterion, saved.new_value)
        what = view.row_name(row)
        status = Text("✓ saved ", style="bold")
        status.append_text(render.lit(f"{what} = {shown}"))
        if self.changing is not None:  # the one armed change is made; the item locks again
            self.changing = None
            status.append(" (changed after the reveal) · enter: next")
            self.labels_changed()
            self._status(status, "saved")
            return
        self._after_label(index, status)

    def _after_label(self, index: int, status: Text) -> None:
        view = self.view
        assert view is not None
        s = self.session
        revealed_now = s.reveal_if_due()
        if revealed_now:
            view.refresh_reveal()
            self.post_message(self.Revealed(view.item.id))
        nxt = view.next_row(index)
        stay = revealed_now and bool(view.verdicts or view.others)
        if stay:
            nxt = None
        self.labels_changed(cursor=nxt)
        if stay:
            status.append(" · revealed · enter: next · E: change a label")
        self._status(status, "saved")
        if nxt is None and not stay:
            self._advance_after_item(status)

    def _advance_after_item(self, status: Text) -> None:
        s = self.session
        if s.index + 1 < len(s.refs):
            done = s.item.ext_id if s.item is not None else ""
            self.show_index(s.index + 1)
            if status.plain:
                self._status(render.lit(f"{done}: ") + status, "saved")
        elif s.next_unlabelled(s.index) is None:
            self.notify(f"All {len(s.refs)} items are done. Thank you!", title="finished")
        else:
            self.notify("That was the last item; j jumps to one you have not finished.")

    def action_vote(self, kind: str, value: str) -> None:
        """A label key of the item's kind on the row under the cursor (pairwise letters are
        the shown ones, stored in the file's frame). A kind whose values take several keys (a
        ranking) gathers them first and saves once the value is complete."""
        view = self.view
        if view is None:
            return
        item, of_kind = view.item, kinds.get(kind)
        if of_kind.composes:
            if not view.rows or self._held() or self._unread():
                return
            unit = view.rows[self.cursor].unit.id
            partial, done = of_kind.compose(view.composing.get(unit, ""), value, len(item.slots))
            if not done:
                view.composing[unit] = partial
                self.labels_changed()
                shown = of_kind.partial_text(partial, len(item.slots))
                self._status(
                    Text(f"● {shown}: the next answer's number (esc: start again)"), "pending"
                )
                return
            view.composing.pop(unit, None)
            value = partial
        self._label_current(of_kind.to_file_frame(value, shown_order(item)))

    def action_toggle_option(self, letter: str) -> None:
        """Tick or untick an option (the one under the cursor when no letter is given)."""
        view = self.view
        if view is None or self._held():
            return
        self.session.touch()
        if not letter:
            letter = view.rows[self.cursor].option or ""
        unit = next(r.unit for r in view.rows.head if r.option == letter)  # options lead
        view.toggle(unit.id, letter)
        if view.rows[self.cursor].option != letter:
            self.labels_changed(
                cursor=next(i for i, r in enumerate(view.rows.head) if r.option == letter)
            )
        else:
            self.labels_changed()
        self._status(
            Text("● ticks not saved yet: enter saves " + view.options_value(unit.id)), "pending"
        )

    def action_save_options(self) -> None:
        """Save the ticked options of the completeness criterion."""
        view = self.view
        if view is None:
            return
        unit_id = view.rows[self.cursor].unit.id
        self.cursor = view.row_of(unit_id)
        self._label_current(view.options_value(unit_id))

    def action_undo(self) -> None:
        """Take back the last label of this session."""
        s = self.session
        try:
            result = s.undo()
        except UndoRefused as exc:
            self.notify(str(exc), title="not undone", severity="warning", markup=False)
            return
        if result is None:
            self.notify("Nothing to undo in this session.")
            return
        entry, undone = result
        self.post_message(self.LabelUndone(undone, entry.item_id))
        if undone is None:
            self.notify("That label was changed since; it was left as it is.", severity="warning")
            return
        pos = s.position_of(entry.item_id)
        if s.item is not None and s.item.id == entry.item_id and self.view is not None:
            s.reload_labels()
            self.view.pending.pop(entry.saved.unit_id, None)
            self.labels_changed(cursor=self.view.row_of(entry.saved.unit_id))
        elif pos is not None:
            self.show_index(pos, cursor_unit=entry.saved.unit_id)
        else:  # the item left the queue: its progress still counts the undo
            self.labels_changed()
        back = undone.new_value if undone.new_value is not None else render.EMPTY
        self._status(Text("↶ undone; back to ") + render.lit(back), "info")
