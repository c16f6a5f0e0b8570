"""``rating``: a candidate explanation of a multiple-choice case rated on Likert scales, and
which options it justifies (completeness: a set of option letters) — JAMA Clinical Challenge /
Medbullets.

Import fields: id, question (the case), options ({letter: text}), correct (a letter),
explanation, source; optional context, batch, labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, votes
from ..base import COMMON_FIELDS, CriterionLike, Kind, ValueKey
from ..judged import (
    Ask,
    ItemLike,
    JudgePlan,
    Prompt,
    Samples,
    UnitLike,
    Verdict,
    context_block,
    criteria_text,
)

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

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """Every criterion of the explanation in one call."""
        options: dict[str, str] = item.data.get("options", {})
        values = {
            "question": item.question,
            "context": context_block(item),
            "options": "\n".join(f"{k}. {v}" for k, v in options.items()),
            "correct": str(item.data.get("correct", "")),
            "explanation": item.answers["explanation"].text,
            "criteria": criteria_text(criteria),
            "keys": ", ".join(c.name for c in criteria),
        }
        scales = {c.name: c.scale for c in criteria}
        reply = {"form": "ratings", "scales": scales, "options": list(options)}
        return [Ask("rating", "rating", values, reply_schema(criteria, list(options)), reply)]

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """A scale: the median of the samples (the lower one for an even count); the option
        set: each option a strict majority of samples named."""
        got = samples.get("rating", Samples())
        out = []
        for crit in criteria:
            values = [s.parsed[crit.name]["value"] for s in got.valid]
            reasons = [s.parsed[crit.name]["reason"] for s in got.valid]
            value: str | None
            if crit.options:
                chosen = votes.options_majority(values)
                value = None if chosen is None else (",".join(chosen) or "-")
                rule = "options named by a strict majority of samples"
            else:
                med = votes.rating_median(values)
                value = None if med is None else str(med)
                rule = "median of samples (lower median when even)"
            trail = {
                "protocol": "rating",
                "criterion": crit.name,
                "calls": got.keys,
                "failed": got.failed,
                "votes": values,
                "reasons": reasons,
                "verdict": value,
                "rule": rule if value is not None else "missing",
                "samples_disagreed": len({str(v) for v in values}) > 1,
            }
            unit = item.unit_for(crit.name)
            out.append(Verdict(unit.id, value, reasons[0] if reasons else "", trail))
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """Never asked: rating items have no panel."""
        raise NotImplementedError("rating items have no panel")

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


def reply_schema(criteria: Sequence[CriterionLike], options: list[str]) -> dict[str, Any]:
    """JSON schema of a rating reply."""
    props: dict[str, Any] = {}
    for c in criteria:
        value: dict[str, Any]
        if c.options:
            value = {"type": "array", "items": {"type": "string", "enum": options}}
        else:
            assert c.scale is not None
            value = {"type": "integer", "minimum": c.scale[0], "maximum": c.scale[1]}
        props[c.name] = {
            "type": "object",
            "properties": {"value": value, "reason": {"type": "string"}},
            "required": ["value", "reason"],
        }
    return {
        "name": "rating",
        "schema": {"type": "object", "properties": props, "required": [c.name for c in criteria]},
    }


KIND = Rating(
    name="rating",
    doc="An explanation rated on Likert scales and option completeness.",
    fields=COMMON_FIELDS | {"options", "correct", "explanation", "source"},
    source_positions=("explanation",),
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
    judge=JudgePlan(
        prompts=(
            Prompt(
                "rating",
                "rating_v1",
                frozenset({"question", "options", "explanation", "criteria", "keys"}),
                frozenset({"context", "correct"}),
                reply_before_forms={"form": "ratings"},
            ),
        ),
        panel=False,
    ),
)
