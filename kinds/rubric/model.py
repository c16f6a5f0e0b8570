"""``rubric``: one answer marked against physician-written rubric criteria, each met or not
met (HealthBench, Arora et al. 2025).

Import fields: id, ``question`` or ``conversation`` (a list of ``{"role", "content"}``), answer,
source, rubric (a list of ``{"criterion": text, "points": number, "tags": [text]}``; points are
negative for harmful behaviour, never zero); optional context, batch, labels (a label names
its rubric criterion by number: ``{"rater": ..., "rubric": 0, "value": "met"}``).

An answer's score is the points of its met criteria over the points of its positive criteria,
clipped to [0, 1] (:func:`score`); judges mark each criterion on its own (one call per
criterion and sample), and the samples' strict majority decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, votes
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
    first_reason,
    label_reply,
)

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

VALUES = ("met", "not_met")
SPELLINGS = {
    "met": "met", "true": "met", "yes": "met",
    "not_met": "not_met", "not met": "not_met", "unmet": "not_met", "false": "not_met",
    "no": "not_met",
}  # fmt: skip
"""Accepted spellings of rubric marks (lower case) → the canonical mark."""
CRITERION = "rubric"
"""The one criterion of a rubric item; its units are the item's rubric criteria."""
CATEGORY = "rubric"
"""The category of a rubric item's listed entries."""
DATA_FIELD = "rubric"
"""The item data's list of each rubric criterion's ``{"points", "tags"}``, by position."""
ROLES = ("system", "user", "assistant")
_REPLY_SCHEMA = {
    "name": "rubric",
    "schema": {
        "type": "object",
        "properties": {"criteria_met": {"type": "boolean"}, "explanation": {"type": "string"}},
        "required": ["criteria_met", "explanation"],
    },
}


def score(marks: Sequence[tuple[str, float]]) -> float | None:
    """HealthBench's score of one answer: the points of the met criteria over the points of
    the positive criteria, clipped to [0, 1]; None without a positive criterion.

    Args:
        marks: each criterion's mark (``met`` / ``not_met``) and points.
    """
    possible = sum(p for _, p in marks if p > 0)
    if possible <= 0:
        return None
    achieved = sum(p for mark, p in marks if mark == "met")
    return min(1.0, max(0.0, achieved / possible))


def entries(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """An item's rubric criteria as imported: ``{"points", "tags"}`` in the item's order of
    its listed entries (the import's order, 0-based)."""
    raw = data.get(DATA_FIELD, [])
    return raw if isinstance(raw, list) else []


def entry_at(data: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The ``{"points", "tags"}`` of the item's listed entry at this index (0-based, the
    import's order; empty when there is none): no scan of the statements."""
    facts = entries(data)
    fact = facts[index] if 0 <= index < len(facts) else {}
    return fact if isinstance(fact, dict) else {}


def entry(item: ItemLike, statement_id: int | None) -> dict[str, Any]:
    """The ``{"points", "tags"}`` of the item's rubric criterion with this statement id
    (empty when the item has no such criterion)."""
    facts = entries(item.data)
    for i, st in enumerate(item.statements):
        if st.id == statement_id:
            return facts[i] if i < len(facts) else {}
    return {}


MAX_POINTS = 1000
"""The largest points a rubric criterion may carry, either sign (HealthBench's run from −10 to
10): sums of larger ones lose the small criteria to rounding or overflow to infinity (1e308
twice), so a score of 1.00 read as 0.00."""


def conservative(points: float) -> str:
    """The mark that credits the answer least: not met for a positive criterion, met for a
    negative (harmful behaviour) one."""
    return "not_met" if points > 0 else "met"


@dataclass(frozen=True)
class Rubric(Kind):
    """An answer and its rubric criteria."""

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """Each rubric criterion on its own, HealthBench's grader prompt."""
        answer = item.answers["answer"].text
        reply = label_reply(
            "criteria_met", SPELLINGS, "true or false (met or not met)", reason="explanation"
        )
        asks = []
        for st, entry in zip(item.statements, entries(item.data), strict=False):
            values = {
                "conversation": item.question,
                "context": context_block(item),
                "answer": answer,
                "criterion": st.text,
                "points": _points_text(entry.get("points", 0)),
            }
            asks.append(Ask(f"rubric/{st.id}", "rubric", values, _REPLY_SCHEMA, reply))
        return asks

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """Per rubric criterion: the strict majority of the samples' marks; without one, the
        mark that credits the answer least (:func:`conservative`)."""
        out = []
        points = [float(e.get("points", 0)) for e in entries(item.data)]
        for index, st in enumerate(item.statements):
            got = samples.get(f"rubric/{st.id}", Samples())
            marks = [s.parsed["criteria_met"] for s in got.valid]
            reasons = [s.parsed["reason"] for s in got.valid]
            fallback = conservative(points[index] if index < len(points) else 1)
            winner = votes.strict_majority(marks)
            value = winner if winner is not None else (fallback if marks else None)
            rule = (
                "majority"
                if winner is not None
                else ("no-majority→least credit" if marks else "missing")
            )
            trail = {
                "protocol": "rubric criterion, majority",
                "rubric": index,
                "calls": got.keys,
                "failed": got.failed,
                "votes": marks,
                "reasons": reasons,
                "verdict": value,
                "rule": rule,
                "samples_disagreed": len(set(marks)) > 1,
            }
            unit = item.unit_for(CRITERION, st.id)
            out.append(Verdict(unit.id, value, first_reason(marks, reasons, value), trail))
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """Judges who split give the mark that credits the answer least."""
        return conservative(float(entry(item, unit.statement_id).get("points", 1)))

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One HealthBench-style record: a question or conversation, an answer, a rubric."""
        question = _question(rec)
        listed: list[tuple[str, str]] = []
        facts: list[dict[str, Any]] = []
        raw = fields.json_list(rec, "rubric")
        if not raw:
            raise rec.problem("an item needs at least one rubric criterion", "rubric")
        for i, entry in enumerate(raw):
            where = f"rubric[{i}]"
            if not isinstance(entry, dict):
                raise rec.problem(
                    'expected {"criterion": ..., "points": ..., "tags": [...]}', where
                )
            text = entry.get("criterion")
            if not isinstance(text, str) or not text.strip():
                raise rec.problem("needs a text", f"{where}.criterion")
            points = entry.get("points")
            if (
                isinstance(points, bool)
                or not isinstance(points, (int, float))
                or not math.isfinite(points)
                or points == 0
                or abs(points) > MAX_POINTS
            ):
                raise rec.problem(
                    f"points must be a number other than 0 between -{MAX_POINTS:,} and "
                    f"{MAX_POINTS:,} (negative for harmful behaviour), not {points!r}",
                    f"{where}.points",
                )
            tags = entry.get("tags", [])
            if not isinstance(tags, list) or not all(
                isinstance(t, str) and t.strip() for t in tags
            ):
                raise rec.problem("expected a list of texts", f"{where}.tags")
            listed.append((text.strip(), CATEGORY))
            facts.append({"points": points, "tags": [t.strip() for t in tags]})
        data: dict[str, Any] = {DATA_FIELD: facts}
        if question is not None:
            data["conversation"] = question[1]
        out = fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("answer", "answer", "source")],
            statements=listed,
            data=data,
            question=None if question is None else question[0],
        )
        return out


def _question(rec: Record) -> tuple[str, list[dict[str, str]]] | None:
    """A ``conversation`` as the question's text (one ``role: content`` paragraph a turn) and
    its turns; None when the record has a plain ``question`` instead."""
    if rec.data.get("conversation") in (None, "", []):
        if rec.text("question", required=False) is None:
            raise rec.problem("needs a question or a conversation", "question")
        return None
    turns = []
    for i, turn in enumerate(fields.json_list(rec, "conversation")):
        where = f"conversation[{i}]"
        if not isinstance(turn, dict):
            raise rec.problem('expected {"role": ..., "content": ...}', where)
        role = str(turn.get("role", "")).strip().lower()
        if role not in ROLES:
            raise rec.problem(f"role must be one of {', '.join(ROLES)}", f"{where}.role")
        content = turn.get("content")
        if not isinstance(content, str) or not content.strip():
            raise rec.problem("needs a text", f"{where}.content")
        turns.append({"role": role, "content": content})
    text = "\n\n".join(f"{t['role']}: {t['content']}" for t in turns)
    return text, turns


def _points_text(points: object) -> str:
    return f"{points:+g}" if isinstance(points, (int, float)) else str(points)


KIND = Rubric(
    name="rubric",
    doc="One answer marked against rubric criteria with points: met / not met (HealthBench).",
    fields=COMMON_FIELDS | {"answer", "source", "rubric", "conversation"},
    values=VALUES,
    spellings=SPELLINGS,
    value_words="met or not_met",
    keys=keyed(
        [
            ("y", "met", "Met", "the answer meets the rubric criterion"),
            ("n", "not_met", "Not met", "the answer does not meet it"),
        ]
    ),
    help_title="Rubric items (one key per rubric criterion, then on to the next)",
    help_extra=(("", "points show after your marks when the study hides them (--hide-points)"),),
    listed_criterion=CRITERION,
    listed_field="rubric",
    item_criteria=False,
    listed_name="rubric criterion",
    listed_title="Rubric",
    lists_entries=True,
    default_criteria=(
        {
            "name": CRITERION,
            "kind": "rubric",
            "question": "Does the answer meet this rubric criterion?",
        },
    ),
    judge=JudgePlan(
        prompts=(
            Prompt(
                "rubric",
                "rubric_v1",
                frozenset({"conversation", "answer", "criterion"}),
                frozenset({"context", "points"}),
                keyed=False,
            ),
        )
    ),
)
