"""The reading screen (``v``): the whole item, full screen, scrollable.

At 80×24 an answer gets a few lines on the review screen; a physician must be able to read
all of it before voting. Everything shown is the item's own text, literally (no markup), in
the order the review screen shows it (for pairwise items: the display order, "Answer A" being
the left / upper one), then the item's extra fields from the import file (its metadata). Escape, ``v`` or ``q`` returns to the review screen.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from medjudge import kinds
from medjudge.store.items import Item

from . import render
from .scroll_screen import ScrollScreen


def item_sections(item: Item) -> list[tuple[str, Text]]:
    """The item as (title, text) sections: question (or case), answers, statements, context."""
    kind = kinds.get(item.kind)
    parts = [(pane.title, render.pane_text(item, pane.content)) for pane in kind.panes]
    if item.statements:
        lines = Text()
        for n, st in enumerate(item.statements, start=1):
            lines.append_text(render.lit(f"{n}. {st.text}\n"))
        parts.append((kind.listed_title, lines))
    if item.context:
        parts.append(("Context documents", render.context_text(item)))
    if item.meta:
        fields = Text()
        for key, value in item.meta.items():
            fields.append_text(render.lit(f"{key}: {value}\n"))
        parts.append(("Item fields (from the import file)", fields))
    return parts


class ReadScreen(ScrollScreen):
    """One item, full screen, to read in full (↑ ↓ page up / down scroll)."""

    SCROLL_ID = "read"
    BINDINGS = [Binding("escape,v,q", "close", "Back")]
    DEFAULT_CSS = """
    ReadScreen .read-body { margin-bottom: 1; }
    """

    def __init__(self, item: Item) -> None:
        """The item to show."""
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        """The item's text in a scrolling view."""
        with VerticalScroll(id="read"):
            for title, body in item_sections(self.item):
                yield Static(Text(title, style="bold underline"), classes="read-title")
                yield Static(body, markup=False, classes="read-body")
