"""Rubric scores (HealthBench, Arora et al. 2025) per source model and per tag, from any rater.

For one rater's marks on a rubric item (one answer and its rubric criteria, each with points
and tags): the answer's score is the points of the met criteria over the points of the
positive criteria, clipped to [0, 1] (:func:`medjudge.kinds.rubric.score`). An answer gets a
score from a rater only when every one of its criteria carries that rater's mark — for the
reviewers' majority, a strict majority on every criterion; the others are counted as "scored
n of N", never scored as if unmarked criteria were unmet.

A tag's score of an answer is the same formula over the criteria with that tag (HealthBench's
axis and theme scores); an answer without a positive criterion of the tag has none. Per rater:
the mean score over answers with a BCa interval (resampling answers), overall, per source
model and per tag, side by side for the reviewers' majority and each judge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping
from typing import Any

from medjudge.judging.analysis.records import record
from medjudge.judging.analysis.records_sections import RubricSection
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.bootstrap import mean_bca
from medjudge.kinds.rubric import CRITERION, score
from medjudge.store.json_types import JsonObject

NO_SCORES = "no answer with every rubric criterion marked"


def rubric_scores(
    data: StudyData,
    entries: Mapping[int, JsonObject],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> RubricSection | None:
    """The rubric section of the report (None when the study has no rubric items).

    Args:
        data: the study's labels.
        entries: unit id → its rubric criterion's ``{"points", "tags"}``
            (``store.reads.listed_entries``).
    """
    units = list(data.units_by_criterion.get(CRITERION, []))
    if not units:
        return None
    by_item: dict[int, list[int]] = defaultdict(list)
    for u in units:
        by_item[data.units[u].item_id].append(u)

    def mean(values: list[float], key: str) -> dict[str, Any]:
        est = mean_bca(values, n_boot=n_boot, seed=seed, confidence=confidence, empty=NO_SCORES)
        return {"key": key, **est.to_dict()}

    humans = data.raters(CRITERION, "human")
    candidates = ([MAJORITY] if humans else []) + data.raters(CRITERION, "judge")
    raters = []
    for rater in candidates:
        marks = dict(zip(units, data.column(CRITERION, rater, units), strict=True))
        overall: dict[int, float] = {}
        tagged: dict[str, list[float]] = defaultdict(list)
        for item_id, item_units in by_item.items():
            got = _marked(item_units, marks, entries)
            if got is None:
                continue
            whole = score([(m, p) for m, p, _ in got])
            if whole is None:
                continue
            overall[item_id] = whole
            for tag in sorted({t for _, _, tags in got for t in tags}):
                part = score([(m, p) for m, p, tags in got if tag in tags])
                if part is not None:
                    tagged[tag].append(part)
        by_source: dict[str, list[float]] = defaultdict(list)
        for item_id, value in overall.items():
            sources = data.units[by_item[item_id][0]].sources
            by_source[sources[0] if sources else ""].append(value)
        raters.append(
            {
                "rater": rater,
                "scored": len(overall),
                "answers": len(by_item),
                "overall": mean(list(overall.values()), "all"),
                "by_source": [mean(by_source[s], s) for s in sorted(by_source)],
                "by_tag": [mean(tagged[t], t) for t in sorted(tagged)],
            }
        )
    section = {"answers": len(by_item), "criteria": len(units), "raters": raters}
    return record(RubricSection, section)


def _marked(
    units: list[int], marks: Mapping[int, Hashable | None], entries: Mapping[int, JsonObject]
) -> list[tuple[str, float, list[str]]] | None:
    """Each criterion's (mark, points, tags) of one answer; None unless all are marked."""
    out = []
    for u in units:
        mark, entry = marks.get(u), entries.get(u)
        if mark is None or entry is None:
            return None
        points = entry.get("points")
        if not isinstance(points, (int, float)):
            return None
        tags = entry.get("tags")
        out.append((str(mark), float(points), [str(t) for t in tags or []]))
    return out
