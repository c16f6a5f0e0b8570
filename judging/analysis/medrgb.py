"""MedRGB figures for match items: scores against the ground truth by retrieval condition.

Per rater (the reviewers' strict majority and each judge), over the ``match`` criterion (the
prediction's score, 1 / 0.5 / 0): the mean score with a BCa interval per source model, per
test (the item's ``test`` field: standard, sufficiency, integration, robustness) and per ``p``
(the share of signal documents in the context), and the mean score by ``p`` per model (the
HTML report's chart). Predictions that decline to answer ("insufficient information", the
study's decline phrases) are abstentions: left out of the means and counted apart, as the
abstention share per ``p`` (Wilson interval) — never scored 0 silently.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from medjudge.judging.analysis.records import KeyedFigure, KeyedShare
from medjudge.judging.analysis.records_sections import ChartLine, MatchRater, MedrgbSection
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.analysis.views import slice_order
from medjudge.judging.stats.bootstrap import mean_bca
from medjudge.judging.stats.estimates import proportion
from medjudge.kinds.match import CRITERION as MATCH_CRITERION

NO_SCORES = "no scored predictions"


def _score(value: Hashable | None) -> float | None:
    try:
        return None if value is None else float(str(value))
    except ValueError:
        return None


def _field(data: StudyData, unit: int, name: str) -> str | None:
    value = data.units[unit].meta.get(name)
    return None if value in (None, "") else str(value)


def match_figures(
    data: StudyData, *, n_boot: int, seed: int, confidence: float
) -> MedrgbSection | None:
    """The MedRGB section of the report (None when the study has no match items).

    Returns:
        ``{"raters": [{"rater", "by_source", "by_test", "by_p", "chart"}], "abstention_by_p",
        "abstentions", "predictions"}``; every figure with its interval and n.
    """
    units = data.units_by_criterion.get(MATCH_CRITERION, [])
    if not units:
        return None
    abstaining = [u for u in units if data.units[u].item_id in data.declined]
    scored = [u for u in units if data.units[u].item_id not in data.declined]

    def mean(values: list[float], key: str) -> KeyedFigure:
        est = mean_bca(values, n_boot=n_boot, seed=seed, confidence=confidence, empty=NO_SCORES)
        return KeyedFigure.keyed(key, est)

    def grouped(scores: dict[int, float], key_of: Callable[[int], str | None]) -> list[KeyedFigure]:
        groups: dict[str, list[float]] = {}
        for u, s in scores.items():
            k = key_of(u)
            if k is not None:
                groups.setdefault(k, []).append(s)
        return [mean(groups[k], k) for k in slice_order(list(groups))]

    raters: list[MatchRater] = []
    humans = data.raters(MATCH_CRITERION, "human")
    candidates = ([MAJORITY] if humans else []) + data.raters(MATCH_CRITERION, "judge")
    for rater in candidates:
        column = data.column(MATCH_CRITERION, rater, scored)
        scores = {u: s for u, v in zip(scored, column, strict=True) if (s := _score(v)) is not None}
        if not scores:
            continue

        def source(u: int) -> str | None:
            return data.units[u].sources[0] if data.units[u].sources else None

        chart = []
        for src in sorted({name for u in scores if (name := source(u)) is not None}):
            mine = {u: v for u, v in scores.items() if source(u) == src}
            chart.append(
                ChartLine(source=src, points=grouped(mine, lambda u: _field(data, u, "p")))
            )
        raters.append(
            MatchRater(
                rater=rater,
                n=len(scores),
                overall=mean(list(scores.values()), "all"),
                by_source=grouped(scores, source),
                by_test=grouped(scores, lambda u: _field(data, u, "test")),
                by_p=grouped(scores, lambda u: _field(data, u, "p")),
                chart=chart,
            )
        )
    by_p: dict[str, list[int]] = {}
    for u in units:
        p = _field(data, u, "p")
        if p is not None:
            by_p.setdefault(p, []).append(u)
    abstention_by_p = []
    for p in slice_order(list(by_p)):
        count = sum(1 for u in by_p[p] if u in abstaining)
        est = proportion(count, len(by_p[p]), confidence, "no items")
        abstention_by_p.append(KeyedShare.keyed(p, est, count))
    return MedrgbSection(
        predictions=len(units),
        abstentions=len(abstaining),
        abstention_by_p=abstention_by_p,
        raters=raters,
    )
