"""From an item's judge calls to its verdicts, each with the trail that produced it.

Input: the planned calls of one judge for one item and their stored outcomes (only ``ok``
samples count; ``failed`` samples are listed in the trail and never vote). Output: one
:class:`VerdictOut` per unit, following :mod:`judging.protocol.rules` exactly.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from medjudge.judging.protocol.plan import CallSpec
from medjudge.judging.protocol.replies import MATCH_VALUES
from medjudge.kinds.match import CRITERION as MATCH_CRITERION
from medjudge.kinds.match import SUB_CRITERION as SUBMATCH_CRITERION
from medjudge.store.items import Item, Unit
from medjudge.store.kinds import ItemKind
from medjudge.store.settings import StudySettings

from . import rules as protocol


@dataclass(frozen=True)
class Outcome:
    """A stored call result."""

    status: str
    parsed: Any
    error: str | None = None


@dataclass
class VerdictOut:
    """A resolved verdict for one unit."""

    unit_id: int
    value: str | None
    reason: str
    trail: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``ok`` or ``missing`` (no valid sample)."""
        return "ok" if self.value is not None else "missing"


def _samples(
    calls: list[CallSpec], outcomes: dict[str, Outcome]
) -> tuple[list[tuple[CallSpec, Any]], list[dict[str, Any]]]:
    valid, failed = [], []
    for c in sorted(calls, key=lambda c: c.sample):
        o = outcomes.get(c.key)
        if o is not None and o.status == "ok":
            valid.append((c, o.parsed))
        else:
            failed.append(
                {
                    "key": c.key,
                    "sample": c.sample,
                    "error": o.error if o else "not run",
                    "status": o.status if o else None,
                }
            )
    return valid, failed


def resolve_item(
    item: Item, calls: list[CallSpec], outcomes: dict[str, Outcome], settings: StudySettings
) -> list[VerdictOut]:
    """Verdicts of one judge for one item.

    Args:
        item: the item.
        calls: every planned call of this judge for the item.
        outcomes: call key → stored outcome (keys missing here count as failed).
        settings: the study settings (criteria, null verdicts).
    """
    by_task: dict[str, list[CallSpec]] = defaultdict(list)
    for c in calls:
        by_task[c.task].append(c)
    if item.kind == ItemKind.pairwise:
        return _pairwise(item, by_task, outcomes, settings)
    if item.kind == ItemKind.statements:
        return _statements(item, by_task, outcomes)
    if item.kind == ItemKind.match:
        return _match(item, by_task, outcomes)
    return _rating(item, by_task.get("rating", []), outcomes, settings)


def _pairwise(
    item: Item,
    by_task: dict[str, list[CallSpec]],
    outcomes: dict[str, Outcome],
    settings: StudySettings,
) -> list[VerdictOut]:
    orders = {o: _samples(by_task.get(f"pairwise/{o}", []), outcomes) for o in ("AB", "BA")}
    out = []
    for crit in settings.criteria_for("pairwise"):
        trail: dict[str, Any] = {
            "protocol": "pairwise AB/BA majority",
            "criterion": crit.name,
            "null_verdict": crit.null_verdict,
            "orders": {},
        }
        per_order: dict[str, str | None] = {}
        reasons: list[tuple[str, str, str]] = []
        for order, (valid, failed) in orders.items():
            shown = [p[crit.name]["verdict"] for _, p in valid]
            votes = shown if order == "AB" else [protocol.unswap(v) for v in shown]
            result = protocol.order_majority(votes, crit.null_verdict)
            per_order[order] = result.verdict
            trail["orders"][order] = {
                "calls": [c.key for c, _ in valid],
                "votes": votes,
                "shown_votes": shown,
                "reasons": [p[crit.name]["reason"] for _, p in valid],
                "failed": failed,
                "verdict": result.verdict,
                "rule": result.rule,
                "samples_disagreed": result.disagreed,
            }
            reasons += [
                (order, v, p[crit.name]["reason"]) for v, (_, p) in zip(votes, valid, strict=True)
            ]
        rec = protocol.reconcile(per_order["AB"], per_order["BA"], crit.null_verdict)
        trail.update(
            verdict=rec.verdict, rule=rec.rule, position_inconsistent=rec.position_inconsistent
        )
        out.append(
            VerdictOut(
                item.unit_for(crit.name).id, rec.verdict, _pick_reason(reasons, rec.verdict), trail
            )
        )
    return out


def _pick_reason(reasons: list[tuple[str, str, str]], verdict: str | None) -> str:
    """The reason of the first sample that voted for the final verdict (else the first one)."""
    for order, vote, reason in reasons:
        if vote == verdict and reason:
            return f"[{order}] {reason}"
    return f"[{reasons[0][0]}] {reasons[0][2]}" if reasons else ""


def _statements(
    item: Item, by_task: dict[str, list[CallSpec]], outcomes: dict[str, Outcome]
) -> list[VerdictOut]:
    out = []
    for st in item.statements:
        unit = item.unit_for("entailment", st.id)
        trail: dict[str, Any] = {"statement": st.position}
        if f"nli/{st.id}" in by_task:
            valid, failed = _samples(by_task[f"nli/{st.id}"], outcomes)
            labels = [p["label"] for _, p in valid]
            reasons = [p["reason"] for _, p in valid]
            trail.update(
                protocol="3-way NLI majority", calls=[c.key for c, _ in valid], failed=failed
            )
        else:
            ent_valid, ent_failed = _samples(by_task.get(f"kqa_entails/{st.id}", []), outcomes)
            con_valid, con_failed = _samples(by_task.get(f"kqa_contradicts/{st.id}", []), outcomes)
            ent = {c.sample: p for c, p in ent_valid}
            con = {c.sample: p for c, p in con_valid}
            paired = sorted(set(ent) & set(con))
            labels = [protocol.kqa_label(ent[s]["answer"], con[s]["answer"]) for s in paired]
            reasons = [
                con[s]["reason"] if con[s]["answer"] == "yes" else ent[s]["reason"] for s in paired
            ]
            trail.update(
                protocol="K-QA entails/contradicts pair, majority",
                calls=[c.key for c, _ in ent_valid + con_valid],
                failed=ent_failed + con_failed,
                pairs=[
                    {"sample": s, "entails": ent[s]["answer"], "contradicts": con[s]["answer"]}
                    for s in paired
                ],
            )
        result = protocol.statement_majority(labels)
        trail.update(
            votes=labels,
            reasons=reasons,
            verdict=result.verdict,
            rule=result.rule,
            samples_disagreed=result.disagreed,
        )
        reason = next(
            (r for lab, r in zip(labels, reasons, strict=True) if lab == result.verdict), ""
        )
        out.append(VerdictOut(unit.id, result.verdict, reason, trail))
    return out


def _rating(
    item: Item, calls: list[CallSpec], outcomes: dict[str, Outcome], settings: StudySettings
) -> list[VerdictOut]:
    valid, failed = _samples(calls, outcomes)
    out = []
    for crit in settings.criteria_for("rating"):
        values = [p[crit.name]["value"] for _, p in valid]
        reasons = [p[crit.name]["reason"] for _, p in valid]
        value: str | None
        if crit.options:
            chosen = protocol.options_majority(values)
            value = None if chosen is None else (",".join(chosen) or "-")
            rule = "options named by a strict majority of samples"
        else:
            med = protocol.rating_median(values)
            value = None if med is None else str(med)
            rule = "median of samples (lower median when even)"
        trail = {
            "protocol": "rating",
            "criterion": crit.name,
            "calls": [c.key for c, _ in valid],
            "failed": failed,
            "votes": values,
            "reasons": reasons,
            "verdict": value,
            "rule": rule if value is not None else "missing",
            "samples_disagreed": len({str(v) for v in values}) > 1,
        }
        out.append(
            VerdictOut(item.unit_for(crit.name).id, value, reasons[0] if reasons else "", trail)
        )
    return out


def _match(
    item: Item, by_task: dict[str, list[CallSpec]], outcomes: dict[str, Outcome]
) -> list[VerdictOut]:
    """The prediction's score and each sub-answer's: the median of the samples' scores (the
    lower median for an even count, as for ratings)."""
    units: list[tuple[Unit, str, int | None]] = [(item.unit_for(MATCH_CRITERION), "match", None)]
    units += [
        (item.unit_for(SUBMATCH_CRITERION, st.id), f"match/{st.id}", st.position)
        for st in item.statements
    ]
    out = []
    for unit, task, position in units:
        valid, failed = _samples(by_task.get(task, []), outcomes)
        scores = [p["score"] for _, p in valid]
        reasons = [p["reason"] for _, p in valid]
        med = protocol.rating_median([float(s) for s in scores])
        value = None if med is None else MATCH_VALUES[med]
        trail = {
            "protocol": "match",
            "criterion": unit.criterion,
            "subquestion": position,
            "calls": [c.key for c, _ in valid],
            "failed": failed,
            "votes": scores,
            "reasons": reasons,
            "verdict": value,
            "rule": "median of samples (lower median when even)"
            if value is not None
            else "missing",
            "samples_disagreed": len(set(scores)) > 1,
        }
        reason = next((r for s, r in zip(scores, reasons, strict=True) if s == value), "")
        out.append(VerdictOut(unit.id, value, reason, trail))
    return out
