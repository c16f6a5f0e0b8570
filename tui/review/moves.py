"""The review screen's keys, and its moves between items (queue order, next unfinished, the
whole item to read).

A mixin of :class:`~medjudge.tui.review.screen.ReviewScreen`, kept apart so each module stays
short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType

from medjudge import kinds
from medjudge.tui.read_screen import ReadScreen
from medjudge.tui.value_keys import value_bindings

if TYPE_CHECKING:
    from textual.app import App

    from medjudge.tui.session import ReviewSession

TICK = Binding.Group("Tick", compact=True)

REVIEW_BINDINGS: list[BindingType] = [
    *value_bindings("vote"),
    *[
        Binding(c, f"toggle_option('{c.upper()}')", f"Tick {c.upper()}", group=TICK)
        for c in "abcdef"
    ],
    Binding("space", "toggle_option('')", "Tick", show=False),
    Binding("enter", "save_options", "Save ticks"),
    Binding("enter", "continue_on", "Next item"),
    Binding("enter", "continue_on_quietly", "Next item", show=False),
    Binding("E", "change_after_reveal", "Change", key_display="E"),
    Binding("escape", "cancel_change", "Cancel change", show=False),
    Binding("v", "read", "Read"),
    Binding("right_square_bracket,right", "next_item", "Next", key_display="]"),
    Binding("left_square_bracket,left", "previous_item", "Prev", key_display="["),
    Binding("u,ctrl+z", "undo", "Undo"),
    Binding("question_mark", "app.help", "Help", key_display="?"),
    Binding("j", "next_unlabelled", "Jump"),
    Binding("g", "go_to", "Go to", show=False),
    Binding("slash", "search", "Search", key_display="/", show=False),
    Binding("m", "note", "Note"),
    Binding("M", "unit_note", "Note on this criterion", key_display="M", show=False),
    Binding("f", "flag", "Flag", show=False),
    Binding("F", "next_flagged", "Next flagged", show=False),
    Binding("G", "guidelines", "Guidelines", show=False),
    Binding("o", "app.overview", "Overview"),
    Binding("x", "toggle_context", "Context", show=False),
    Binding("r", "toggle_rendered", "Rendered", show=False),
    Binding("w", "mark_document", "Relied on", show=False),
    Binding("z", "zoom", "Zoom", show=False),
    Binding("up", "move(-1)", "Previous criterion", show=False),
    Binding("down", "move(1)", "Next criterion", show=False),
    Binding("q", "app.quit", "Quit", show=False),
]
"""Every key of the review screen (the footer shows those with ``show``; ``?`` lists all)."""


class QueueMoves:
    """Moving through the reviewer's queue (mixed into ``ReviewScreen``)."""

    session: ReviewSession
    app: App[Any]
    read_to_end: int | None
    """The item last read to its end in the reader (``settings --require-reading``)."""

    if TYPE_CHECKING:  # provided by ReviewScreen / Screen

        def show_index(self, index: int, *, cursor_unit: int | None = None) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...

    def action_next_item(self) -> None:
        """The next item in the queue."""
        s = self.session
        if s.index + 1 < len(s.refs):
            self.show_index(s.index + 1)
        else:
            self.notify("This is the last item.")

    def action_previous_item(self) -> None:
        """The previous item in the queue."""
        if self.session.index > 0:
            self.show_index(self.session.index - 1)
        else:
            self.notify("This is the first item.")

    def action_next_unlabelled(self) -> None:
        """The next item the reviewer has not finished."""
        found = self.session.next_unlabelled(self.session.index)
        if found is None:
            self.notify("Every item is done.")
        else:
            self.show_index(found)

    def action_read(self) -> None:
        """The whole item, full screen, to read in full (escape returns)."""
        s = self.session
        if s.item is not None:
            hidden = kinds.get(s.item.kind).fields_hidden_until_labelled
            fields = not (hidden and s.settings.blind and not s.revealed())
            reader = ReadScreen(s.item, fields=fields)
            item_id = s.item.id

            def closed(_: None) -> None:
                if reader.reached_end:
                    self.read_to_end = item_id

            self.app.push_screen(reader, closed)
