"""The study's reviewer guidelines (``G``; shown by itself on a reviewer's first launch).

The text is Markdown written by the study lead. It is shown as Markdown (headings, lists,
emphasis), but never as Rich markup, and control characters and terminal escape sequences in
it are made visible (the same rule as every other text in the app). Escape, ``G`` or ``q``
returns to reviewing.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from medjudge.store.literal import printable
from medjudge.tui.widgets import KeyFooter

from .scroll_screen import ScrollScreen


class GuidelinesScreen(ScrollScreen):
    """The reviewer guidelines, full screen, scrollable."""

    SCROLL_ID = "guidelines"
    BINDINGS = [
        Binding("escape,G,q", "close", "Back to reviewing"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
    ]
    DEFAULT_CSS = """
    GuidelinesScreen #guidelines-title { text-style: bold; padding: 0 1; }
    """

    def __init__(self, text: str, *, first: bool = False) -> None:
        """Show ``text``; ``first`` says it opened by itself (new or changed guidelines)."""
        super().__init__()
        self.text = text
        self.first = first

    def compose(self) -> ComposeResult:
        """A title line, the guidelines, the footer."""
        title = "Reviewer guidelines"
        if self.first:
            title += " — new or changed since you last reviewed; G shows them again"
        yield Static(title, markup=False, id="guidelines-title")
        from textual.widgets import Markdown  # markdown-it loads only when guidelines show

        with VerticalScroll(id="guidelines"):
            yield Markdown(printable(self.text), id="guidelines-text")
        yield KeyFooter(compact=True, show_command_palette=False)
