"""``rating``: a candidate explanation of a multiple-choice case rated on Likert scales, and
which options it justifies (completeness: a set of option letters) — JAMA Clinical Challenge /
Medbullets.

Import fields: id, question (the case), options ({letter: text}), correct (a letter),
explanation, source; optional context, batch, labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import fields
from .base import COMMON_FIELDS, CriterionLike, JudgePlan, Kind, Pane, ValueKey

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings


@dataclass(frozen=True)
class Rating(Kind):
    """Scales and an option set, per criterion."""

    def check_criterion(self, criterion: CriterionLike) -> str | None:
        """A rating criterion has a scale or is the option set."""
        if not criterion.options and criterion.scale is None:
            return f"rating criterion {criterion.name!r} needs a scale or options=true"
        return super().check_criterion(criterion)

    def value_keys(self, criterion: CriterionLike) -> tuple[ValueKey, ...]:
        """The scale's digits (an option set is ticked letter by letter instead)."""
        if criterion.scale is None:
            return ()
        low, high = criterion.scale
        return tuple(ValueKey(str(v), str(v), f"Rate {v}") for v in range(low, high + 1) if v < 10)

    def possible_keys(self) -> tuple[ValueKey, ...]:
        """The digits 1–9 (a scale's keys)."""
        return tuple(ValueKey(str(v), str(v), f"Rate {v}") for v in range(1, 10))

    def key_hint(self, criterion: CriterionLike) -> str:
        """``1–5``, or how to tick options."""
        if criterion.scale is not None:
            return f"{criterion.scale[0]}–{criterion.scale[1]}"
        return super().key_hint(criterion)

    def describe(self, polarity: str | None, scale: str, ordinal: bool) -> str:
        """``rating, 1–5 scale`` or ``rating, options``."""
        return f"{self.name}, " + (f"{scale or 'ordinal'} scale" if ordinal else "options")

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One rating record (a case with options and a candidate explanation)."""
        clean = fields.options(rec, required=True)
        correct = rec.text("correct")
        if correct not in clean:
            raise rec.problem(
                f"{correct!r} is not one of the options ({', '.join(clean)})", "correct"
            )
        return fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("explanation", "explanation", "source")],
            data={"options": clean, "correct": correct},
        )


KIND = Rating(
    name="rating",
    doc="An explanation rated on Likert scales and option completeness.",
    fields=COMMON_FIELDS | {"options", "correct", "explanation", "source"},
    source_positions=("explanation",),
    panes=(Pane("case", "Case"), Pane("explanation", "Explanation")),
    key_group="Rate",
    help_title="Rating items",
    help_extra=(
        ("a–f", "tick or untick that option (completeness)"),
        ("space", "tick or untick the option under the cursor"),
        ("enter", "save the ticked options and go on"),
        ("1–5", "rate the current scale criterion"),
    ),
    default_criteria=(
        {
            "name": "completeness",
            "kind": "rating",
            "options": True,
            "question": "For which options does the explanation say why each is right or wrong?",
        },
        {
            "name": "correctness_rating",
            "kind": "rating",
            "scale": (1, 5),
            "question": "How correct is the explanation? (1 = wrong, 5 = fully correct)",
        },
        {
            "name": "relevance",
            "kind": "rating",
            "scale": (1, 5),
            "question": "How relevant is the explanation to the case? (1 = not, 5 = fully)",
        },
    ),
    judge=JudgePlan(template="rating"),
)
