"""Judge audit of figures per answer: each answer source's mean figure three ways (judge
only, physicians only, corrected by PPI++), and each pair of sources' difference.

An *answer* is one item with one answer (statements, rating, match, rubric items): its figure
from the judge's verdicts and from the reference labels (per unit: the latest adjudication,
else the reviewers' strict majority). The kinds supply the figures:

- ``scores`` kinds (rating scales, MedRGB match): the criterion's label as a number — a rating
  1–5, a match score 1 / 0.5 / 0 (:func:`score_answers`);
- ``rubric`` kinds: HealthBench's score of the answer, the points of its met rubric criteria
  over the points of its positive ones, clipped to [0, 1], given only when every rubric
  criterion has a mark (:func:`rubric_answers`);
- ``answers`` kinds (K-QA statements): comprehensiveness and hallucinations (:mod:`.audit_kqa`).

The corrected figure of a source is PPI++ over its answers in the sampled frame: the reference
figures of its sampled answers, the judge's on those and on its other answers. Two sources
answer different items, so their difference is of independent estimates (not paired):
``θ̂_A − θ̂_B`` with ``√(se_A² + se_B²)``. Answers declining to answer (abstentions, as the
report counts them) and answers without a judge figure are left out and counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from medjudge.judging.analysis.audit_figures import (
    Bounds,
    Vectors,
    means_three_ways,
    split_difference_three_ways,
)
from medjudge.judging.analysis.records_audit import AuditMeanDifference, AuditMeanRow
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.kinds.rubric import score as rubric_score
from medjudge.store.json_types import JsonObject


@dataclass(frozen=True)
class Answer:
    """One answer's figures (one per metric) from the judge and from the reference labels
    (None: no figure)."""

    item: int
    source: str
    judge: tuple[float, ...] | None
    reference: tuple[float, ...] | None
    declined: bool = False


@dataclass
class AnswersAudit:
    """The corrected figures of a sampled frame's answers, with what they rest on."""

    rows: list[AuditMeanRow] = field(default_factory=list)
    differences: list[AuditMeanDifference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    population: int = 0
    sampled: int = 0
    labelled: int = 0
    outside: int = 0


@dataclass(frozen=True)
class Wording:
    """How the notes name what an answer lacks."""

    no_judge: str = "without a verdict of {judge}"
    no_reference: str = "without a reference label yet"


def reference_column(data: StudyData, criterion: str, units: Sequence[int]) -> list[Hashable]:
    """The reference label per unit: the latest adjudication, else the reviewers' majority."""
    majority = data.column(criterion, MAJORITY, units)
    return [data.adjudications.get(u, m) for u, m in zip(units, majority, strict=True)]


def number(value: Hashable | None) -> float | None:
    """A label as a number (``4``, ``"0.5"``), or None (missing, or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(str(value))
    except ValueError:
        return None
    return x if np.isfinite(x) else None


def score_answers(data: StudyData, criterion: str, judge: str) -> list[Answer] | None:
    """Each answer's numeric label on a per-item criterion (a rating scale, a match score),
    by the judge and the reference; None when the judge's labels are not numbers (an option
    set)."""
    units = list(data.units_by_criterion.get(criterion, ()))
    judged = data.column(criterion, judge, units)
    if any(v is not None and number(v) is None for v in judged):
        return None
    out = []
    for u, jv, rv in zip(units, judged, reference_column(data, criterion, units), strict=True):
        info = data.units[u]
        j, r = number(jv), number(rv)
        out.append(
            Answer(
                info.item_id,
                info.sources[0] if info.sources else "",
                None if j is None else (j,),
                None if r is None else (r,),
                info.item_id in data.declined,
            )
        )
    return out


def rubric_answers(
    data: StudyData, criterion: str, judge: str, entries: Mapping[int, JsonObject]
) -> list[Answer]:
    """Each answer's rubric score (its units are its rubric criteria, ``entries`` their
    points), by the judge and by the reference, where every criterion has a mark."""
    units = list(data.units_by_criterion.get(criterion, ()))
    by_item: dict[int, list[int]] = defaultdict(list)
    for u in units:
        by_item[data.units[u].item_id].append(u)
    judged = dict(zip(units, data.column(criterion, judge, units), strict=True))
    reference = dict(zip(units, reference_column(data, criterion, units), strict=True))

    def scored(marks: Mapping[int, Hashable | None], item_units: list[int]) -> float | None:
        got = []
        for u in item_units:
            points = entries.get(u, {}).get("points")
            mark = marks.get(u)
            if mark is None or not isinstance(points, (int, float)):
                return None
            got.append((str(mark), float(points)))
        return rubric_score(got)

    out = []
    for item, item_units in by_item.items():
        info = data.units[item_units[0]]
        j, r = scored(judged, item_units), scored(reference, item_units)
        out.append(
            Answer(
                item,
                info.sources[0] if info.sources else "",
                None if j is None else (j,),
                None if r is None else (r,),
                item in data.declined,
            )
        )
    return out


def answers_audit(
    answers: Sequence[Answer],
    metrics: Mapping[str, Bounds],
    judge: str,
    frame: set[int],
    sampled: set[int],
    *,
    confidence: float,
    target: float,
    wording: Wording | None = None,
) -> AnswersAudit:
    """Each source's mean of each metric over its answers in ``frame``, three ways, and each
    pair of sources' difference (independent: different answers)."""
    wording = wording or Wording()
    out = AnswersAudit()
    declined = no_figure = unlabelled = 0
    kept: dict[str, list[Answer]] = defaultdict(list)
    for a in answers:
        has_reference = a.reference is not None
        if a.item not in frame:
            out.outside += has_reference
            continue
        out.sampled += a.item in sampled
        if a.declined:
            declined += 1
            continue
        if a.judge is None:
            no_figure += 1
            continue
        out.population += 1
        if a.item in sampled:
            out.labelled += has_reference
            unlabelled += not has_reference
        elif has_reference:
            out.outside += 1
        kept[a.source].append(a)
    vectors: dict[tuple[str, int], Vectors] = {}
    for source, mine in sorted(kept.items()):
        labelled = [a for a in mine if a.item in sampled and a.reference is not None]
        rest = [a for a in mine if not (a.item in sampled and a.reference is not None)]
        for m, (metric, bounds) in enumerate(metrics.items()):
            v = (
                np.array([a.reference[m] for a in labelled if a.reference], dtype=np.float64),
                np.array([a.judge[m] for a in labelled if a.judge], dtype=np.float64),
                np.array([a.judge[m] for a in rest if a.judge], dtype=np.float64),
            )
            vectors[source, m] = v
            out.rows.append(
                AuditMeanRow(
                    source=source,
                    metric=metric,
                    answers=len(mine),
                    figures=means_three_ways(
                        *v, confidence=confidence, target=target, bounds=bounds
                    ),
                )
            )
    names = sorted(kept)
    for k, a_name in enumerate(names):
        for b_name in names[k + 1 :]:
            for m, (metric, bounds) in enumerate(metrics.items()):
                out.differences.append(
                    AuditMeanDifference(
                        source_a=a_name,
                        source_b=b_name,
                        metric=metric,
                        answers_a=len(kept[a_name]),
                        answers_b=len(kept[b_name]),
                        figures=split_difference_three_ways(
                            vectors[a_name, m],
                            vectors[b_name, m],
                            confidence=confidence,
                            target=target,
                            bounds=bounds,
                        ),
                    )
                )
    if declined:
        out.notes.append(f"{declined:,} answer(s) declining to answer left out (abstentions)")
    if no_figure:
        missing = wording.no_judge.format(judge=judge)
        out.notes.append(f"{no_figure:,} answer(s) {missing} left out")
    if unlabelled:
        out.notes.append(
            f"{unlabelled:,} sampled answer(s) {wording.no_reference}: counted with the "
            "judge's figures only"
        )
    if out.outside:
        out.notes.append(
            f"{out.outside:,} answer(s) with reference labels outside the random sample not "
            "used (not random)"
        )
    return out
