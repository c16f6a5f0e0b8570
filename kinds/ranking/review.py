"""How ranking items are shown: the question, then every answer in the order this reviewer
sees it, numbered by its place ("Answer 2" is the one shown second): the keys ``1``–``5`` name
those places, best first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..review_facet import ReviewFacet, Shown
from ..shown import answer_text
from .model import KIND, MAX_ANSWERS

if TYPE_CHECKING:
    from medjudge.store.items import Item


class RankingFacet(ReviewFacet):
    """Two to five answers side by side (stacked on a narrow terminal)."""

    def answers(self, item: Item, decline_phrases: tuple[str, ...] = ()) -> list[Shown]:
        """Every answer in display order, titled by its place."""
        return [
            Shown(f"Answer {n}", answer_text(answer.text))
            for n, answer in enumerate(item.shown_answers(), start=1)
        ]

    def file_panes(self, item: Item) -> list[Shown]:
        """Question, then the answers in the file's order, by their letters."""
        asked = self.question(item)
        return ([asked] if asked else []) + [
            Shown(f"Answer {slot} (answers[{n}])", answer_text(item.answers[slot].text))
            for n, slot in enumerate(item.slots)
        ]


FACET = RankingFacet(KIND, max_answers=MAX_ANSWERS)
