"""The adjudication queue: every unit where raters disagree, by kind of disagreement.

Kinds (a unit may have several):

- ``reviewer_vs_reviewer``: two or more reviewers labelled it differently.
- ``reviewer_vs_judge``: a reviewer's label differs from a judge's current verdict.
- ``judge_vs_judge``: two judge models (panels aside) reached different verdicts.
- ``position_inconsistency``: a judge's AB and BA orders disagreed.
- ``samples_disagreed``: a judge's samples disagreed within an order (or within a prompt).
- ``failed_samples``: a judge had failed samples for it, or no verdict at all (missing).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, TypedDict

from medjudge import kinds as item_kinds
from medjudge.judging.analysis.queue_kinds import KINDS, DisagreementKind  # noqa: E402, F401
from medjudge.store import reads
from medjudge.store.adjudications import reference_labels, unit_adjudications
from medjudge.store.json_types import JsonObject
from medjudge.store.judgments import call_rows
from medjudge.store.study import Study


@dataclass
class Disagreement:
    """One unit in the queue."""

    unit_id: int
    item_id: int
    item: str
    item_kind: str
    criterion: str
    statement: int | None
    sources: list[str]
    kinds: list[str]
    votes: dict[str, str | None] = field(default_factory=dict)
    reviewers: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    split: float = 0.0
    """How split the votes are: 1 − (largest share); 0 when all agree."""
    reference: str | None = None
    """The adjudicated value, if any."""

    entry: int | None = None
    """A listed entry's number on its item (from 1, as the review app numbers them)."""

    @property
    def where(self) -> str:
        """``item/criterion`` or ``item/<entry> N`` in the kind's words (``s0/statement 2``,
        ``m0/sub-question 1``), numbered from 1 as in the app."""
        if self.statement is None:
            return f"{self.item}/{self.criterion}"
        name = item_kinds.get(self.item_kind).listed_name
        return f"{self.item}/{name} {self.entry if self.entry is not None else '?'}"


def _failed(trail: dict[str, Any]) -> bool:
    if trail.get("verdict") is None and trail.get("source") != "import":
        return True
    if trail.get("failed"):
        return True
    return any(o.get("failed") for o in trail.get("orders", {}).values())


def _samples_disagreed(trail: dict[str, Any]) -> bool:
    if trail.get("samples_disagreed"):
        return True
    return any(o.get("samples_disagreed") for o in trail.get("orders", {}).values())


def queue(
    study: Study,
    *,
    kind: str | None = None,
    criterion: str | None = None,
    source: str | None = None,
    reviewer: str | None = None,
    unresolved_only: bool = False,
) -> list[Disagreement]:
    """Every disagreement, most split first.

    Args:
        study: the open study.
        kind: only this kind (see :data:`KINDS`).
        criterion: only this criterion (``entailment`` for statements).
        source: only units of items with an answer from this model.
        reviewer: only units this reviewer labelled.
        unresolved_only: leave out units that already have an adjudication.
    """
    sources = reads.answer_sources(study)
    meta: dict[int, dict[str, Any]] = {
        u.id: {
            "item_id": u.item_id,
            "item": u.ext_id,
            "kind": u.kind,
            "criterion": u.criterion,
            "statement": u.statement_position,
            "sources": sorted(set(sources.get(u.item_id, {}).values()) - {""}),
        }
        for u in reads.unit_rows(study)
    }
    # each listed entry's number on its item (1-based, as the review app numbers them): the
    # importer numbers an item's entries on from its per-item criteria, without gaps
    first: dict[int, int] = {}
    for info in meta.values():
        if info["statement"] is not None:
            at = info["statement"]
            first[info["item_id"]] = min(first.get(info["item_id"], at), at)
    for info in meta.values():
        at = info["statement"]
        info["entry"] = None if at is None else at - first[info["item_id"]] + 1
    humans: dict[int, dict[str, str]] = defaultdict(dict)
    judges: dict[int, dict[str, str]] = defaultdict(dict)
    for label in reads.current_labels(study):
        if label.rater_kind == "human":
            humans[label.unit_id][label.rater] = label.value
        elif not label.rater.startswith("panel:"):
            judges[label.unit_id][label.rater] = label.value
    trails: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    for v in reads.current_verdicts(study):
        if not v.rater.startswith("panel:"):
            trails[v.unit_id][v.rater] = v.trail
    refs = reference_labels(study)
    out: list[Disagreement] = []
    for unit_id in set(humans) | set(judges) | set(trails):
        h, j, t = humans.get(unit_id, {}), judges.get(unit_id, {}), trails.get(unit_id, {})
        kinds = []
        if len(set(h.values())) > 1:
            kinds.append("reviewer_vs_reviewer")
        if any(hv != jv for hv in h.values() for jv in j.values()):
            kinds.append("reviewer_vs_judge")
        if len(set(j.values())) > 1:
            kinds.append("judge_vs_judge")
        if any(tr.get("position_inconsistent") for tr in t.values()):
            kinds.append("position_inconsistency")
        if any(_samples_disagreed(tr) for tr in t.values()):
            kinds.append("samples_disagreed")
        if any(_failed(tr) for tr in t.values()):
            kinds.append("failed_samples")
        m = meta.get(unit_id)
        if not kinds or m is None:  # no disagreement, or a retired item's unit
            continue
        votes: dict[str, str | None] = {**h, **j}
        for name in t:
            votes.setdefault(name, None)
        counted = [v for v in votes.values() if v is not None]
        split = 1 - Counter(counted).most_common(1)[0][1] / len(counted) if counted else 1.0
        out.append(
            Disagreement(
                unit_id=unit_id,
                item_id=m["item_id"],
                item=m["item"],
                item_kind=m["kind"],
                criterion=m["criterion"],
                statement=m["statement"],
                entry=m["entry"],
                sources=m["sources"],
                kinds=kinds,
                votes=votes,
                reviewers=sorted(h),
                judges=sorted(set(j) | set(t)),
                split=round(split, 6),
                reference=refs.get(unit_id),
            )
        )
    out = [
        d
        for d in out
        if (kind is None or kind in d.kinds)
        and (criterion is None or d.criterion == criterion)
        and (source is None or source in d.sources)
        and (reviewer is None or reviewer in d.reviewers)
        and (not unresolved_only or d.reference is None)
    ]
    out.sort(key=need_order)
    return out


NEED: dict[str, int] = {
    DisagreementKind.reviewer_vs_reviewer: 0,
    DisagreementKind.reviewer_vs_judge: 1,
    DisagreementKind.judge_vs_judge: 2,
    DisagreementKind.position_inconsistency: 2,
    DisagreementKind.samples_disagreed: 2,
    DisagreementKind.failed_samples: 3,
}
"""How much a kind of disagreement needs a physician: reviewers who disagree first, then a
reviewer against a judge, then judges' own inconsistencies; failed judge samples last."""


def need_order(d: Disagreement) -> tuple[bool, int, float, int, int, str]:
    """The queue's order: units without a final label first; then by :data:`NEED` of the
    unit's most pressing kind; then the most split votes; then item order."""
    tier = min(NEED[k] for k in d.kinds)
    return (d.reference is not None, tier, -d.split, d.item_id, d.statement or 0, d.criterion)


def counts(entries: list[Disagreement]) -> dict[str, int]:
    """Number of units per kind (a unit with two kinds counts in both)."""
    c = Counter(k for d in entries for k in d.kinds)
    return {k: c.get(k, 0) for k in KINDS}


class ReviewerVote(TypedDict):
    """A reviewer's current label on a unit, with the notes and whether it changed after
    the reveal."""

    reviewer: str
    value: str | None
    note: str | None
    note_frame: str | None
    item_note: str | None
    item_note_frame: str | None
    changed_after_reveal: bool
    display_order: str | None
    item_note_display_order: str | None


class FailedSample(TypedDict):
    """The stored raw reply of a judge sample that never parsed."""

    raw: str | None
    error: str | None
    task: str
    sample: int


class JudgeVote(TypedDict):
    """A judge's current verdict on a unit with its trail (the stored JSON document)."""

    judge: str
    value: str | None
    reason: str | None
    trail: JsonObject
    failed_raw: dict[str, FailedSample]


class AdjudicationEntry(TypedDict):
    """One adjudication of a unit (the history keeps every one)."""

    value: str
    rationale: str | None
    rationale_frame: str | None
    actor: str
    at: str
    settles: list[str]


class UnitDetail(TypedDict):
    """Every vote on a unit, for the adjudicator (see :func:`unit_detail`)."""

    reviewers: list[ReviewerVote]
    judges: list[JudgeVote]
    adjudications: list[AdjudicationEntry]


def unit_detail(study: Study, unit_id: int) -> UnitDetail:
    """Every vote on a unit, for the adjudicator: reviewers' labels with notes (and the
    answer-letter frame each note was written in, :mod:`store.frames`) and whether they
    changed after the reveal, judges' verdicts with AB/BA per-sample votes and reasons, the raw
    replies of failed samples, and the adjudication history."""
    reviewers = [
        ReviewerVote(
            reviewer=v.reviewer,
            value=v.value,
            note=v.note,
            note_frame=v.note_frame,
            item_note=v.item_note,
            item_note_frame=v.item_note_frame,
            changed_after_reveal=v.changed_after_reveal,
            display_order=v.display_order,
            item_note_display_order=v.item_note_display_order,
        )
        for v in reads.unit_reviewer_votes(study, unit_id)
    ]
    judges: list[JudgeVote] = []
    for verdict in reads.current_verdicts(study, unit_id):
        trail = verdict.trail
        failed_keys = [
            f["key"] for o in trail.get("orders", {}).values() for f in o.get("failed", [])
        ]
        failed_keys += [f["key"] for f in trail.get("failed", [])]
        raw = (
            {
                c["key"]: FailedSample(
                    raw=c["raw"], error=c["error"], task=c["task"], sample=c["sample"]
                )
                for c in call_rows(study, failed_keys)
            }
            if failed_keys
            else {}
        )
        judges.append(
            JudgeVote(
                judge=verdict.rater,
                value=verdict.value,
                reason=verdict.reason,
                trail=trail,
                failed_raw=raw,
            )
        )
    adjudications = [
        AdjudicationEntry(
            value=a["value"],
            rationale=a["rationale"],
            rationale_frame=a["rationale_frame"],
            actor=a["actor"],
            at=a["at"],
            settles=json.loads(a["settles"]),
        )
        for a in unit_adjudications(study, unit_id)
    ]
    return UnitDetail(reviewers=reviewers, judges=judges, adjudications=adjudications)
