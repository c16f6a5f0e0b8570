"""The BCa bootstrap over units, by counts of distinct unit patterns.

The bootstrap resamples *units*: units with the same labels contribute the same sufficient
sums, so the data are reduced to their distinct patterns (:class:`UnitPatterns`) and a resample
is a multinomial draw of pattern counts. Its cost does not grow with the number of units, only
with the number of distinct patterns; the jackknife behind BCa's acceleration is exact and just
as cheap (leave one unit of each pattern out). Intervals are exactly those of
:func:`scipy.stats.bootstrap` with ``method="BCa"`` given the same resamples.

Figures are computed on resamples through :class:`Resampled`: :class:`SumStatistic` for a
function of sums over units, :mod:`.bootstrap_categories` for one figure per category, and
the multi-rater figures of :mod:`.agreement.alpha`; :func:`bca_many` draws the resamples once
for all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import special

from medjudge.judging.stats.estimates import (
    MIN_DEFINED_SHARE,
    MOSTLY_UNDEFINED,
    N_BOOT,
    SAME_RESAMPLES,
    Estimate,
)


@dataclass(frozen=True)
class UnitPatterns:
    """Units reduced to their distinct patterns of sufficient sums.

    Every bootstrapped figure is a function of sums over units of per-unit vectors (counts,
    agreeing pairs, coincidences, …). Units whose vectors are equal are one *pattern*;
    ``rows[p]`` is the vector of pattern ``p`` and ``freq[p]`` how many units share it.

    Attributes:
        rows: ``(P, d)`` per-unit sums of each pattern.
        freq: ``(P,)`` units per pattern.
    """

    rows: np.ndarray
    freq: np.ndarray

    @classmethod
    def from_units(cls, per_unit: np.ndarray) -> UnitPatterns:
        """Group a ``(n_units, d)`` matrix of per-unit sums into patterns."""
        per_unit = np.asarray(per_unit, dtype=float)
        if per_unit.shape[0] == 0:
            return cls(per_unit.reshape(0, per_unit.shape[1]), np.zeros(0))
        rows, freq = np.unique(per_unit, axis=0, return_counts=True)
        return cls(rows, freq.astype(float))

    @property
    def n(self) -> int:
        """Number of units."""
        return int(self.freq.sum())

    def total(self) -> np.ndarray:
        """The sums over all units, shape ``(d,)``."""
        total: np.ndarray = self.freq @ self.rows
        return total


@dataclass(frozen=True)
class Jackknife:
    """Leave-one-unit-out values of ``m`` statistics, as entries ``(statistic, value, units)``.

    An entry says that leaving out any one of ``units`` units gives statistic ``stat`` the
    value ``value``. Units reduced to patterns give one entry per statistic and pattern
    (:meth:`dense`); a statistic that only some patterns move can list its unmoved patterns
    as one entry, so the jackknife of many per-category figures stays linear in the units.
    """

    stat: np.ndarray
    value: np.ndarray
    units: np.ndarray

    @classmethod
    def dense(cls, values: np.ndarray, freq: np.ndarray) -> Jackknife:
        """From ``(m, P)`` leave-one-out values, pattern ``p`` standing for ``freq[p]`` units."""
        m, n_pat = values.shape
        return cls(
            np.repeat(np.arange(m), n_pat), values.reshape(-1), np.tile(freq, m).astype(float)
        )

    def acceleration(self, m: int) -> np.ndarray:
        """BCa's acceleration of each of the ``m`` statistics (Efron 1987, eq. 6.6).

        ``a = Σ d³ / (6 (Σ d²)^1.5)`` over units, ``d`` = the jackknife mean minus the unit's
        value, as :func:`scipy.stats.bootstrap` computes it; undefined values are left out,
        and a statistic with fewer than two defined units or no spread gets 0.
        """
        ok = np.isfinite(self.value) & (self.units > 0)
        s, v, w = self.stat[ok], self.value[ok], self.units[ok]
        weight = np.bincount(s, w, minlength=m)
        centre = np.bincount(s, w * v, minlength=m) / np.where(weight > 0, weight, 1.0)
        d = centre[s] - v
        num = np.bincount(s, w * d**3, minlength=m)
        den = 6.0 * np.bincount(s, w * d**2, minlength=m) ** 1.5
        with np.errstate(all="ignore"):
            accel: np.ndarray = np.where((weight >= 2) & (den > 0), num / den, 0.0)
        return accel


Interval = tuple[tuple[float, float] | None, str | None]
"""``((low, high), None)``, or ``(None, reason)`` when there is no interval."""

ONE_SIDED = "no interval: every bootstrap resample lies on one side of the estimate"
EXTREME = "BCa interval undefined (extreme acceleration)"


def leave_one_out(
    values: Callable[[np.ndarray], np.ndarray], freq: np.ndarray, m: int
) -> Jackknife:
    """The exact jackknife of ``m`` figures computed from counts per pattern: ``values``
    evaluated with one unit of each pattern left out (in chunks, memory bounded)."""
    out = np.empty((m, len(freq)))
    step = max(1, 200_000 // max(len(freq), 1))
    for start in range(0, len(freq), step):
        rows = np.arange(start, min(start + step, len(freq)))
        counts = np.repeat(freq[None, :], len(rows), axis=0)
        counts[np.arange(len(rows)), rows] -= 1.0
        out[:, rows] = values(counts)
    return Jackknife.dense(out, freq)


def resample_counts(freq: np.ndarray, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Bootstrap resamples of units as counts per pattern, in chunks of shape ``(b, P)``.

    A resample draws ``n`` units with replacement: a multinomial draw of pattern counts from
    ``numpy.random.default_rng(seed)`` (chunks hold at most about two million counts).
    """
    n = int(freq.sum())
    rng = np.random.default_rng(seed)
    probs = freq / n
    chunk = max(1, min(n_boot, 2_000_000 // max(len(probs), 1)))
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        yield rng.multinomial(n, probs, size=b).astype(float)
        done += b


TIE_RTOL = 1e-9
"""Resamples this close to the estimate (relative) count as equal to it (:func:`bca_interval`)."""
TIE_ATOL = 1e-12
"""… or this close in absolute terms (a figure of 0)."""


def bca_interval(theta: float, boot: np.ndarray, accel: float, confidence: float) -> Interval:
    """The BCa interval of one statistic from its bootstrap distribution and acceleration.

    :func:`scipy.stats.bootstrap`'s ``method="BCa"`` (scipy's ``_bca_interval``): the bias
    correction is ``z0 = Φ⁻¹((#{θ*_b < θ} + #{θ*_b ≤ θ}) / 2B)``, so resamples equal to the
    estimate count half below it — here "equal" within :data:`TIE_RTOL` / :data:`TIE_ATOL`,
    where scipy compares exactly and so lets an ulp of rounding move the interval — and the
    bounds are the ``linear`` quantiles of the resamples at
    ``Φ(z0 + (z0 + z)/(1 − a(z0 + z)))``. Undefined (NaN) resamples are left out
    (scipy would return NaN); where scipy's interval is NaN this one is ``None`` with a reason.

    Returns:
        ``((low, high), None)`` or ``(None, reason)``.
    """
    values = boot[np.isfinite(boot)]
    if values.size == 0 or values.size < MIN_DEFINED_SHARE * boot.size:
        return None, MOSTLY_UNDEFINED
    if np.ptp(values) == 0:
        return None, SAME_RESAMPLES
    # A resample whose figure equals the estimate in exact arithmetic may land an ulp either
    # side of it, depending on the processor's summation order (BLAS kernels): within a
    # relative 1e-9 it is a tie, so the interval does not depend on the machine.
    tie = np.isclose(values, theta, rtol=TIE_RTOL, atol=TIE_ATOL)
    below = 2 * np.count_nonzero((values < theta) & ~tie) + np.count_nonzero(tie)
    share = below / (2.0 * values.size)
    if share <= 0.0 or share >= 1.0:
        return None, ONE_SIDED
    z0 = float(special.ndtri(share))
    z_lo = float(special.ndtri((1.0 - confidence) / 2.0))
    with np.errstate(all="ignore"):
        a1 = special.ndtr(z0 + (z0 + z_lo) / (1.0 - accel * (z0 + z_lo)))
        a2 = special.ndtr(z0 + (z0 - z_lo) / (1.0 - accel * (z0 - z_lo)))
    if not (np.isfinite(a1) and np.isfinite(a2)):
        return None, EXTREME
    low, high = np.quantile(values, [a1, a2])
    return (float(low), float(high)), None


class Resampled(Protocol):
    """Figures computable on any resample of the units, and their exact jackknife."""

    def values(self, counts: np.ndarray) -> np.ndarray:
        """The figures' values ``(m, b)`` for ``b`` resamples given as unit counts per pattern
        ``(b, P)`` (the whole data: ``freq[None]``); NaN where a figure is undefined."""
        ...

    def jackknife(self) -> Jackknife:
        """The leave-one-unit-out values of the ``m`` figures."""
        ...


@dataclass(frozen=True)
class SumStatistic:
    """Figures that are a function of sums over units (:class:`UnitPatterns` rows).

    ``statistic`` maps sums of shape ``(b, d)`` to values of shape ``(m, b)`` (NaN where a
    figure is undefined); the jackknife evaluates it on each pattern's leave-one-out sums.
    """

    patterns: UnitPatterns
    statistic: Callable[[np.ndarray], np.ndarray]

    def values(self, counts: np.ndarray) -> np.ndarray:
        """See :meth:`Resampled.values`."""
        return np.asarray(self.statistic(counts @ self.patterns.rows), dtype=float)

    def jackknife(self) -> Jackknife:
        """See :meth:`Resampled.jackknife`."""
        leave_one_out = self.patterns.total()[None, :] - self.patterns.rows
        jack = np.asarray(self.statistic(leave_one_out), dtype=float)
        return Jackknife.dense(jack, self.patterns.freq)


def bca_many(
    figures: Sequence[Resampled],
    freq: np.ndarray,
    *,
    n_boot: int,
    seed: int,
    confidence: float,
    intervals: bool = True,
) -> tuple[np.ndarray, list[Interval]]:
    """Point estimates and BCa intervals of several groups of figures over the same units.

    Every group sees the same resamples (:func:`resample_counts` of the patterns' ``freq``,
    drawn once); the acceleration comes from each group's exact jackknife and each interval
    from :func:`bca_interval`. With ``intervals=False`` only the estimates are computed.

    Returns:
        The estimates ``(m,)`` (NaN where undefined) and one interval per figure, groups in
        order (``(None, None)`` each without ``intervals``).
    """
    with np.errstate(all="ignore"):
        whole = [f.values(freq[None, :].astype(float))[:, 0] for f in figures]
    theta = np.concatenate(whole)
    if not intervals:
        return theta, [(None, None)] * len(theta)
    if freq.sum() < 2:
        return theta, [(None, "confidence interval needs at least two units")] * len(theta)
    sizes = [len(w) for w in whole]
    ends = np.cumsum(sizes)
    boot = np.empty((len(theta), n_boot))  # filled in place: one copy of the distribution
    done = 0
    with np.errstate(all="ignore"):
        for counts in resample_counts(freq, n_boot, seed):
            b = len(counts)
            for f, end, size in zip(figures, ends, sizes, strict=True):
                boot[end - size : end, done : done + b] = f.values(counts)
            done += b
        accel = np.concatenate(
            [f.jackknife().acceleration(size) for f, size in zip(figures, sizes, strict=True)]
        )
    return theta, intervals_of(theta, boot, accel, confidence)


def bca_intervals(
    patterns: UnitPatterns,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> list[Interval]:
    """BCa bootstrap intervals over units of a :class:`SumStatistic` (see :func:`bca_many`).

    Returns:
        One ``(interval, None)`` or ``(None, reason)`` per statistic.
    """
    figures = SumStatistic(patterns, statistic)
    return bca_many([figures], patterns.freq, n_boot=n_boot, seed=seed, confidence=confidence)[1]


def intervals_of(
    theta: np.ndarray, boot: np.ndarray, accel: np.ndarray, confidence: float
) -> list[Interval]:
    """:func:`bca_interval` of each statistic (``theta (m,)``, ``boot (m, B)``, ``accel (m,)``)."""
    return [
        bca_interval(float(theta[i]), boot[i], float(accel[i]), confidence)
        if math.isfinite(theta[i])
        else (None, "undefined")
        for i in range(theta.shape[0])
    ]


def as_estimates(
    theta: np.ndarray, cis: Sequence[Interval], reasons: Sequence[str], ns: Sequence[int]
) -> list[Estimate]:
    """:class:`Estimate` of each figure: undefined with its reason, or with its BCa interval
    (``method="bca_bootstrap"``), or without one and why."""
    out = []
    for value, n, reason, (ci, why) in zip(theta, ns, reasons, cis, strict=True):
        if not math.isfinite(value):
            out.append(Estimate.undefined(reason, n))
        elif ci is None:
            out.append(Estimate(float(value), None, None, n, reason=why))
        else:
            out.append(Estimate(float(value), ci[0], ci[1], n, method="bca_bootstrap"))
    return out


def bca_estimates(
    patterns: UnitPatterns,
    statistic: Callable[[np.ndarray], np.ndarray],
    reasons: list[str],
    *,
    ns: list[int] | None = None,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[Estimate]:
    """Point estimates of ``statistic`` over all units, each with its BCa interval.

    Args:
        patterns: The units as :class:`UnitPatterns`.
        statistic: See :class:`SumStatistic`.
        reasons: Why each statistic is undefined when it is (one per statistic).
        ns: The n to report for each statistic (defaults to every unit).
        intervals: Compute intervals at all (``False`` for quick point estimates).
        n_boot: Resamples.
        seed: Seed; the same seed gives the same intervals.
        confidence: Confidence level.

    Returns:
        One :class:`Estimate` per statistic, ``method="bca_bootstrap"`` when it has an interval.
    """
    theta, cis = bca_many(
        [SumStatistic(patterns, statistic)],
        patterns.freq,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        intervals=intervals,
    )
    counts = ns if ns is not None else [patterns.n] * len(theta)
    return as_estimates(theta, cis, reasons, counts)


def mean_bca(
    values: list[float] | np.ndarray,
    *,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    empty: str = "no values",
) -> Estimate:
    """The mean of ``values`` with a BCa bootstrap interval (units = the values)."""
    x = np.asarray(values, dtype=float).reshape(-1)
    if x.size == 0:
        return Estimate.undefined(empty, 0)
    patterns = UnitPatterns.from_units(np.column_stack([x, np.ones_like(x)]))

    def stat(s: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.where(s[:, 1] > 0, s[:, 0] / s[:, 1], np.nan)[None, :]

    return bca_estimates(patterns, stat, [empty], n_boot=n_boot, seed=seed, confidence=confidence)[
        0
    ]
