"""Reviewer aids on the review screen: go to an item, notes, come-back flags, the study's
guidelines, and marks on documents a match answer wrongly relied on.

A mixin of :class:`~medjudge.tui.review.screen.ReviewScreen`, kept apart so each module stays
short. Every write goes through :class:`ReviewSession` and has committed when it returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from medjudge.store.db import StudyError
from medjudge.store.search import Found, search
from medjudge.tui.dialogs import PromptDialog
from medjudge.tui.search_screen import RESULTS, SearchScreen

if TYPE_CHECKING:
    from textual.app import App

    from medjudge.tui.rows import ItemView
    from medjudge.tui.session import ReviewSession


class ReviewerAids:
    """The review screen's actions beside labelling (mixed into ``ReviewScreen``)."""

    session: ReviewSession
    app: App[Any]
    view: ItemView | None
    cursor: int

    if TYPE_CHECKING:  # provided by ReviewScreen / Screen

        def _status(self, saved: str | Text, state: str) -> None: ...
        def labels_changed(self, *, cursor: int | None = None) -> None: ...
        def show_index(self, index: int, *, cursor_unit: int | None = None) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...

    def action_flag(self) -> None:
        """Flag this item to come back to (or take the flag off); saved at once."""
        if self.session.item is None:
            return
        try:
            on = self.session.toggle_flag()
        except StudyError as exc:
            self.notify(str(exc), title="flag not saved", severity="error", markup=False)
            return
        self._status("⚑ flagged: F finds it again" if on else "flag removed", "saved")

    def action_next_flagged(self) -> None:
        """The next item flagged "come back to this"."""
        found = self.session.next_flagged(self.session.index)
        if found is None:
            self.notify("No flagged items (f flags the item on screen).")
        else:
            self.show_index(found)

    def action_guidelines(self) -> None:
        """The study's reviewer guidelines, full screen."""
        text = self.session.settings.guidelines
        if not text:
            self.notify("This study has no reviewer guidelines (a lead sets them).")
            return
        from medjudge.tui.guidelines_screen import (
            GuidelinesScreen,  # the Markdown widget: on demand
        )

        self.app.push_screen(GuidelinesScreen(text))

    def show_guidelines_if_new(self) -> None:
        """Open the guidelines by themselves when this reviewer has not seen this version."""
        text = self.session.settings.guidelines
        if text and self.session.guidelines_due():
            from medjudge.tui.guidelines_screen import GuidelinesScreen

            self.app.push_screen(GuidelinesScreen(text, first=True))
            self.session.guidelines_shown()

    def action_mark_document(self) -> None:
        """Mark (or unmark) a context document the answer wrongly relied on."""
        item = self.session.item
        if item is None:
            return
        item_id = item.id

        def mark(answer: str | None) -> None:
            if not answer or self.session.item is None or self.session.item.id != item_id:
                return
            text = answer.strip().lstrip("[").rstrip("]")
            if not text.isdigit() or not 1 <= int(text) <= len(item.context):
                self.notify(
                    f"No document {answer!r}: give a number from 1 to {len(item.context)}.",
                    severity="warning",
                    markup=False,
                )
                return
            try:
                on = self.session.toggle_document(int(text))
            except StudyError as exc:
                self.notify(str(exc), title="mark not saved", severity="error", markup=False)
                return
            self.labels_changed()
            self._status(
                f"✓ document {text} marked as wrongly relied on"
                if on
                else f"document {text} unmarked",
                "saved",
            )

        self.app.push_screen(
            PromptDialog(
                "Which document did the answer wrongly rely on?",
                f"its number, 1 to {len(item.context)} (again: unmark it)",
            ),
            mark,
        )

    def action_go_to(self) -> None:
        """Ask for an item id or number and go there."""

        def go(answer: str | None) -> None:
            if not answer:
                return
            found = self.session.find(answer)
            if found is None:
                self.notify(f"No item {answer!r} in your queue.", severity="warning", markup=False)
            else:
                self.show_index(found)

        self.app.push_screen(
            PromptDialog(
                "Go to item",
                f"an item id (e.g. pw-03) or a number from 1 to {len(self.session.refs)}",
            ),
            go,
        )

    def action_search(self) -> None:
        """Search the reviewer's queue by words of the questions, answers and statements, and
        go to the item chosen (answers named as shown, never with their source)."""
        s = self.session

        def run(query: str) -> Found:
            return search(
                s.study, query, limit=RESULTS, within=[r.id for r in s.refs], reviewer=s.reviewer
            )

        def go(item_id: int | None) -> None:
            if item_id is None:
                return
            found = s.position_of(item_id)
            if found is None:  # left the queue while the box was open
                self.notify("That item is no longer in your queue.", severity="warning")
            else:
                self.show_index(found)

        self.app.push_screen(SearchScreen(run, len(s.refs)), go)

    def action_unit_note(self) -> None:
        """Write or change the note on the criterion (or statement) under the cursor."""
        s, view = self.session, self.view
        if s.item is None or view is None or not view.rows:
            return
        row = view.rows[self.cursor]
        unit_id, item_id = row.unit.id, s.item.id
        if unit_id not in s.labels:
            self._status("label it first: a note on a criterion is kept with its label", "info")
            return
        what = view.row_name(row)

        def save(answer: str | None) -> None:
            if answer is None or s.item is None or s.item.id != item_id:
                return
            try:
                s.set_unit_note(unit_id, answer)
            except StudyError as exc:
                self.notify(str(exc), title="note not saved", severity="error", markup=False)
                return
            self._status(f"✓ note on {what} saved" if answer.strip() else "✓ note removed", "saved")
            if self.view is not None and self.view.item.id == item_id:
                self.view.notes = s.unit_notes()
                self.labels_changed()

        self.app.push_screen(
            PromptDialog(
                f"Note on {what}",
                "free text; enter saves, an empty note removes it",
                value=view.notes.get(unit_id, ""),
            ),
            save,
        )

    def action_note(self) -> None:
        """Write or change the note on this item."""
        s = self.session
        if s.item is None:
            return
        item_id = s.item.id

        def save(answer: str | None) -> None:
            if answer is None or s.item is None or s.item.id != item_id:
                return
            try:
                s.set_note(answer)
            except StudyError as exc:
                self.notify(str(exc), title="note not saved", severity="error", markup=False)
                return
            self._status("✓ note saved" if answer.strip() else "✓ note removed", "saved")

        self.app.push_screen(
            PromptDialog(
                "Note on this item",
                "free text; enter saves, an empty note removes it",
                value=s.note(),
            ),
            save,
        )
