"""What the labels say about the models: pairwise win rates and rating means per source.

Win / tie / loss (pairwise criteria), per rater (each reviewer, the reviewers' majority, each
judge) and per source model, over the units that rater labelled:

- benefit criteria ("which is better?"): the chosen answer's source wins, the other loses;
- risk criteria ("which is worse?"): the chosen answer's source LOSES (being chosen as the
  worse answer is a loss), the other wins;
- ``tie`` is a tie for both sources, ``neither`` is counted apart for both.

Items whose two answers come from the same source are left out (and counted). Rates have
Wilson intervals. Rating means (scaled rating criteria) per rater and source come with a
t interval. K-QA figures live in :mod:`.kqa` (re-exported here as :func:`kqa_metrics`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from medjudge import kinds
from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.kqa import kqa_metrics
from medjudge.judging.analysis.records import (
    FigureFields,
    MeanFigure,
    SourceMean,
    figure_fields,
)
from medjudge.judging.analysis.records_sections import (
    RatingRow,
    SourceWins,
    WinCounts,
    WinRateRow,
)
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.estimates import Estimate, clean_float

__all__ = ["kqa_metrics", "mean_t", "outcomes", "rating_means", "win_rates"]

OUTCOMES = ("win", "tie", "loss", "neither")

BENEFIT_NOTE = "benefit criterion: the answer chosen as better wins"
RISK_NOTE = (
    "risk criterion: the answer chosen as worse LOSES (and the other wins); "
    "a win here means being judged the less harmful/biased answer"
)


def _raters(data: StudyData, criterion: str) -> list[str]:
    humans = data.raters(criterion, "human")
    majority = [MAJORITY] if len(humans) >= 2 else []
    return humans + majority + data.raters(criterion, "judge")


def _kind(data: StudyData, rater: str) -> str:
    return "majority" if rater == MAJORITY else data.rater_kinds[rater]


def outcomes(value: object, source_a: str, source_b: str, risk: bool) -> dict[str, str] | None:
    """Each source's outcome for one pairwise label, or None for a missing label."""
    if value is None:
        return None
    if value in ("tie", "neither"):
        return {source_a: str(value), source_b: str(value)}
    if value not in ("A", "B"):
        return None
    chosen, other = (source_a, source_b) if value == "A" else (source_b, source_a)
    if risk:
        return {chosen: "loss", other: "win"}
    return {chosen: "win", other: "loss"}


def win_rates(data: StudyData, confidence: float = 0.95) -> list[WinRateRow]:
    """Win / tie / loss / neither rates per pairwise criterion, rater and source model.

    Returns:
        One record per (criterion, rater): ``criterion``, ``polarity``, ``note`` (how to read
        win and loss), ``rater``, ``rater_kind``, ``same_source_skipped`` and ``sources``: a
        list of {source, n, counts, win, tie, loss, neither} (rates as shares).
    """
    out: list[WinRateRow] = []
    for criterion in data.criteria():
        if not kinds.get(data.kind_of(criterion)).win_rates:
            continue
        crit = data.criterion(criterion)
        risk = crit is not None and crit.polarity == "risk"
        units = data.labelled_units(criterion)
        for rater in _raters(data, criterion):
            counts: dict[str, dict[str, int]] = {}
            skipped = 0
            for u, value in zip(units, data.column(criterion, rater, units), strict=True):
                sa, sb = (data.units[u].sources + ("", ""))[:2]
                if value is not None and sa == sb:
                    skipped += 1
                    continue
                res = outcomes(value, sa, sb, risk)
                for source, outcome in (res or {}).items():
                    counts.setdefault(source, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
            sources = []
            for source in sorted(counts):
                c = counts[source]
                n = sum(c.values())
                sources.append(
                    SourceWins(
                        source=source,
                        n=n,
                        counts=WinCounts(**c),
                        win=share(c["win"], n, confidence),
                        tie=share(c["tie"], n, confidence),
                        loss=share(c["loss"], n, confidence),
                        neither=share(c["neither"], n, confidence),
                    )
                )
            polarity = crit.polarity if crit else None
            assert polarity is not None, "a criterion with win rates has a polarity"
            out.append(
                WinRateRow(
                    criterion=criterion,
                    polarity=polarity,
                    note=RISK_NOTE if risk else BENEFIT_NOTE,
                    rater=rater,
                    rater_kind=_kind(data, rater),
                    same_source_skipped=skipped,
                    sources=sources,
                )
            )
    return out


def mean_t(values: list[float], confidence: float = 0.95) -> Estimate:
    """The mean with a Student-t interval."""
    n = len(values)
    if n == 0:
        return Estimate.undefined("no ratings", 0)
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if n < 2:
        return Estimate(mean, None, None, n, reason="confidence interval needs n >= 2")
    se = float(x.std(ddof=1)) / math.sqrt(n)
    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * se
    return Estimate(mean, mean - half, mean + half, n, method="student_t", se=se)


def rating_means(data: StudyData, confidence: float = 0.95) -> list[RatingRow]:
    """Mean rating per scaled rating criterion, rater and source model.

    Returns:
        One record per (criterion, rater): ``criterion``, ``scale``, ``rater``, ``rater_kind``,
        ``overall`` (a mean with its ``sd``) and ``sources`` (the same per source).
    """
    out: list[RatingRow] = []
    for criterion in data.criteria():
        crit = data.criterion(criterion)
        if crit is None or crit.scale is None:  # a scale: a mean to give
            continue
        units = data.labelled_units(criterion)
        for rater in data.raters(criterion, "human") + data.raters(criterion, "judge"):
            by_source: dict[str, list[float]] = {}
            everything: list[float] = []
            for u, v in zip(units, data.column(criterion, rater, units), strict=True):
                if isinstance(v, int):
                    by_source.setdefault(data.units[u].source_label, []).append(float(v))
                    everything.append(float(v))
            out.append(
                RatingRow(
                    criterion=criterion,
                    scale=list(crit.scale),
                    rater=rater,
                    rater_kind=_kind(data, rater),
                    overall=MeanFigure(**_mean_fields(everything, confidence)),
                    sources=[
                        SourceMean(source=s, **_mean_fields(v, confidence))
                        for s, v in sorted(by_source.items())
                    ],
                )
            )
    return out


class _MeanFields(FigureFields):
    sd: float | None


def _mean_fields(values: list[float], confidence: float) -> _MeanFields:
    """A mean's fields with a Student-t interval and its standard deviation."""
    sd = clean_float(np.std(values, ddof=1)) if len(values) >= 2 else None
    return _MeanFields(**figure_fields(mean_t(values, confidence)), sd=sd)
