"""How pairwise items are shown: the question, then the two answers in the order this reviewer
sees them (display letters: "Answer A" is the one shown first); in the adjudication detail the
file's order, each answer named by its import field."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..review_facet import ReviewFacet, Shown
from ..shown import answer_text
from .model import KIND

if TYPE_CHECKING:
    from medjudge.store.items import Item


class PairwiseFacet(ReviewFacet):
    """Two answers side by side (stacked on a narrow terminal)."""

    def answers(self, item: Item, decline_phrases: tuple[str, ...] = ()) -> list[Shown]:
        """Both answers in display order, titled by their display letters."""
        return [
            Shown(f"Answer {letter}", answer_text(answer.text))
            for letter, answer in zip("AB", item.shown_answers(), strict=False)
        ]

    def file_panes(self, item: Item) -> list[Shown]:
        """Question, ``answer_a``, ``answer_b``."""
        asked = self.question(item)
        return ([asked] if asked else []) + [
            Shown(f"Answer {slot} (answer_{slot.lower()})", answer_text(item.answers[slot].text))
            for slot in item.slots
        ]


FACET = PairwiseFacet(KIND, max_answers=2)
