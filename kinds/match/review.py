"""How match items (MedRGB) are shown: the question, the model's prediction beside the ground
truth, and the sub-questions with their references and the model's answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from ..review_facet import ReviewFacet, Shown
from ..shown import lit
from .model import KIND

if TYPE_CHECKING:
    from medjudge.store.items import Item, Statement


class MatchFacet(ReviewFacet):
    """A prediction, its ground truth and the sub-questions."""

    def answers(self, item: Item, decline_phrases: tuple[str, ...] = ()) -> list[Shown]:
        """The prediction (a refusal hinted at) and the ground truth with its options."""
        shown = super().answers(item, decline_phrases)
        truth = lit(str(item.data.get("ground_truth", "")))
        options = item.data.get("options") or {}
        if options:
            truth.append("\n\nOptions:", "dim")
            for letter, text in options.items():
                truth.append("\n")
                truth.append_text(lit(f"{letter}. {text}"))
        return [*shown, Shown("Ground truth", truth)]

    def badge(self, item: Item, stmt: Statement, number: int, conceal: bool) -> Text:
        """``sub``."""
        return Text("sub ", end="")

    def listed_body(self, item: Item, stmt: Statement, number: int) -> Text:
        """The sub-question, its reference and the model's answer to it."""
        subs = item.data.get("subquestions", [])
        sub = subs[number - 1] if 0 < number <= len(subs) else {}
        body = lit(stmt.text)
        body.append("\nreference ", "dim")
        body.append_text(lit(sub.get("reference", "")))
        body.append("\nanswer    ", "dim")
        body.append_text(lit(sub.get("prediction", "")))
        return body


FACET = MatchFacet(KIND, max_answers=2, answer_title="Prediction (the model's answer)")
