"""The reading screen (``v``): the whole item, full screen, scrollable, page by page.

At 80×24 an answer gets a few lines on the review screen; a physician must be able to read
all of it before voting. Everything shown is the item's own text, literally (no markup), in
the order the review screen shows it (for pairwise items: the display order, "Answer A" being
the left / upper one), then the item's extra fields from the import file (its metadata) — for a
kind whose fields hint at what a blind study hides (a match item's ``test`` and ``p``: its
documents' kinds), only once the reviewer's labels on the item are saved. A long item (a 1M-character
answer, 100,000 statements) is split into pages of at most :data:`PAGE_CHARS` characters,
``n`` / ``p`` turning them. Escape, ``v`` or ``q`` returns to the review screen.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from medjudge import kinds
from medjudge.kinds import review_facet
from medjudge.store.items import Item

from . import render
from .scroll_screen import ScrollScreen
from .widgets import KeyFooter

PAGE_CHARS = 40_000
"""The most characters of the item one page of the reader lays out."""


def item_sections(item: Item, *, fields: bool = True) -> list[tuple[str, Text]]:
    """The item as (title, text) sections: question (or case), answers, statements, context,
    and with ``fields`` the import row's extra fields."""
    kind = kinds.get(item.kind)
    parts = [(shown.title, shown.text) for shown in review_facet.facet(item.kind).reader(item)]
    if item.statements:
        listed = "".join(f"{n}. {st.text}\n" for n, st in enumerate(item.statements, start=1))
        parts.append((kind.listed_title, render.lit(listed)))
    if item.context:
        parts.append(("Context documents", render.context_text(item)))
    if item.meta and fields:
        lines = "".join(f"{key}: {value}\n" for key, value in item.meta.items())
        parts.append(("Item fields (from the import file)", render.lit(lines)))
    return parts


def pages(
    sections: list[tuple[str, Text]], limit: int = PAGE_CHARS
) -> list[list[tuple[str, Text]]]:
    """The sections laid out on pages of at most ``limit`` characters each: a long section is
    cut (at a line break or space) and continues on the next page, titled "(continued)"."""
    out: list[list[tuple[str, Text]]] = [[]]
    room = limit
    for title, body in sections:
        part, rest = title, body
        while True:
            if room < min(len(rest), limit // 4) and out[-1]:  # too little left: a new page
                out.append([])
                room = limit
            end = render.cut(rest, room)
            out[-1].append((part, rest[:end]))
            room -= end
            if end >= len(rest):
                break
            rest, part = rest[end:], f"{title} (continued)"
            out.append([])
            room = limit
    return out


class ReadScreen(ScrollScreen):
    """One item, full screen, to read in full (↑ ↓ page up / down scroll; n / p turn pages)."""

    SCROLL_ID = "read"
    BINDINGS = [
        Binding("escape,v,q", "close", "Back"),
        Binding("n", "turn(1)", "Next page"),
        Binding("p", "turn(-1)", "Previous page"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
    ]
    DEFAULT_CSS = """
    ReadScreen .read-body { margin-bottom: 1; }
    ReadScreen #read-page { dock: top; height: 1; padding: 0 1; background: $boost; }
    """

    def __init__(self, item: Item, *, fields: bool = True) -> None:
        """The item to show; ``fields``: whether its import fields may be seen yet."""
        super().__init__()
        self.item = item
        self.pages = pages(item_sections(item, fields=fields))
        self.page = 0
        self.reached_end = False
        """Whether the reviewer was on the last page's bottom when closing it."""

    def compose(self) -> ComposeResult:
        """The page line (for a long item), the page's text in a scrolling view, the keys."""
        line = Static("", markup=False, id="read-page")
        line.display = len(self.pages) > 1
        yield line
        yield VerticalScroll(id="read")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Show the first page."""
        super().on_mount()
        self._show()

    def _show(self) -> None:
        view = self.query_one("#read", VerticalScroll)
        view.remove_children()
        widgets: list[Static] = []
        for title, body in self.pages[self.page]:
            widgets.append(Static(Text(title, style="bold underline"), classes="read-title"))
            widgets.append(Static(body, markup=False, classes="read-body"))
        view.mount_all(widgets)
        view.scroll_home(animate=False, immediate=True)
        self.query_one("#read-page", Static).update(
            f"page {self.page + 1:,} of {len(self.pages):,} · n next page · p previous page"
        )

    @property
    def at_end(self) -> bool:
        """Whether the reader is on the last page, scrolled to its bottom."""
        view = self.query_one("#read", VerticalScroll)
        return self.page == len(self.pages) - 1 and view.scroll_y >= view.max_scroll_y

    def action_close(self) -> None:
        """Back to the review screen, remembering whether the item was read to its end."""
        self.reached_end = self.reached_end or self.at_end
        super().action_close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Page keys only where there is a page to turn to."""
        if action == "turn":
            step = parameters[0]
            assert isinstance(step, int)
            return 0 <= self.page + step < len(self.pages)
        return True

    def action_turn(self, step: int) -> None:
        """The next (1) or previous (-1) page."""
        if 0 <= self.page + step < len(self.pages):
            self.page += step
            self._show()
            self.refresh_bindings()
