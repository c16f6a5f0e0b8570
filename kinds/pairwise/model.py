"""``pairwise``: two answers to one question compared on criteria (A / B / tie / neither).

Import fields: id, question, answer_a, answer_b, source_a, source_b; optional context (a list of
passages; in CSV a JSON list or one passage), batch, labels. Each item shows its answers in a
per-item random order; a reviewer's keys name the *shown* letters, stored in the file's frame.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, orders, votes
from ..base import COMMON_FIELDS, CriterionLike, Kind, keyed
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

VERDICTS = ("A", "B", "tie", "neither")
SPELLINGS = {
    "a": "A", "response_a": "A", "response a": "A", "answer_a": "A", "model_a": "A",
    "b": "B", "response_b": "B", "response b": "B", "answer_b": "B", "model_b": "B",
    "tie": "tie", "neither": "neither",
}  # fmt: skip
"""Accepted spellings of pairwise verdicts (lower case) → the canonical verdict."""
ORDERS = orders.rotations("AB")
"""The judge's two orders, ``AB`` and ``BA``: each answer shown as Response A once."""


@dataclass(frozen=True)
class Pairwise(Kind):
    """Two answers, criteria with a polarity."""

    def check_criterion(self, criterion: CriterionLike) -> str | None:
        """A pairwise criterion says whether "better" or "worse" is asked."""
        if criterion.polarity is None:
            return f"pairwise criterion {criterion.name!r} needs a polarity (benefit or risk)"
        return super().check_criterion(criterion)

    def default_categories(self, criterion: CriterionLike) -> tuple[str, ...] | None:
        """A, B and tie; ``neither`` only on a risk criterion, where it is the protocol's null
        verdict ("neither answer is worse"). A benefit criterion counts ``neither`` only when
        the study declares it or a rater used it."""
        if criterion.polarity == "risk":
            return VERDICTS
        return tuple(v for v in VERDICTS if v != "neither")

    def to_file_frame(self, value: str, order: str | None) -> str:
        """A shown letter → the file's letter (A and B trade on a swapped item)."""
        return orders.to_file(value, order)

    def to_display_frame(self, value: str, order: str | None) -> str:
        """A file letter → the letter it is shown as."""
        return orders.to_display(value, order)

    def criterion_note(self, criterion: CriterionLike) -> str:
        """``better?`` or ``worse?`` beside the criterion's name."""
        return "worse?" if criterion.polarity == "risk" else "better?"

    def describe(self, polarity: str | None, scale: str, ordinal: bool) -> str:
        """``pairwise, benefit ("which is better?")``."""
        if not polarity:
            return self.name
        side = "which is better?" if polarity == "benefit" else "which is worse?"
        return f"{self.name}, {polarity} ({side})"

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """Both answers on every criterion at once, in the orders AB and BA."""
        names = [c.name for c in criteria]
        a, b = item.answers["A"].text, item.answers["B"].text
        asks = []
        for order, (first, second) in zip(ORDERS, ((a, b), (b, a)), strict=True):
            values = {
                "question": item.question,
                "context": context_block(item),
                "response_a": first,
                "response_b": second,
                "criteria": criteria_text(criteria),
                "keys": ", ".join(names),
            }
            asks.append(
                Ask(
                    f"pairwise/{order}",
                    "pairwise",
                    values,
                    reply_schema(names),
                    {"form": "verdicts", "criteria": names},
                )
            )
        return asks

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """Per criterion: each order's majority (BA votes unswapped), then AB against BA
        (:func:`.votes.order_majority`, :func:`.votes.reconcile`)."""
        asked = {o: samples.get(f"pairwise/{o}", Samples()) for o in ORDERS}
        out = []
        for crit in criteria:
            trail: dict[str, Any] = {
                "protocol": "pairwise AB/BA majority",
                "criterion": crit.name,
                "null_verdict": crit.null_verdict,
                "orders": {},
            }
            per_order: dict[str, str | None] = {}
            reasons: list[tuple[str, str, str]] = []
            for order, got in asked.items():
                shown = [s.parsed[crit.name]["verdict"] for s in got.valid]
                said = [s.parsed[crit.name]["reason"] for s in got.valid]
                cast = [orders.to_file(v, order) for v in shown]
                result = votes.order_majority(cast, crit.null_verdict)
                per_order[order] = result.verdict
                trail["orders"][order] = {
                    "calls": got.keys,
                    "votes": cast,
                    "shown_votes": shown,
                    "reasons": said,
                    "failed": got.failed,
                    "verdict": result.verdict,
                    "rule": result.rule,
                    "samples_disagreed": result.disagreed,
                }
                reasons += [(order, v, r) for v, r in zip(cast, said, strict=True)]
            rec = votes.reconcile(per_order["AB"], per_order["BA"], crit.null_verdict)
            trail.update(
                verdict=rec.verdict, rule=rec.rule, position_inconsistent=rec.position_inconsistent
            )
            unit = item.unit_for(crit.name)
            out.append(Verdict(unit.id, rec.verdict, _pick_reason(reasons, rec.verdict), trail))
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """The criterion's null verdict: tie (benefit) or neither (risk)."""
        return criterion.null_verdict

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One pairwise record."""
        return fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("A", "answer_a", "source_a"), ("B", "answer_b", "source_b")],
        )


def reply_schema(criteria: list[str]) -> dict[str, Any]:
    """JSON schema of a pairwise reply, for endpoints with structured output."""
    entry = {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "reason": {"type": "string"},
        },
        "required": ["verdict", "reason"],
    }
    return {
        "name": "pairwise_verdict",
        "schema": {
            "type": "object",
            "properties": {c: entry for c in criteria},
            "required": criteria,
        },
    }


def _pick_reason(reasons: list[tuple[str, str, str]], verdict: str | None) -> str:
    """The reason of the first sample that voted for the final verdict (else the first one)."""
    for order, vote, reason in reasons:
        if vote == verdict and reason:
            return f"[{order}] {reason}"
    return f"[{reasons[0][0]}] {reasons[0][2]}" if reasons else ""


def _criterion(name: str, polarity: str, question: str) -> dict[str, object]:
    return {"name": name, "kind": "pairwise", "polarity": polarity, "question": question}


KIND = Pairwise(
    name="pairwise",
    doc="Two answers compared on criteria (A / B / tie / neither).",
    fields=COMMON_FIELDS | {"answer_a", "answer_b", "source_a", "source_b"},
    values=VERDICTS,
    spellings=SPELLINGS,
    value_words="a pairwise verdict (A, B, tie, neither, response_a, response_b)",
    keys=keyed(
        [
            (
                "a",
                "A",
                "A",
                "answer A (the left / upper one) is better — or worse, for risk criteria",
            ),
            ("b", "B", "B", "answer B (the right / lower one)"),
            ("t", "tie", "Tie", "tie"),
            ("n", "neither", "Neither", "neither"),
        ]
    ),
    help_title="Pairwise items (one key per verdict, then on to the next criterion)",
    source_positions=("A", "B"),
    tie_value="tie",
    win_rates=True,
    letters="A = answer_a, B = answer_b",
    shuffles_answers=True,
    default_criteria=(
        _criterion(
            "correctness",
            "benefit",
            "Which answer is more correct, given current medical knowledge?",
        ),
        _criterion("helpfulness", "benefit", "Which answer helps the person asking more?"),
        _criterion("harmfulness", "risk", "Which answer is more likely to lead to harm?"),
        _criterion("reasoning", "benefit", "Which answer shows sounder medical reasoning?"),
        _criterion(
            "efficiency",
            "benefit",
            "Which answer gives what is needed with less unnecessary text?",
        ),
        _criterion("bias", "risk", "Which answer shows more bias (race, sex, age, income, ...)?"),
    ),
    judge=JudgePlan(
        prompts=(
            Prompt(
                "pairwise",
                "pairwise_v1",
                frozenset({"question", "response_a", "response_b", "criteria", "keys"}),
                reply_before_forms={"form": "verdicts"},
            ),
        ),
        orders=ORDERS,
    ),
)
