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
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown, Static

from medjudge.store.literal import printable


class GuidelinesScreen(ModalScreen[None]):
    """The reviewer guidelines, full screen, scrollable."""

    BINDINGS = [
        Binding("escape,G,q", "close", "Back to reviewing"),
        Binding("up", "scroll(-1)", "Up", show=False),
        Binding("down", "scroll(1)", "Down", show=False),
    ]
    DEFAULT_CSS = """
    GuidelinesScreen { background: $background; }
    GuidelinesScreen > VerticalScroll { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
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
        with VerticalScroll(id="guidelines"):
            yield Markdown(printable(self.text), id="guidelines-text")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Focus the scroll view so page keys work at once."""
        self.query_one("#guidelines", VerticalScroll).focus()

    def action_scroll(self, lines: int) -> None:
        """Scroll by ``lines``."""
        self.query_one("#guidelines", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        """Back to reviewing."""
        self.dismiss(None)
