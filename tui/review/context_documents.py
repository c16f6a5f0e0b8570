"""The review screen's context documents: :class:`ContextDocuments`, a collapsible list of an
item's retrieved passages (``x`` opens and closes it), hidden for an item without any.

It owns its part: given the item, it draws the documents, their kinds once they may be seen
and the reviewer's marks of a document the answer wrongly relied on.
"""

from __future__ import annotations

from textual.widgets import Collapsible, Static

from medjudge import kinds
from medjudge.store.items import Item
from medjudge.tui import render


class ContextDocuments(Collapsible):
    """An item's context documents, collapsed until asked for."""

    def __init__(self, *, id: str | None = None) -> None:
        """Collapsed and empty: the documents' text is literal, never markup."""
        super().__init__(
            Static("", markup=False, id="context-text"),
            title="Context documents (x)",
            id=id,
            collapsed=True,
        )

    def show(self, item: Item | None, *, show_kinds: bool, marked: set[int]) -> None:
        """Show ``item``'s documents (hidden when it has none); ``show_kinds``: with each
        document's kind (signal, noise …); ``marked``: the documents marked as wrongly relied
        on."""
        self.display = bool(item and item.context)
        if item is None or not item.context:
            return
        title = f"Context documents: {len(item.context)} (x to show or hide"
        self.title = title + (
            ", w marks one the answer wrongly relied on)"
            if kinds.get(item.kind).marks_documents
            else ")"
        )
        self.query_one("#context-text", Static).update(
            render.shown_part(render.context_text(item, kinds=show_kinds, marked=marked))
        )

    def toggle(self) -> None:
        """Open or close it (nothing when it is hidden)."""
        if self.display:
            self.collapsed = not self.collapsed
