"""The search box of the review screen (``/``): words in, matching items of the reviewer's own
queue out, enter on one goes there.

The search itself is :func:`medjudge.store.search.search` (FTS5), run on the main thread: on
10,000 items a query takes milliseconds. Snippets are study text, shown as ``Text`` pieces
after :func:`printable` (never markup, never escapes); answers are named as the reviewer sees
them (``A`` is the answer shown first) and never with their source.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from medjudge.store.literal import printable
from medjudge.store.search import BadQuery, Found, Hit

RESULTS = 50
"""How many matching items the box lists."""


class SearchScreen(ModalScreen[int | None]):
    """Ask for search words, list the matching items, answer the chosen item's id (None:
    closed without choosing)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, run: Callable[[str], Found], queue_size: int, *, query: str = "") -> None:
        """``run`` searches the reviewer's queue (``queue_size`` items) for a query."""
        super().__init__()
        self._run = run
        self._queue_size = queue_size
        self._query = query

    def compose(self) -> ComposeResult:
        """Title, input, results, hint."""
        with Vertical(id="search"):
            yield Static(Text("Search your items", style="bold"), id="prompt-title")
            yield Input(
                value=self._query,
                placeholder="words, or a phrase in double quotes",
                id="search-input",
            )
            yield Static("", id="search-status")
            yield OptionList(id="search-results")
            yield Static(
                Text(
                    'words (all must occur), "a phrase", OR, NOT, prefix*  ·  enter: search / '
                    "go to the item  ·  ↑ ↓ choose  ·  escape: cancel"
                ),
                id="prompt-hint",
            )

    def on_mount(self) -> None:
        """The input has the focus; no blinking cursor (each blink is a repaint over SSH)."""
        field = self.query_one(Input)
        field.cursor_blink = False
        self.query_one(OptionList).display = False
        field.focus()

    @on(Input.Submitted)
    def _search(self, event: Input.Submitted) -> None:
        status = self.query_one("#search-status", Static)
        results = self.query_one(OptionList)
        try:
            found = self._run(event.value)
        except BadQuery as exc:
            status.set_classes("error")
            status.update(Text(printable(str(exc))))
            results.display = False
            return
        status.set_classes("")
        results.set_options(_option(hit) for hit in found.hits)
        results.display = bool(found.hits)
        if not found.hits:
            status.update(Text(f"No item of your {self._queue_size} matches."))
            return
        more = f" (the best {len(found.hits)} shown)" if found.total > len(found.hits) else ""
        status.update(
            Text(f"{found.total} of your {self._queue_size} items match{more}; enter opens one.")
        )
        results.highlighted = 0
        results.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option_id is not None:
            self.dismiss(int(event.option_id))

    def action_cancel(self) -> None:
        """Close without going anywhere."""
        self.dismiss(None)


def _option(hit: Hit) -> Option:
    """One item: its id and kind, then where it matched with the words around it."""
    text = Text()
    text.append(printable(hit.ext_id), style="bold")
    text.append(f"  {hit.kind}")
    for m in hit.matches[:3]:
        text.append(f"\n  {m.label}: ", style="dim")
        for piece, matched in m.parts:
            text.append(re.sub(r"\s+", " ", printable(piece)), style="reverse" if matched else "")
    if len(hit.matches) > 3:
        text.append(f"\n  … {len(hit.matches) - 3} more places", style="dim")
    return Option(text, id=str(hit.item_id))
