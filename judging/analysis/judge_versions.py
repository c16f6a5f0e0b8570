"""The report's judges section: every judge version side by side.

Per version (read-only, from the loaded study and the stored calls):

- identity: name, key, spec, parameters, templates (panels: members and rule);
- agreement with the reviewers' strict majority per criterion: Cohen's κ and Gwet's AC1
  (:func:`.views.two_stats`, the report's own), accuracy and, per verdict value, precision /
  recall / F1 with the majority as reference (:func:`judging.stats.classification`);
- position bias (pairwise, not panels), over (item, criterion) units whose AB and BA orders
  both reached a verdict: the share where AB ≠ BA, and over the order verdicts that chose an
  answer, the share where the answer shown first won (0.5: no preference), Wilson intervals;
- the reviewers' own position bias beside it (:func:`reviewer_position`): per reviewer and
  pooled, the share of decisive labels won by the answer the reviewer saw first, whenever the
  recorded orders vary (``settings --order per-reviewer``, or the per-item orders);
- self-consistency: the share of verdicts whose samples disagreed; failed samples (distinct
  calls whose reply never parsed);
- missing share; calls, tokens, cost, cost per item and summed latency of the calls its verdicts
  were built from (a call shared by two versions through the cache counts for both); wall time
  of the runs it took part in.

And judge-vs-judge agreement (κ, AC1, percent) for every pair of versions per criterion, and
each version's length bias and self-preference beside the physicians' (:mod:`.judge_biases`).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from medjudge import kinds
from medjudge.judging.analysis.comparison_records import record_label
from medjudge.judging.analysis.consistency import (
    NO_SAMPLES,
    ONE_SAMPLE,
    judge_consistency,
    share,
)
from medjudge.judging.analysis.judge_biases import DEFINITION as BIAS_DEFINITION
from medjudge.judging.analysis.judge_biases import judge_biases
from medjudge.judging.analysis.records import ConsistencyRow, Figure, record
from medjudge.judging.analysis.records_sections import (
    JudgesSection,
    ReviewerPosition,
    VersionPair,
    VersionScore,
    VersionVsMajority,
)
from medjudge.judging.analysis.study_data import MAJORITY, StudyData, categories_for
from medjudge.judging.analysis.views import two_stats
from medjudge.judging.stats.classification import LabelScores, classification_of_cells
from medjudge.store import reads
from medjudge.store.judge_versions import list_versions, run_seconds, verdict_call_totals
from medjudge.store.judgments import not_judged
from medjudge.store.reads import answer_words
from medjudge.store.study import Study

DEFINITIONS = [
    "Each judge version (provider, model, templates, samples, temperature, max tokens, "
    "statements protocol; a panel: its members and rule) is its own rater.",
    "Agreement with the reviewers' majority: over units where a strict majority of reviewers "
    "agree and the version has a verdict; κ, AC1, accuracy, precision, recall and F1 (per "
    "verdict, the majority as the reference) with the intervals of the statistics section.",
    "Position bias (pairwise): AB ≠ BA is the share of units whose two orders reached different "
    "verdicts; first shown wins is the share of order verdicts choosing an answer that chose "
    "the one shown first (0.5 = no preference). Units are (item, criterion) pairs, pooled over "
    "criteria; criteria of one item are not independent, so the Wilson intervals are narrow.",
    "Self-consistency: share of verdicts whose samples disagreed within an order, over the "
    "verdicts with two valid samples or more in an order (one sample per order: not measured).",
    "Calls, tokens, cost and latency: the stored calls the version's current verdicts were "
    "built from (a cached call shared by two versions counts for both); wall time: the judge "
    "runs it took part in.",
]


def _not_measured(params: dict[str, Any], recs: list[ConsistencyRow]) -> str:
    """Why a version's self-consistency has no figure: it drew one sample per order (its
    parameters say so, or no verdict had two valid samples), or no verdict had a sample."""
    samples = params.get("samples")
    if isinstance(samples, int) and samples <= 1:
        return ONE_SAMPLE
    reasons = {r.samples_disagreed.reason for r in recs if r.samples_disagreed}
    return ONE_SAMPLE if ONE_SAMPLE in reasons else NO_SAMPLES


def _version_score(s: LabelScores) -> VersionScore:
    """One verdict's precision, recall and F1, with the verdict's value (its label)."""
    label = record_label(s.label)
    return VersionScore(
        label=label,
        support=s.support,
        predicted=s.predicted,
        precision=Figure.of(s.precision),
        recall=Figure.of(s.recall),
        f1=Figure.of(s.f1),
        value=label,
    )


def _vs_majority(data: StudyData, judge: str, conf: float, seed: int) -> list[VersionVsMajority]:
    rows = []
    for criterion in data.criteria():
        if judge not in data.raters(criterion, "judge"):
            continue
        units = data.labelled_units(criterion)
        majority = data.column(criterion, MAJORITY, units)
        if not any(v is not None for v in majority):
            continue
        crit = data.criterion(criterion)
        stats = two_stats(
            majority,
            data.column(criterion, judge, units),
            categories_for(crit),
            crit.level if crit is not None else "nominal",
            confidence=conf,
        )
        scores = classification_of_cells(
            stats.confusion.cells, stats.confusion.categories, seed=seed, confidence=conf
        )
        rows.append(
            VersionVsMajority(
                criterion=criterion,
                n=stats.n,
                kappa=Figure.of(stats.cohen),
                ac1=Figure.of(stats.gwet_ac1),
                accuracy=Figure.of(stats.percent),
                macro_f1=Figure.of(scores.macro_f1),
                per_value=[_version_score(s) for s in scores.labels],
            )
        )
    return rows


def _position(data: StudyData, judge: str, conf: float) -> dict[str, Any]:
    both = differ = decisive = first = 0
    for unit_id, v in data.verdicts_of(judge).items():
        if v.facts.shape != "orders":
            continue
        item = data.units.item_of(unit_id)
        if item is None or not kinds.get(item.kind).two_orders:
            continue
        ab, ba = v.facts.ab, v.facts.ba
        if ab is not None and ba is not None:
            both += 1
            differ += ab != ba
        # AB shows answer A first; BA shows answer B first (votes are in the file's letters)
        for verdict, shown_first in ((ab, "A"), (ba, "B")):
            if verdict in ("A", "B"):
                decisive += 1
                first += verdict == shown_first
    return {
        "units": both,
        "ab_ne_ba": share(differ, both, conf, empty="no unit with both orders decided"),
        "first_shown_wins": share(first, decisive, conf, empty="no order verdict chose an answer"),
    }


REVIEWER_DEFINITION = (
    "Reviewers' position bias: among a reviewer's labels choosing an answer (A or B) whose "
    "display order was recorded by the review app, the share that chose the answer shown "
    "first (0.5 = no preference), per reviewer and pooled; shown when the orders reviewers saw "
    "vary (settings --order per-reviewer gives each reviewer their own order)."
)
"""Added to the definitions only when the figure is there (:func:`reviewer_position`)."""

POOLED = "all reviewers"
"""The pooled row of :func:`reviewer_position`."""


def reviewer_position(study: Study, data: StudyData, conf: float) -> list[ReviewerPosition] | None:
    """The reviewers' own position bias: per reviewer (by name) and pooled, among their current
    decisive labels (A or B) with a recorded display order, the share won by the answer shown
    first (Wilson interval, n). None when no order was recorded or every label was seen in
    the same order (then first shown and file letter cannot be told apart)."""
    orders: set[str] = set()
    counts: dict[str, list[int]] = {}
    for unit_id, reviewer, value, order in reads.seen_orders(study):
        if data.units.item_of(unit_id) is None:  # retired: in no figure
            continue
        orders.add(order)
        if value not in ("A", "B"):
            continue
        c = counts.setdefault(reviewer, [0, 0])
        c[0] += value == order[0]
        c[1] += 1
    if len(orders) < 2:
        return None
    empty = "no label chose an answer"
    rows = [
        {"reviewer": name, "first_shown_wins": share(first, n, conf, empty=empty)}
        for name, (first, n) in sorted(counts.items())
    ]
    first = sum(c[0] for c in counts.values())
    n = sum(c[1] for c in counts.values())
    rows.append({"reviewer": POOLED, "first_shown_wins": share(first, n, conf, empty=empty)})
    return [record(ReviewerPosition, r) for r in rows]


def judges_section(study: Study, data: StudyData, confidence: float = 0.95) -> JudgesSection:
    """Every judge version side by side, and judge-vs-judge agreement.

    Args:
        study: the open study (read only).
        data: its loaded labels and verdicts.
        confidence: interval level.

    Returns:
        ``definitions``, ``versions`` (one record per judge version, in registration order;
        judges imported with labels follow with ``key`` null) and ``pairs``.
    """
    stored = {v.name: v for v in list_versions(study)}
    names = list(stored) + sorted(  # (a judge with nothing stored is none: no key, no call)
        n
        for n, k in data.rater_kinds.items()
        if k == "judge" and n not in stored and data.verdicts_of(n)
    )
    consistency: dict[str, list[ConsistencyRow]] = {}
    for rec in judge_consistency(data, confidence):
        consistency.setdefault(rec.judge, []).append(rec)
    seconds = run_seconds(study)
    unjudged = not_judged(study)
    names += sorted(n for n in unjudged if n not in names)
    versions = []
    for name in names:
        v = stored.get(name)
        verdicts = data.verdicts_of(name)
        panel = bool(v and v.is_panel) or name.startswith("panel:")
        missing = sum(x.value is None for x in verdicts.values())
        recs = consistency.get(name, [])
        dis = [r.samples_disagreed for r in recs if r.samples_disagreed]
        totals = verdict_call_totals(study, name)
        items = len({f.item_id for u in verdicts if (f := data.units.item_of(u)) is not None})
        versions.append(
            {
                "name": name,
                "key": v.key if v else None,
                "short": v.short if v else "imported",
                "spec": v.spec if v else None,
                "panel": panel,
                "members": list(v.members) if v else [],
                "params": v.params if v else {},
                "templates": {t: x.get("template") for t, x in v.templates.items()} if v else {},
                "verdicts": len(verdicts),
                "items": items,
                "missing": share(missing, len(verdicts), confidence, empty="no verdicts"),
                "failed_samples": totals.failed if totals else None,
                "not_judged": sum(unjudged.get(name, {}).values()),
                "not_judged_why": unjudged.get(name, {}),
                "samples_disagreed": share(
                    sum(d.count for d in dis),
                    sum(d.n for d in dis),
                    confidence,
                    empty=_not_measured(v.params if v else {}, recs),
                ),
                "position": None if panel else _position(data, name, confidence),
                "calls": totals.calls if totals else None,
                "input_tokens": totals.input_tokens if totals else None,
                "output_tokens": totals.output_tokens if totals else None,
                "cost_usd": totals.cost_usd if totals else None,
                "cost_per_item": totals.cost_usd / items if totals and items else None,
                "latency_s": totals.latency_s if totals else None,
                "wall_s": seconds.get(name),
                "vs_majority": _vs_majority(data, name, confidence, study.settings.seed),
            }
        )
    pairs = []
    for a, b in combinations(names, 2):
        for criterion in data.criteria():
            judged = data.raters(criterion, "judge")
            if a not in judged or b not in judged:
                continue
            units = data.labelled_units(criterion)
            crit = data.criterion(criterion)
            stats = two_stats(
                data.column(criterion, a, units),
                data.column(criterion, b, units),
                categories_for(crit),
                crit.level if crit is not None else "nominal",
                confidence=confidence,
            )
            pairs.append(
                VersionPair(
                    a=a,
                    b=b,
                    criterion=criterion,
                    n=stats.n,
                    kappa=Figure.of(stats.cohen),
                    ac1=Figure.of(stats.gwet_ac1),
                    percent=Figure.of(stats.percent),
                )
            )
    biases = judge_biases(data, answer_words(study), confidence)
    own = reviewer_position(study, data, confidence)
    return record(
        JudgesSection,
        {
            "definitions": DEFINITIONS
            + ([REVIEWER_DEFINITION] if own is not None else [])
            + ([BIAS_DEFINITION] if biases else []),
            "versions": versions,
            "pairs": pairs,
            "biases": [],
        },
    ).model_copy(update={"biases": biases, "reviewer_position": own})  # records already
