"""The definitions readers assume, computed beside medjudge's own where the two differ.

Papers report agreement under several conventions; a reader comparing medjudge's figures with
a paper's needs the paper's definition next to medjudge's, named clearly:

* two raters: **Scott's π** (chance agreement from the pooled marginals; Fleiss' κ for two
  raters) and **Krippendorff's α** at the scale's level, beside Cohen's κ;
* three or more: **Light's κ** (the mean of the pairwise Cohen's κ, Light 1971) beside Fleiss'
  κ; the **unweighted mean over rater pairs** of their percent agreement beside the pooled
  pairwise agreement (which weighs each pair by the units it shares); **Fleiss' κ over all
  units** (Gwet's generalisation to missing labels, as irrCAC's ``fleiss``) beside the
  complete-units one; each rater's agreement with the **majority including its own vote**
  beside the agreement with the others' majority.

Every function here is checked against an independent implementation (irrCAC, krippendorff,
statsmodels) in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from medjudge.judging.stats.agreement.correlations import NO_SPREAD, Correlations
from medjudge.judging.stats.agreement.tables import PairTable, pair_zero_width
from medjudge.judging.stats.bootstrap import (
    Jackknife,
    Resampled,
    as_estimates,
    bca_many,
    leave_one_out,
)
from medjudge.judging.stats.estimates import (
    N_BOOT,
    ZERO_WIDTH,
    Estimate,
    normal_interval,
    proportion,
)

NO_CHANCE = "only one category used (chance agreement is 1)"
MEAN_OF_PAIRS = "no interval: a mean over rater pairs (each pair's figure carries its own)"


def scott_pi(t: PairTable, *, intervals: bool = True, confidence: float = 0.95) -> Estimate:
    """Scott's π of two raters over the units both labelled, with Gwet's linearisation SE
    (irrCAC's ``fleiss`` on two complete raters; the interval is estimate ± z·SE)."""
    n = int(t.n)
    if n == 0:
        return Estimate.undefined("no units labelled by both raters", 0)
    p1, p2 = t.margins()
    pi = (p1 + p2) / 2.0
    pe = float((pi**2).sum())
    po = t.agreeing() / t.n
    if pe >= 1.0 - 1e-12:
        return Estimate.undefined(NO_CHANCE, n)
    value = (po - pe) / (1.0 - pe)
    if not intervals:
        return Estimate(value, None, None, n)
    if n < 2:
        return Estimate(value, None, None, n, reason="n < 2")
    agree = (t.row == t.col).astype(float)
    unit = (agree - pe) / (1.0 - pe)
    pe_unit = (pi[t.row] + pi[t.col]) / 2.0
    x = unit - 2.0 * (1.0 - value) * (pe_unit - pe) / (1.0 - pe)
    se = math.sqrt(max(float((t.count * (x - value) ** 2).sum() / (t.n * (t.n - 1.0))), 0.0))
    low, high = normal_interval(value, se, confidence)
    why = pair_zero_width(t) if low == high else None
    return Estimate(value, low, high, n, reason=why, method="normal_se", se=se)


@dataclass(frozen=True)
class _PairAlpha:
    """Krippendorff's α of two raters from their confusion cells, as a resampled figure (the
    cells are the unit patterns: a unit is its pair of labels)."""

    table: PairTable
    scale: str
    scores: np.ndarray

    def _nc(self, counts: np.ndarray) -> np.ndarray:
        """Label counts per category ``(b, q)``: each unit gives one label to a and one to b."""
        t = self.table
        cells = np.arange(len(t.count))
        m = sparse.csr_array(
            (np.ones(2 * len(cells)), (np.r_[cells, cells], np.r_[t.row, t.col])),
            shape=(len(cells), t.k),
        )
        return np.asarray((m.T @ counts.T).T, dtype=float)

    def values(self, counts: np.ndarray) -> np.ndarray:
        """α ``(1, b)`` for ``b`` resamples given as units per cell ``(b, cells)``."""
        t = self.table
        nc = self._nc(counts)
        n = 2.0 * counts.sum(axis=1)
        with np.errstate(all="ignore"):
            if self.scale == "nominal":
                observed = counts @ (2.0 * (t.row != t.col))
                expected = n**2 - (nc**2).sum(axis=1)
            else:
                if self.scale == "interval":
                    v = np.broadcast_to(self.scores, nc.shape)
                else:  # ordinal: mid-ranks of the pooled labels
                    v = np.cumsum(nc, axis=1) - nc / 2.0
                observed = (counts * 2.0 * (v[:, t.row] - v[:, t.col]) ** 2).sum(axis=1)
                expected = 2.0 * (n * (nc * v**2).sum(axis=1) - ((nc * v).sum(axis=1)) ** 2)
            alpha = np.where(expected > 1e-12, 1.0 - (n - 1.0) * observed / expected, np.nan)
        return alpha[None, :]

    def jackknife(self) -> Jackknife:
        """Leave one unit of each cell out."""
        return leave_one_out(self.values, self.table.count, 1)


def pair_figures(
    t: PairTable,
    scale: str,
    scores: np.ndarray,
    *,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[Estimate, Estimate | None, Estimate | None]:
    """Two raters' Krippendorff's α at ``scale`` and, on an ordered scale, Spearman's ρ and
    Pearson's r (``scores``: the categories' numbers), over the units both labelled, each with
    its BCa interval — all from one set of resamples. (None, None) for the correlations on a
    nominal scale."""
    n = int(t.n)
    ordered = scale != "nominal"
    if n == 0:
        none = Estimate.undefined("no units labelled by both raters", 0)
        return none, (none if ordered else None), (none if ordered else None)
    scores = np.asarray(scores, dtype=float)
    figures: list[Resampled] = [_PairAlpha(t, scale, scores)]
    if ordered:
        figures.append(Correlations(t, scores))
    theta, cis = bca_many(
        figures, t.count, n_boot=n_boot, seed=seed, confidence=confidence, intervals=intervals
    )
    why = "n < 2" if n < 2 else NO_SPREAD
    alpha, *rest = as_estimates(theta, cis, [NO_CHANCE, why, why][: len(theta)], [n] * len(theta))
    return alpha, (rest[0] if rest else None), (rest[1] if rest else None)


def mean_over_pairs(
    figures: Sequence[Estimate], n_units: int, what: str = "no rater pair with a figure"
) -> Estimate:
    """The unweighted mean of the pairs' figures (Light's κ from the pairwise Cohen's κ; the
    mean pairwise percent agreement), without an interval; n = the units with two labels."""
    values = [f.value for f in figures if f.value is not None]
    if not values:
        return Estimate.undefined(what, n_units)
    return Estimate(float(np.mean(values)), None, None, n_units, reason=MEAN_OF_PAIRS)


@dataclass(frozen=True)
class UnitCounts:
    """Each unit's label counts as sparse entries (at most one per label given), so memory
    and time stay linear in units × raters however many categories there are.

    Attributes:
        unit: ``(E,)`` the entry's unit (row of the codes).
        cat: ``(E,)`` its category.
        count: ``(E,)`` how many raters gave that category on that unit.
        per_unit: ``(units,)`` labels on each unit.
    """

    unit: np.ndarray
    cat: np.ndarray
    count: np.ndarray
    per_unit: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, q: int) -> UnitCounts:
        """From ``(units, raters)`` category codes (``-1`` = no label)."""
        rows, cols = np.nonzero(codes >= 0)
        keys, count = np.unique(rows * max(q, 1) + codes[rows, cols], return_counts=True)
        unit, cat = keys // max(q, 1), keys % max(q, 1)
        per_unit = np.bincount(unit, count, minlength=codes.shape[0])
        return cls(unit, cat, count.astype(float), per_unit)


def fleiss_all_units(
    counts: UnitCounts,
    q: int,
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    zero_width: str = ZERO_WIDTH,
) -> Estimate:
    """Fleiss' κ over every unit with a label (Gwet's generalisation to missing labels, as
    irrCAC's ``fleiss``): agreement over the units with two or more labels, the category
    shares averaged over every labelled unit; SE by Gwet's linearisation (no finite-population
    correction), interval estimate ± z·SE."""
    if q < 1:
        return Estimate.undefined("no categories", 0)
    ri_all = counts.per_unit
    labelled = ri_all > 0
    n = int(labelled.sum())
    two = ri_all >= 2
    n2 = int(two.sum())
    if n2 == 0:
        return Estimate.undefined("no unit labelled by two raters", 0)
    ri = ri_all[counts.unit]
    with np.errstate(all="ignore"):
        pairs = np.bincount(counts.unit, counts.count * (counts.count - 1.0), len(ri_all))
        pa_i = np.where(two, pairs / (ri_all * (ri_all - 1.0)), 0.0)
        pa = float(pa_i[two].sum() / n2)
        pi = np.bincount(counts.cat, counts.count / ri, minlength=q)[:q] / n
        pe = float((pi**2).sum())
    if pe >= 1.0 - 1e-12:
        return Estimate.undefined(NO_CHANCE, n2)
    value = (pa - pe) / (1.0 - pe)
    if not intervals or n < 2:
        return Estimate(value, None, None, n2)
    with np.errstate(all="ignore"):
        pe_i = np.bincount(counts.unit, counts.count * pi[counts.cat], len(ri_all)) / ri_all
    kappa_i = (n / n2) * (pa_i - pe * two) / (1.0 - pe)
    x = (kappa_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe))[labelled]
    se = math.sqrt(max(float(((x - value) ** 2).sum() / (n * (n - 1.0))), 0.0))
    low, high = normal_interval(value, se, confidence)
    why = zero_width if low == high else None  # the caller words its cause
    return Estimate(value, low, high, n2, reason=why, method="normal_se", se=se)


def vs_majority_with_own(
    codes: np.ndarray, counts: UnitCounts, raters: Sequence[Hashable], confidence: float = 0.95
) -> dict[Hashable, Estimate]:
    """Each rater's agreement with the strict majority of *all* raters on a unit, its own
    vote included (the convention of papers that score a rater against the panel), over the
    units that rater labelled where such a majority exists; Wilson intervals."""
    units = codes.shape[0]
    majority = np.full(units, -1)
    strict = counts.count * 2 > counts.per_unit[counts.unit]  # at most one entry per unit
    majority[counts.unit[strict]] = counts.cat[strict]
    with_majority = (majority >= 0) & (counts.per_unit >= 2)
    out: dict[Hashable, Estimate] = {}
    for r, name in enumerate(raters):
        mine = (codes[:, r] >= 0) & with_majority
        agree = float((codes[mine, r] == majority[mine]).sum())
        out[name] = proportion(agree, int(mine.sum()), confidence, "no unit with a majority")
    return out


def light_kappa(pairwise: Mapping[tuple[Hashable, Hashable], object], n_units: int) -> Estimate:
    """Light's κ: the unweighted mean of the pairwise Cohen's κ (pairs without one left out)."""
    return mean_over_pairs([p.cohen for p in pairwise.values()], n_units)  # type: ignore[attr-defined]


def mean_pair_percent(
    pairwise: Mapping[tuple[Hashable, Hashable], object], n_units: int
) -> Estimate:
    """The unweighted mean over rater pairs of their percent agreement."""
    return mean_over_pairs([p.percent for p in pairwise.values()], n_units)  # type: ignore[attr-defined]
