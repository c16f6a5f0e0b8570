"""How statements items are shown: the question, the answer, and beside it the physicians'
statements, each with its Must / nice badge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ..review_facet import ReviewFacet
from .model import KIND

if TYPE_CHECKING:
    from medjudge.store.items import Item, Statement


class StatementsFacet(ReviewFacet):
    """Statements marked MUST (must-have) or nice (nice-to-have)."""

    def badge(self, item: Item, stmt: Statement, number: int, conceal: bool) -> Text:
        """``MUST`` or ``nice``."""
        out = Text(end="")
        if stmt.category == "must_have":
            out.append("MUST ", "bold reverse")
        else:
            out.append("nice ", "dim")
        out.append(" ")
        return out


FACET = StatementsFacet(KIND)
