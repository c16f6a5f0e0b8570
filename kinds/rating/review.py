"""How rating items are shown: the case with its lettered options and the correct one, then
the explanation being rated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..review_facet import ReviewFacet, Shown
from ..shown import answer_text, lit
from .model import KIND

if TYPE_CHECKING:
    from medjudge.store.items import Item
    from medjudge.store.json_types import JsonObject


class RatingFacet(ReviewFacet):
    """A case and an explanation, side by side: the case (with its options) is too long for
    the question pane above them."""

    def question(self, item: Item) -> None:
        """None: the case is a pane beside the explanation."""
        return None

    def case(self, item: Item) -> Shown:
        """The case: question, the lettered options and the correct option."""
        out = lit(item.question)
        options: JsonObject = item.data.get("options") or {}
        if options:
            out.append("\n")
            for letter, text in options.items():
                out.append("\n")
                out.append_text(lit(f"{letter}. ", "bold"))
                out.append_text(lit(text))
        correct = item.data.get("correct")
        if correct:
            out.append("\n\n")
            out.append("Correct option: ", "bold")
            out.append_text(lit(correct))
        return Shown("Case", out)

    def answers(self, item: Item, decline_phrases: tuple[str, ...] = ()) -> list[Shown]:
        """The case and the explanation."""
        return [
            self.case(item),
            Shown("Explanation", answer_text(item.answers["explanation"].text)),
        ]


FACET = RatingFacet(KIND, max_answers=2)
