"""The BCa bootstrap over units, by counts of distinct unit patterns.

The bootstrap resamples *units*: units with the same labels contribute the same sufficient
sums, so the data are reduced to their distinct patterns (:class:`UnitPatterns`) and a resample
is a multinomial draw of pattern counts. Its cost does not grow with the number of units, only
with the number of distinct patterns; the jackknife behind BCa's acceleration is exact and just
as cheap (leave one unit of each pattern out). Intervals follow Efron (1987) as
:func:`scipy.stats.bootstrap` with ``method="BCa"`` computes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

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


def bca_intervals(
    patterns: UnitPatterns,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> list[tuple[tuple[float, float] | None, str | None]]:
    """BCa bootstrap intervals over units for several statistics at once.

    ``statistic`` maps sums of shape ``(B, d)`` to values of shape ``(m, B)`` (NaN where a
    statistic is undefined). Resamples draw ``n`` units with replacement (a multinomial draw
    of pattern counts from ``numpy.random.default_rng(seed)``); the acceleration comes from
    the exact jackknife (each pattern's leave-one-out sums). The bias correction and the
    acceleration follow Efron (1987) exactly as :func:`scipy.stats.bootstrap` with
    ``method="BCa"`` computes them; undefined resamples are left out.

    Returns:
        One ``(interval, None)`` or ``(None, reason)`` per statistic.
    """
    n = patterns.n
    total = patterns.total()
    theta = np.asarray(statistic(total[None, :]), dtype=float)[:, 0]
    m = theta.shape[0]
    if n < 2:
        return [(None, "confidence interval needs at least two units")] * m
    rng = np.random.default_rng(seed)
    probs = patterns.freq / n
    n_pat = len(probs)
    chunk = max(1, min(n_boot, 2_000_000 // max(n_pat, 1)))
    parts = []
    done = 0
    with np.errstate(all="ignore"):
        while done < n_boot:
            b = min(chunk, n_boot - done)
            counts = rng.multinomial(n, probs, size=b).astype(float)
            parts.append(np.asarray(statistic(counts @ patterns.rows), dtype=float))
            done += b
        boot = np.concatenate(parts, axis=1)
        jack = np.asarray(statistic(total[None, :] - patterns.rows), dtype=float)
    alpha = (1.0 - confidence) / 2.0
    z_lo, z_hi = special.ndtri(alpha), special.ndtri(1.0 - alpha)
    out: list[tuple[tuple[float, float] | None, str | None]] = []
    for i in range(m):
        if not math.isfinite(theta[i]):
            out.append((None, "undefined"))
            continue
        values = boot[i]
        finite = values[np.isfinite(values)]
        if finite.size == 0 or finite.size < MIN_DEFINED_SHARE * values.size:
            out.append((None, MOSTLY_UNDEFINED))
            continue
        if np.ptp(finite) == 0:
            out.append((None, SAME_RESAMPLES))
            continue
        share = float(np.mean(finite < theta[i]))
        share = min(max(share, 0.5 / finite.size), 1.0 - 0.5 / finite.size)
        z0 = float(special.ndtri(share))
        jk = jack[i]
        ok = np.isfinite(jk) & (patterns.freq > 0)
        w = patterns.freq[ok]
        accel = 0.0
        if w.sum() >= 2:
            centre = float((w * jk[ok]).sum() / w.sum())
            d = centre - jk[ok]
            den = 6.0 * float((w * d**2).sum()) ** 1.5
            accel = float((w * d**3).sum()) / den if den > 0 else 0.0
        a1 = special.ndtr(z0 + (z0 + z_lo) / (1.0 - accel * (z0 + z_lo)))
        a2 = special.ndtr(z0 + (z0 + z_hi) / (1.0 - accel * (z0 + z_hi)))
        if not (np.isfinite(a1) and np.isfinite(a2)):
            out.append((None, "BCa interval undefined (extreme acceleration)"))
            continue
        low, high = np.percentile(finite, [100.0 * a1, 100.0 * a2])
        out.append(((float(low), float(high)), None))
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
        statistic: See :func:`bca_intervals`.
        reasons: Why each statistic is undefined when it is (one per statistic).
        ns: The n to report for each statistic (defaults to every unit).
        intervals: Compute intervals at all (``False`` for quick point estimates).
        n_boot: Resamples.
        seed: Seed; the same seed gives the same intervals.
        confidence: Confidence level.

    Returns:
        One :class:`Estimate` per statistic, ``method="bca_bootstrap"`` when it has an interval.
    """
    with np.errstate(all="ignore"):
        theta = np.asarray(statistic(patterns.total()[None, :]), dtype=float)[:, 0]
    counts = ns if ns is not None else [patterns.n] * len(theta)
    cis: list[tuple[tuple[float, float] | None, str | None]]
    if intervals:
        cis = bca_intervals(patterns, statistic, n_boot=n_boot, seed=seed, confidence=confidence)
    else:
        cis = [(None, None)] * len(theta)
    out = []
    for value, n, reason, (ci, why) in zip(theta, counts, reasons, cis, strict=True):
        if not math.isfinite(value):
            out.append(Estimate.undefined(reason, n))
        elif ci is None:
            out.append(Estimate(float(value), None, None, n, reason=why))
        else:
            out.append(Estimate(float(value), ci[0], ci[1], n, method="bca_bootstrap"))
    return out


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
