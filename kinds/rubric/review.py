"""How rubric items are shown: the question, the answer, and the rubric's criteria, each with
its points (unless the study hides them until the reveal) and its tags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ..review_facet import ReviewFacet
from ..shown import lit
from .model import KIND, entry_at

if TYPE_CHECKING:
    from medjudge.store.items import Item, Statement


class RubricFacet(ReviewFacet):
    """Rubric criteria with points and tags."""

    def badge(self, item: Item, stmt: Statement, number: int, conceal: bool) -> Text:
        """The criterion's points (``?`` while concealed)."""
        points = entry_at(item.data, number - 1).get("points")
        out = Text(end="")
        if conceal or not isinstance(points, (int, float)):
            out.append("  ?", "dim")
        else:
            out.append(f"{points:>+3g}", "bold reverse" if points < 0 else "bold")
        out.append(" ")
        return out

    def listed_body(self, item: Item, stmt: Statement, number: int) -> Text:
        """The criterion and its tags."""
        body = lit(stmt.text)
        tags = entry_at(item.data, number - 1).get("tags") or []
        if tags:
            body.append("\n")
            body.append_text(lit(" · ".join(str(t) for t in tags), "dim"))
        return body


FACET = RubricFacet(KIND)
