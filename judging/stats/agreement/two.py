"""Agreement between two raters: percent agreement, Cohen's κ, Gwet's AC1, Bennett's S,
weighted κ (linear and quadratic), correlations and ICC(2,1).

Every coefficient is a function of the two raters' confusion table over the declared
categories (:mod:`.tables`); the correlations' point estimates come from
:mod:`scipy.stats`.

One interval method per figure (see :mod:`.estimates`), whatever the caller:

* percent agreement: Wilson score interval;
* Cohen's κ: ``κ ± z·SE`` with the large-sample SE of Fleiss, Cohen & Everitt (1969), the one
  statsmodels ``cohens_kappa`` reports as ``std_kappa``;
* Gwet's AC1: ``AC1 ± z·SE`` with Gwet's (2008) linearisation variance (as irrCAC computes it);
* Bennett's S (= Randolph's free-marginal κ for two raters): the Wilson interval of p_o
  mapped through ``S = (p_o − 1/q)/(1 − 1/q)``;
* weighted κ (linear and quadratic, on the declared scale's positions): ``κw ± z·SE`` with the
  Fleiss–Cohen–Everitt weighted SE (statsmodels' ``std_kappa``);
* Spearman / Pearson: BCa bootstrap over units (:mod:`.correlations`; Fisher's z assumes
  normal data and under-covers on a few tied categories);
* Scott's π and two-rater Krippendorff's α (:mod:`.readers`), beside Cohen's κ;
* ICC(2,1) (interval scales): the F interval of McGraw & Wong (1996).

Scales: ``nominal`` (percent, κ, AC1, S), ``ordinal`` (+ weighted κ, Spearman, Pearson on the
declared order), ``interval`` (+ ICC(2,1) on the numeric labels).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import chain, compress

import numpy as np

from medjudge.judging.stats.agreement.icc import icc_2_1
from medjudge.judging.stats.agreement.labels import (
    SCALES,
    category_scores,
    is_missing,
    json_label,
    resolve_categories,
)
from medjudge.judging.stats.agreement.readers import pair_figures, scott_pi
from medjudge.judging.stats.agreement.tables import (
    PairTable,
    ac1_se,
    ac1_table,
    cohen_se,
    cohen_table,
    pair_zero_width,
    percent_table,
    weighted_se,
    weighted_table,
)
from medjudge.judging.stats.estimates import (
    N_BOOT,
    Estimate,
    check_confidence,
    normal_interval,
    wilson_interval,
)

NO_UNITS = "no units labelled by both raters"
TOO_FEW = "n < 2"
ONE_CATEGORY_COHEN = "only one category used by both raters (chance agreement is 1)"
ONE_CATEGORY_AC1 = "only one category on the scale (AC1 needs at least two)"
ONE_CATEGORY_WEIGHTED = "only one category used by both raters (chance disagreement is 0)"
NO_VARIATION = "no variation (correlation undefined)"


DENSE_CONFUSION_MAX = 200
"""Up to this many categories ``Confusion.to_dict`` writes the full table (40,000 cells);
past it only the non-empty cells, so the output stays linear in the units."""


@dataclass(frozen=True)
class Confusion:
    """Confusion table of two raters, kept as its non-empty cells.

    Attributes:
        categories: Ordered categories (rows and columns).
        cells: ``(row, column, count)`` of every non-empty cell, row-major; rows are rater a,
            columns rater b, both as indices into ``categories``.
    """

    categories: list[Hashable]
    cells: list[tuple[int, int, int]]

    @property
    def matrix(self) -> list[list[int]]:
        """The full table (``len(categories)`` squared counts: for display of small tables)."""
        k = len(self.categories)
        rows = [[0] * k for _ in range(k)]
        for i, j, count in self.cells:
            rows[i][j] = count
        return rows

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict: ``categories``, ``cells`` and ``matrix`` (the full table,
        ``None`` past :data:`DENSE_CONFUSION_MAX` categories)."""
        dense = len(self.categories) <= DENSE_CONFUSION_MAX
        return {
            "categories": [json_label(c) for c in self.categories],
            "cells": [list(cell) for cell in self.cells],
            "matrix": self.matrix if dense else None,
        }


@dataclass(frozen=True)
class TwoRaterStats:
    """Agreement figures for two raters over the units both labelled.

    Attributes:
        n: Units labelled by both raters.
        n_dropped: Units dropped because at least one label was missing.
        percent: Observed agreement p_o.
        chance: Cohen's chance agreement p_e from each rater's own marginals (``None`` if n=0).
        cohen: Cohen's κ.
        gwet_ac1: Gwet's AC1 (Q = the number of declared categories).
        bennett_s: Bennett's S = (p_o − 1/q)/(1 − 1/q), q declared categories.
        weighted_kappa_linear: Linearly weighted κ (ordinal/interval scales, else ``None``).
        weighted_kappa_quadratic: Quadratically weighted κ (ordinal/interval, else ``None``).
        spearman: Spearman correlation (ordinal/interval, else ``None``).
        pearson: Pearson correlation (ordinal/interval, else ``None``).
        icc: ICC(2,1) (interval scale only, else ``None``).
        confusion: The confusion table over the categories.
        scale: ``nominal``, ``ordinal`` or ``interval``.
        categories_inferred: True when no category set was declared and the observed labels
            stood in for it.
    """

    n: int
    n_dropped: int
    percent: Estimate
    chance: float | None
    cohen: Estimate
    gwet_ac1: Estimate
    bennett_s: Estimate
    weighted_kappa_linear: Estimate | None
    weighted_kappa_quadratic: Estimate | None
    spearman: Estimate | None
    pearson: Estimate | None
    icc: Estimate | None
    confusion: Confusion
    scale: str = "nominal"
    categories_inferred: bool = False
    scott_pi: Estimate | None = None
    """Scott's π (chance from the pooled marginals), beside Cohen's κ (:mod:`.readers`)."""
    krippendorff_alpha: Estimate | None = None
    """Krippendorff's α of the two raters at the scale's level (:mod:`.readers`)."""

    @property
    def ordinal(self) -> bool:
        """Whether the scale is ordered (ordinal or interval)."""
        return self.scale != "nominal"

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict (``json.dumps(..., allow_nan=False)`` works)."""

        def opt(e: Estimate | None) -> dict[str, object] | None:
            return None if e is None else e.to_dict()

        return {
            "n": self.n,
            "n_dropped": self.n_dropped,
            "scale": self.scale,
            "categories": [json_label(c) for c in self.confusion.categories],
            "categories_inferred": self.categories_inferred,
            "percent": self.percent.to_dict(),
            "chance": self.chance,
            "cohen": self.cohen.to_dict(),
            "gwet_ac1": self.gwet_ac1.to_dict(),
            "bennett_s": self.bennett_s.to_dict(),
            "weighted_kappa_linear": opt(self.weighted_kappa_linear),
            "weighted_kappa_quadratic": opt(self.weighted_kappa_quadratic),
            "spearman": opt(self.spearman),
            "pearson": opt(self.pearson),
            "icc": opt(self.icc),
            "scott_pi": opt(self.scott_pi),
            "krippendorff_alpha": opt(self.krippendorff_alpha),
            "confusion": self.confusion.to_dict(),
        }


# ------------------------------------------------------------------------------ public API


def _undefined_reason(kind: str, n: int) -> str:
    if n == 0:
        return NO_UNITS
    if n < 2:
        return TOO_FEW
    return {
        "cohen": ONE_CATEGORY_COHEN,
        "ac1": ONE_CATEGORY_AC1,
        "weighted": ONE_CATEGORY_WEIGHTED,
        "corr": NO_VARIATION,
    }[kind]


def check_options(scale: str, confidence: float) -> None:
    """Raise ``ValueError`` on an unknown scale or a confidence outside (0, 1)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, not {scale!r}")
    check_confidence(confidence)


def bennett_s(percent: Estimate, q: int) -> Estimate:
    """Bennett's S from percent agreement over ``q`` categories, with the mapped interval."""
    if percent.value is None:
        return Estimate.undefined(percent.reason or "undefined", percent.n)
    if q < 2:
        return Estimate.undefined(
            "only one category on the scale (S needs at least two)", percent.n
        )

    def s(p: float) -> float:
        return (p - 1.0 / q) / (1.0 - 1.0 / q)

    if not percent.has_ci:
        return Estimate(s(percent.value), None, None, percent.n, reason=percent.reason)
    return Estimate(
        s(percent.value),
        s(percent.ci_low),  # type: ignore[arg-type]  # has_ci checked
        s(percent.ci_high),  # type: ignore[arg-type]
        percent.n,
        method="wilson_transform",
    )


@dataclass(frozen=True)
class _Figures:
    """How :func:`two_rater_stats` turns a confusion table into figures with intervals."""

    table: PairTable
    n: int
    intervals: bool
    confidence: float
    n_boot: int = N_BOOT
    seed: int = 0

    def value_of(self, f: Callable[[PairTable], float]) -> float:
        return f(self.table) if self.n else math.nan

    def build(self, value: float, kind: str, interval: Callable[[float], Estimate]) -> Estimate:
        if math.isnan(value):
            return Estimate.undefined(_undefined_reason(kind, self.n), self.n)
        if not self.intervals:
            return Estimate(value, None, None, self.n)
        return interval(value)

    def by_se(self, se_fn: Callable[[float], float]) -> Callable[[float], Estimate]:
        def make(value: float) -> Estimate:
            se = se_fn(value)
            low, high = normal_interval(value, se, self.confidence)
            why = pair_zero_width(self.table) if low == high else None
            return Estimate(value, low, high, self.n, reason=why, method="normal_se", se=se)

        return make

    def by_wilson(self, value: float) -> Estimate:
        low, high = wilson_interval(value * self.n, self.n, self.confidence)
        return Estimate(value, low, high, self.n, method="wilson")


@dataclass(frozen=True)
class _Ordered:
    """The figures only ordered scales have (None on a nominal scale)."""

    linear: Estimate | None = None
    quadratic: Estimate | None = None
    spearman: Estimate | None = None
    pearson: Estimate | None = None
    icc: Estimate | None = None


def _ordered(
    f: _Figures,
    codes: np.ndarray,
    scores: np.ndarray,
    scale: str,
    correlations: tuple[Estimate | None, Estimate | None],
) -> _Ordered:
    """Weighted κ, Spearman and Pearson (bootstrapped with α: ``correlations``) and ICC(2,1)
    on an interval scale, of a table."""
    table, n, k = f.table, f.n, len(scores)
    linear = f.build(
        f.value_of(lambda t: weighted_table(t, "linear")),
        "weighted",
        f.by_se(lambda v: weighted_se(table, v, "linear")),
    )
    quadratic = f.build(
        f.value_of(lambda t: weighted_table(t, "quadratic")),
        "weighted",
        f.by_se(lambda v: weighted_se(table, v, "quadratic")),
    )
    rho, r = correlations
    icc = None
    if scale == "interval":
        x = scores[codes // k] if n else scores[:0]
        y = scores[codes % k] if n else scores[:0]
        icc = icc_2_1(np.column_stack([x, y]), f.confidence) if n else None
        icc = icc or Estimate.undefined(NO_UNITS, 0)
        if not f.intervals and icc.value is not None:
            icc = Estimate(icc.value, None, None, icc.n)
    return _Ordered(
        linear,
        quadratic,
        rho,
        r,
        icc,
    )


def two_rater_stats(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
    scale: str = "nominal",
    intervals: bool = True,
    confidence: float = 0.95,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> TwoRaterStats:
    """Agreement between two raters.

    Units where either label is missing (``None``/NaN) are dropped; ``n`` counts the units
    both raters labelled. Undefined figures come back with ``value=None`` and a reason,
    never NaN.

    Args:
        a: First rater's labels, one per unit (rows of the confusion table).
        b: Second rater's labels, aligned with ``a``.
        categories: The declared categories in order. Without it the labels observed on the
            units both raters labelled stand in (sorted) and ``categories_inferred`` is set.
            It sets Q for AC1 and S and the weight positions for weighted κ; a label outside
            it raises ``ValueError``.
        scale: ``nominal``, ``ordinal`` or ``interval`` (see the module docstring). Ordered
            scales need numeric labels or ``categories`` in order; ``interval`` needs numbers.
        intervals: Compute confidence intervals (each figure's one method).
        confidence: Confidence level of the intervals.
        n_boot: Bootstrap resamples of two-rater α's BCa interval.
        seed: Its seed.

    Returns:
        The figures as a :class:`TwoRaterStats`.

    Raises:
        ValueError: On sequences of different lengths or invalid options.
    """
    check_options(scale, confidence)
    ordered = scale != "nominal"
    if len(a) != len(b):
        raise ValueError(f"the raters have different numbers of units ({len(a)} vs {len(b)})")
    both = [not is_missing(x) and not is_missing(y) for x, y in zip(a, b, strict=True)]
    kept_a = list(compress(a, both))  # two flat lists, not a tuple per unit (100k units:
    kept_b = list(compress(b, both))  # 1.6 MB instead of 8 MB)
    n = len(kept_a)
    cats = resolve_categories(chain(kept_a, kept_b), categories, scale)
    k = len(cats)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.fromiter(
        (index[x] * k + index[y] for x, y in zip(kept_a, kept_b, strict=True)),
        dtype=np.int64,
        count=n,
    )
    table = PairTable.from_pair_codes(codes, k)
    confusion = Confusion(cats, table.cells())
    f = _Figures(table, n, intervals, confidence, n_boot, seed)
    percent = f.build(f.value_of(percent_table), "percent", f.by_wilson) if n else None
    percent = percent or Estimate.undefined(NO_UNITS, 0)
    chance = None
    if n:
        p1, p2 = table.margins()
        chance = float((p1 * p2).sum())
    scores = category_scores(cats) if ordered else np.zeros(k)
    # α and the correlations from one set of bootstrap resamples
    alpha, rho, r = pair_figures(
        table,
        scale,
        scores,
        intervals=intervals,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )
    ordered_figures = _ordered(f, codes, scores, scale, (rho, r)) if ordered else _Ordered()

    return TwoRaterStats(
        n=n,
        n_dropped=len(a) - n,
        percent=percent,
        chance=chance,
        cohen=f.build(f.value_of(cohen_table), "cohen", f.by_se(lambda v: cohen_se(table, v))),
        gwet_ac1=f.build(f.value_of(ac1_table), "ac1", f.by_se(lambda v: ac1_se(table, v))),
        bennett_s=bennett_s(percent, k),
        weighted_kappa_linear=ordered_figures.linear,
        weighted_kappa_quadratic=ordered_figures.quadratic,
        spearman=ordered_figures.spearman,
        pearson=ordered_figures.pearson,
        icc=ordered_figures.icc,
        confusion=confusion,
        scale=scale,
        categories_inferred=categories is None,
        scott_pi=scott_pi(table, intervals=intervals, confidence=confidence),
        krippendorff_alpha=alpha,
    )
