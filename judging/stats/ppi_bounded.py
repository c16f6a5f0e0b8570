"""PPI++ at the sample sizes study teams have: the corrected figure the judge audit shows and
the plan for more labels (docs/statistics.md, "Corrected figures").

The plain estimator (:mod:`.ppi`, equal to ppi_py) has a normal interval that covers 84–90% at
a few dozen labels for shares near 0.1, and zero width when every sampled residual is equal.
:func:`bounded_ppi_mean` keeps PPI++'s estimator with three changes: λ and the variances from
the labelled moments with :data:`PRIOR_WEIGHT` pseudo-observations at the corners of the
quantity's range (:func:`smoothed_moments`), the point estimate clipped to the range, and a
Wilson score interval for the effective sample size. :func:`planned_labels` plans further
labels so that the target is met in :data:`PLAN_LEVEL` of studies. Both use one variance
formula, :func:`_variances`, for the labels there are and for every planned number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from medjudge.judging.stats.ppi import Floats, LabelsNeeded, _check, _rows, _z

MIN_CORRECTED_N = 20
"""Fewer reference labels than this give no corrected figure ("too few physician labels (n)"):
the coverage simulation (``tests/test_ppi_small_samples.py``) shows the interval holding its
level from 20 labels per group up, not below."""

PRIOR_WEIGHT = 1.0
"""Pseudo-observations added to the labelled sample's moments: one in all, a quarter at each
corner of the range (both labels at the low end, both high, and the two disagreements). It
keeps a judge that agreed on every sampled unit from looking perfect (a zero variance and a
zero-width interval), and is outweighed as labels come in (a weight of 1 against n)."""

PLAN_LEVEL = 0.8
"""The share of studies that should reach the target at the planned number of labels."""


@dataclass(frozen=True)
class SmoothedMoments:
    """The moments PPI++ needs, on the range rescaled to [0, 1], with :data:`PRIOR_WEIGHT`'s
    pseudo-observations in the labelled ones (see :func:`smoothed_moments`)."""

    mean_y: float
    var_y: float
    var_f: float
    cov: float
    mean_u: float
    var_u: float
    var_all: float
    n: int
    n_unlabelled: int


def _unit(x: ArrayLike, low: float, high: float) -> Floats:
    a = np.asarray(x, dtype=np.float64)
    return np.clip((a - low) / (high - low), 0.0, 1.0)


def _vectors(
    y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike, low: float, high: float
) -> tuple[Floats, Floats, Floats]:
    """The three vectors of one study, checked, on the range rescaled to [0, 1]."""
    if not (math.isfinite(low) and math.isfinite(high) and high > low):
        raise ValueError(f"the range must have low < high, not [{low!r}, {high!r}]")
    y1, f1, u1 = _rows(y), _rows(yhat), _rows(yhat_unlabelled)
    _check(y1, f1, u1)
    if y1.shape[0] != 1:
        raise ValueError("the corrected figure takes one study (vectors)")
    return _unit(y1[0], low, high), _unit(f1[0], low, high), _unit(u1[0], low, high)


def smoothed_moments(
    y: Floats, f: Floats, u: Floats, prior: float = PRIOR_WEIGHT
) -> SmoothedMoments:
    """Means, variances and the covariance (ddof 0) of values already on [0, 1]: the labelled
    pairs ``(y, f)`` with ``prior`` pseudo-pairs spread over the four corners, the unlabelled
    predictions ``u`` with ``prior`` pseudo-values spread over 0 and 1."""
    n, big_n = int(y.size), int(u.size)
    w = n + prior
    ey = (float(y.sum()) + prior / 2) / w
    ef = (float(f.sum()) + prior / 2) / w
    eyy = (float((y * y).sum()) + prior / 2) / w
    eff = (float((f * f).sum()) + prior / 2) / w
    eyf = (float((y * f).sum()) + prior / 4) / w
    wu = big_n + prior
    eu = (float(u.sum()) + prior / 2) / wu
    euu = (float((u * u).sum()) + prior / 2) / wu
    mean_u = float(u.mean()) if big_n else eu
    total = n + big_n
    mean_all = (float(f.sum()) + float(u.sum())) / total if total else ef
    sq_all = (float((f * f).sum()) + float((u * u).sum())) / total if total else eff
    return SmoothedMoments(
        mean_y=ey,
        var_y=max(eyy - ey * ey, 0.0),
        var_f=max(eff - ef * ef, 0.0),
        cov=eyf - ey * ef,
        mean_u=mean_u,
        var_u=max(euu - eu * eu, 0.0),
        var_all=max(sq_all - mean_all * mean_all, 0.0),
        n=n,
        n_unlabelled=big_n,
    )


def _variances(mo: SmoothedMoments, m: Floats) -> tuple[Floats, Floats]:
    """λ and the squared standard error with ``m`` of the n + N units labelled (an array of
    numbers of labels; ``m = n`` is the study now), from the smoothed moments:

        λ(m)   = clip(c / ((1 + m/(M − m)) · v), 0, 1)        (0 when every unit is labelled)
        se²(m) = λ(m)² · σ²_U / (M − m) + (σ²_Y − 2λ(m)·c + λ(m)²·σ²_f) / m
    """
    rest = mo.n + mo.n_unlabelled - m
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where((rest > 0) & (mo.var_all > 0), mo.cov / ((1.0 + m / rest) * mo.var_all), 0.0)
        lam = np.clip(lam, 0.0, 1.0)
        imputed = np.where(rest > 0, lam**2 * mo.var_u / rest, 0.0)
    rect = np.maximum(mo.var_y - 2.0 * lam * mo.cov + lam**2 * mo.var_f, 0.0) / m
    return lam, imputed + rect


def wilson_effective(
    value: float, centre_share: float, se2: Floats, cap: float, z: float
) -> tuple[Floats, Floats]:
    """Wilson score intervals around ``value`` (a mean on [0, 1]) for the effective sample
    sizes ``n* = s(1 − s)/se²`` (``s``: the smoothed mean), at most ``cap``: the interval a
    share of ``n*`` independent units would have, so it stays inside [0, 1] and keeps a width
    at 0 and 1, where ``value ± z·se`` does neither. One interval per squared standard error."""
    pq = centre_share * (1.0 - centre_share)
    safe = np.where(se2 > 0, se2, 1.0)
    n_star = np.where(se2 > 0, np.clip(pq / safe, 1e-9, cap), cap)
    z2 = z * z
    centre = (value + z2 / (2 * n_star)) / (1 + z2 / n_star)
    half = z / (1 + z2 / n_star) * np.sqrt(value * (1 - value) / n_star + z2 / (4 * n_star**2))
    # the score interval holds its own centre's estimate (a rounding error could put the
    # end a hair past a value of 0 or 1)
    low = np.minimum(np.maximum(centre - half, 0.0), value)
    high = np.maximum(np.minimum(centre + half, 1.0), value)
    return low, high


@dataclass(frozen=True)
class BoundedMean:
    """A corrected mean on its own range (see :func:`bounded_ppi_mean`).

    Attributes:
        value: the PPI++ point estimate, clipped to [low, high].
        ci_low: lower end of the interval (within the range).
        ci_high: upper end.
        se: the standard error (smoothed moments), on the quantity's scale.
        lam: the power-tuning weight (from the smoothed moments).
        n: labelled units.
        n_unlabelled: units with the judge's value only.
        low: the range's lower end.
        high: its upper end.
    """

    value: float
    ci_low: float
    ci_high: float
    se: float
    lam: float
    n: int
    n_unlabelled: int
    low: float
    high: float

    @property
    def halfwidth(self) -> float:
        """Half the interval's width."""
        return (self.ci_high - self.ci_low) / 2.0


def bounded_ppi_mean(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
    prior: float = PRIOR_WEIGHT,
) -> BoundedMean:
    """The corrected mean of a quantity on ``[low, high]`` with an interval that holds its
    level at small samples and near the range's ends (the audit's corrected figures).

    PPI++ as :func:`ppi_mean`, with three changes where the plain normal interval fails at a
    few dozen labels (coverage 84–90% for shares near 0.1, zero width when every sampled
    residual is equal):

    * λ and the variances come from the labelled sample's moments with ``prior``
      pseudo-observations at the range's corners (:func:`smoothed_moments`), so a judge that
      agreed on every sampled unit still has an error variance;
    * the point estimate ``λ·mean(Yhat_U) + mean(Y − λ·Yhat)`` is clipped to the range;
    * the interval is a Wilson score interval for the effective sample size
      ``s(1 − s)/se²`` on the range rescaled to [0, 1] (:func:`wilson_effective`), mapped
      back: inside the range, asymmetric near its ends.

    Raises:
        ValueError: no labelled unit, shapes that do not fit, or an empty range.
    """
    ys, fs, us = _vectors(y, yhat, yhat_unlabelled, low, high)
    mo = smoothed_moments(ys, fs, us, prior)
    n, big_n = mo.n, mo.n_unlabelled
    lams, se2s = _variances(mo, np.array([float(n)]))
    lam = float(lams[0])
    imputed = float(us.mean()) if big_n else 0.0
    value = float(np.clip(lam * imputed + float((ys - lam * fs).mean()), 0.0, 1.0))
    los, his = wilson_effective(value, mo.mean_y, se2s, float(n + big_n), _z(confidence))
    lo, hi, se = float(los[0]), float(his[0]), math.sqrt(float(se2s[0]))
    span = high - low
    return BoundedMean(
        low + span * value, low + span * lo, low + span * hi, span * se, lam, n, big_n, low, high
    )


def bounded_difference(
    a: BoundedMean, b: BoundedMean, *, low: float, high: float
) -> tuple[float, float, float]:
    """A minus B for independent estimates (different units), with Newcombe's MOVER interval
    from their two intervals (Newcombe 1998, method 10): inside ``[low, high]`` and
    asymmetric where either interval is, where ``√(se_A² + se_B²)`` is neither."""
    d = a.value - b.value
    lo = d - math.hypot(a.value - a.ci_low, b.ci_high - b.value)
    hi = d + math.hypot(a.ci_high - a.value, b.value - b.ci_low)
    return d, max(lo, low), min(hi, high)


def planned_halfwidths(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
    level: float = PLAN_LEVEL,
) -> Floats:
    """The half-width :func:`bounded_ppi_mean` would show with k more labels (index k), as a
    plan that is met with probability ``level``: the variance of the rectified labels is
    taken at its one-sided ``level`` upper confidence bound from the n labels there are
    (``v·(n − 1)/χ²_{1−level}(n − 1)``, on the smoothed moments, so one or a few labels never
    plan from a zero variance), the variance at the planned size likewise on its own degrees
    of freedom, and each projected standard error is turned into the Wilson half-width."""
    ys, fs, us = _vectors(y, yhat, yhat_unlabelled, low, high)
    mo = smoothed_moments(ys, fs, us)
    n, total = mo.n, mo.n + mo.n_unlabelled
    upper = (n - 1) / stats.chi2.ppf(1 - level, n - 1) if n > 1 else 4.0
    _, se2 = _variances(mo, np.arange(n, total + 1, dtype=np.float64))
    value = float(np.clip(mo.mean_y, 0.0, 1.0))
    lo, hi = wilson_effective(value, mo.mean_y, se2 * upper, float(total), _z(confidence))
    return np.asarray((hi - lo) / 2.0 * (high - low), dtype=np.float64)


def planned_labels(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    target_halfwidth: float,
    *,
    low: float = 0.0,
    high: float = 1.0,
    confidence: float = 0.95,
    level: float = PLAN_LEVEL,
) -> LabelsNeeded:
    """Further random reference labels for the corrected interval to be ±target or narrower,
    in at least ``level`` of studies like this one: 0 only when the interval shown now meets
    the target; else the smallest k whose planned half-width (:func:`planned_halfwidths`)
    does; None when not even labelling every unit would.

    Raises:
        ValueError: a target that is not positive, or data :func:`bounded_ppi_mean` refuses.
    """
    if not (target_halfwidth > 0 and math.isfinite(target_halfwidth)):
        raise ValueError(f"the target half-width must be positive, not {target_halfwidth!r}")
    now = bounded_ppi_mean(y, yhat, yhat_unlabelled, low=low, high=high, confidence=confidence)
    units = int(np.asarray(y).shape[-1] + np.asarray(yhat_unlabelled).shape[-1])
    tol = target_halfwidth * (1.0 + 1e-12)
    if now.halfwidth <= tol:
        return LabelsNeeded(0, now.halfwidth, now.halfwidth, units)
    h = planned_halfwidths(
        y, yhat, yhat_unlabelled, low=low, high=high, confidence=confidence, level=level
    )
    reached = np.flatnonzero(h[1:] <= tol)
    if reached.size == 0:
        return LabelsNeeded(None, now.halfwidth, float(h[-1]), units)
    k = int(reached[0]) + 1
    return LabelsNeeded(k, now.halfwidth, float(h[k]), units)
