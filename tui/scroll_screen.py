"""A full-screen, scrollable reading screen: the base of the item reader and the guidelines.

Subclasses compose their content inside a ``VerticalScroll`` with the id :attr:`SCROLL_ID`;
this class focuses it on mount (so page keys work at once), scrolls it with ↑ ↓ and closes on
the keys the subclass binds to ``close``.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen


class ScrollScreen(ModalScreen[None]):
    """Full screen text to read; ↑ ↓ page up / down scroll; ``close`` returns."""

    SCROLL_ID = "scroll"
    BINDINGS = [
        Binding("up", "scroll(-1)", "Up", show=False),
        Binding("down", "scroll(1)", "Down", show=False),
    ]
    DEFAULT_CSS = """
    ScrollScreen { background: $background; }
    ScrollScreen > VerticalScroll { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    """

    def on_mount(self) -> None:
        """Focus the scroll view so page keys work at once."""
        self.query_one(f"#{self.SCROLL_ID}", VerticalScroll).focus()

    def action_scroll(self, lines: int) -> None:
        """Scroll by ``lines``."""
        self.query_one(f"#{self.SCROLL_ID}", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        """Back to where the screen was opened."""
        self.dismiss(None)
