"""Prediction-powered mean estimation with power tuning (PPI++; Angelopoulos, Duchi & Zrnic
2023, arXiv:2311.01453): a reference label's mean from a few reference labels and many
predictions.

Data: ``n`` labelled units with the reference label ``Y`` (a physician's) and the prediction
``Yhat`` (the judge's), and ``N`` further units with ``Yhat`` only. With a weight λ,

    θ̂(λ) = λ · mean(Yhat_unlabelled) + mean(Y − λ · Yhat)
    se²(λ) = λ² · var(Yhat_unlabelled) / N + var(Y − λ · Yhat) / n      (variances with ddof 0)

and the interval is θ̂ ± z·se. θ̂ is unbiased for E[Y] for every fixed λ when the labelled units
are a uniform random sample of all units; λ = 0 is the physicians-only mean, λ = 1 the original
PPI. Power tuning picks the λ that minimises the variance, estimated from the data:

    λ̂ = cov(Y, Yhat) / ((1 + n/N) · var(Yhat over all n + N units)),  clipped to [0, 1]

(covariance over the labelled units with ddof 0, the variance with ddof 1) — exactly what
``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` compute with ``lam=None`` (the tests check
them against each other to 1e-6). Where ppi_py would divide by zero this module decides: no
unlabelled unit (N = 0) or predictions that never vary give λ = 0, the labelled mean.

The interval ignores the finite-population correction, as ppi_py does: it is for the mean of
the process that produced the units, and conservative for the mean of these units. It is not
clipped to [0, 1] either (a share's corrected interval can cross 0 or 1 by a little).

Two further questions are answered here:

* :func:`ppi_mean_difference` — source A minus source B on the same units (a paired
  difference). It is PPI++ on the per-unit difference ``Y_A − Y_B`` with ``Yhat_A − Yhat_B``:
  the difference of two means over the same units is the mean of the differences, so the
  estimator, its interval and its λ (tuned for the difference itself) follow from the one-mean
  case, and the pairing (the correlation of A's and B's outcomes on a unit) is in the variance
  without a separate covariance term. Joint estimation (a λ per source plus the cross
  covariance) would allow two weights; one is enough when both sources are judged by the same
  judge, and the simple form is what ppi_py computes on the difference vector.
* :func:`labels_needed` — how many more randomly sampled reference labels would bring the
  interval's half-width to a target, from the variances the data show (see there).

These are the plain estimators, equal to ppi_py's. What the judge audit shows at the sample
sizes study teams have (a few dozen labels) is their small-sample form, in :mod:`.ppi_bounded`.

Everything works on a batch of studies at once (arrays of shape ``(studies, units)``), so a
coverage simulation of thousands of studies is a few array operations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

Floats = NDArray[np.float64]


def _rows(x: ArrayLike) -> Floats:
    """``x`` as a float array of shape (studies, units) (one row for a plain vector)."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        return a[np.newaxis, :]
    if a.ndim != 2:
        raise ValueError(f"expected a vector or a (studies, units) array, not shape {a.shape}")
    return a


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def _check(y: Floats, yhat: Floats, unlabelled: Floats) -> None:
    if y.shape != yhat.shape:
        raise ValueError(f"Y and Yhat differ in shape: {y.shape} and {yhat.shape}")
    if unlabelled.shape[0] != y.shape[0]:
        raise ValueError("Yhat_unlabelled has another number of studies than Y")
    if y.shape[1] == 0:
        raise ValueError("no labelled unit: PPI needs at least one reference label")


def power_tuned_lambda(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike) -> Floats:
    """The power-tuning weight λ̂ of each study (ppi_py's ``lam=None``), clipped to [0, 1].

    Args:
        y: reference labels of the labelled units, shape (n,) or (studies, n).
        yhat: predictions on the same units.
        yhat_unlabelled: predictions on the other units, shape (N,) or (studies, N).

    Returns:
        λ̂ per study, shape (studies,): 0 where N = 0 or the predictions never vary.
    """
    y, yhat, unl = _rows(y), _rows(yhat), _rows(yhat_unlabelled)
    _check(y, yhat, unl)
    n, big_n = y.shape[1], unl.shape[1]
    if big_n == 0:
        return np.zeros(y.shape[0])
    cov = ((y - y.mean(axis=1, keepdims=True)) * (yhat - yhat.mean(axis=1, keepdims=True))).mean(
        axis=1
    )
    every = np.concatenate([yhat, unl], axis=1)
    var = every.var(axis=1, ddof=1) if every.shape[1] > 1 else np.zeros(y.shape[0])
    denom = (1.0 + n / big_n) * var
    safe = np.where(denom > 0, denom, 1.0)
    lam = np.where(denom > 0, cov / safe, 0.0)
    return np.clip(lam, 0.0, 1.0)


@dataclass(frozen=True)
class PpiMeans:
    """PPI++ estimates of a batch of studies (arrays of shape (studies,)).

    Attributes:
        value: the point estimates θ̂.
        se: their standard errors.
        ci_low: lower ends of the intervals.
        ci_high: upper ends.
        lam: the λ used.
        n: labelled units per study.
        n_unlabelled: units with a prediction only.
    """

    value: Floats
    se: Floats
    ci_low: Floats
    ci_high: Floats
    lam: Floats
    n: int
    n_unlabelled: int


def ppi_means(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
) -> PpiMeans:
    """PPI++ mean and interval for each study of a batch (rows), or for one (vectors).

    Args:
        y: reference labels of the labelled units, shape (n,) or (studies, n).
        yhat: predictions on the labelled units (same shape).
        yhat_unlabelled: predictions on the other units, (N,) or (studies, N); N may be 0.
        confidence: the interval's level (0.95: ppi_py's ``alpha=0.05``).
        lam: a fixed λ; None tunes it (:func:`power_tuned_lambda`).

    Returns:
        The estimates, standard errors and intervals (see the module's formulas).

    Raises:
        ValueError: shapes that do not fit, no labelled unit, or a confidence outside (0, 1).
    """
    y, yhat, unl = _rows(y), _rows(yhat), _rows(yhat_unlabelled)
    _check(y, yhat, unl)
    z = _z(confidence)
    n, big_n = y.shape[1], unl.shape[1]
    if lam is None:
        lams = power_tuned_lambda(y, yhat, unl)
    else:
        lams = np.full(y.shape[0], float(lam) if big_n else 0.0)
    col = lams[:, np.newaxis]
    rectified = y - col * yhat
    imputed_mean = unl.mean(axis=1) if big_n else np.zeros(y.shape[0])
    imputed_var = unl.var(axis=1) / big_n if big_n else np.zeros(y.shape[0])
    value = lams * imputed_mean + rectified.mean(axis=1)
    se = np.sqrt(lams**2 * imputed_var + rectified.var(axis=1) / n)
    return PpiMeans(value, se, value - z * se, value + z * se, lams, n, big_n)


@dataclass(frozen=True)
class PpiMean:
    """One PPI++ estimate (see :func:`ppi_mean`)."""

    value: float
    se: float
    ci_low: float
    ci_high: float
    lam: float
    n: int
    n_unlabelled: int

    @property
    def halfwidth(self) -> float:
        """Half the interval's width."""
        return (self.ci_high - self.ci_low) / 2.0


def _one(m: PpiMeans) -> PpiMean:
    return PpiMean(
        float(m.value[0]),
        float(m.se[0]),
        float(m.ci_low[0]),
        float(m.ci_high[0]),
        float(m.lam[0]),
        m.n,
        m.n_unlabelled,
    )


def ppi_mean(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
) -> PpiMean:
    """PPI++ mean of the reference label with its interval, for one study (vectors).

    Equal to ``ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled)`` and
    ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=1 - confidence)`` (``lam=None``).
    """
    return _one(ppi_means(y, yhat, yhat_unlabelled, confidence=confidence, lam=lam))


def ppi_mean_difference(
    y_a: ArrayLike,
    yhat_a: ArrayLike,
    unlabelled_a: ArrayLike,
    y_b: ArrayLike,
    yhat_b: ArrayLike,
    unlabelled_b: ArrayLike,
    *,
    confidence: float = 0.95,
) -> PpiMean:
    """Mean of A minus mean of B over the same units (paired), by PPI++ on the per-unit
    differences (see the module's notes): ``ppi_mean(y_a − y_b, yhat_a − yhat_b, …)``.

    Args:
        y_a: A's reference outcome per labelled unit (e.g. 1 where A won).
        yhat_a: A's predicted outcome on the same units.
        unlabelled_a: A's predicted outcome on the other units.
        y_b: B's on the same labelled units, in the same order.
        yhat_b: B's predicted.
        unlabelled_b: B's predicted on the same other units, in the same order.
        confidence: the interval's level.
    """
    diff = [
        np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
        for a, b in ((y_a, y_b), (yhat_a, yhat_b), (unlabelled_a, unlabelled_b))
    ]
    return ppi_mean(diff[0], diff[1], diff[2], confidence=confidence)


@dataclass(frozen=True)
class LabelsNeeded:
    """More reference labels to reach a half-width (see :func:`labels_needed`).

    Attributes:
        more: further labels needed (0: reached already); None when even labelling every
            unit would not reach the target.
        halfwidth_now: the half-width with the labels there are.
        halfwidth_then: the projected half-width with ``more`` further labels (with every unit
            labelled when ``more`` is None).
        units: all units (labelled and not): the most that can be labelled.
    """

    more: int | None
    halfwidth_now: float
    halfwidth_then: float
    units: int


def projected_halfwidths(
    y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike, *, confidence: float = 0.95
) -> Floats:
    """The projected half-width of the PPI++ interval with m = n, n + 1, …, n + N labelled
    units (index k: k more labels), from the variances the data show now.

    For m labelled units of the M = n + N, with σ²_Y, σ²_f and c the variance of the reference
    labels, of the predictions and their covariance over the labelled units (ddof 0), σ²_U the
    predictions' variance over the units still unlabelled, and v the predictions' variance over
    all units (ddof 1):

        λ(m)  = clip(c / ((1 + m/(M − m)) · v), 0, 1)       (λ = 0 at m = M)
        se²(m) = λ(m)² · σ²_U / (M − m) + (σ²_Y − 2λ(m)·c + λ(m)²·σ²_f) / m
        h(m)  = z · se(m)

    At m = n this is the interval the data give now (the same λ and variances). The more
    labels are assumed to be a uniform random sample of the units not yet labelled, with the
    same variances.
    """
    y1, yhat1, unl1 = _rows(y), _rows(yhat), _rows(yhat_unlabelled)
    _check(y1, yhat1, unl1)
    if y1.shape[0] != 1:
        raise ValueError("projected_halfwidths takes one study (vectors)")
    y0, f0, u0 = y1[0], yhat1[0], unl1[0]
    z = _z(confidence)
    n, big_n = y0.size, u0.size
    total = n + big_n
    var_y = float(y0.var())
    var_f = float(f0.var())
    cov = float(((y0 - y0.mean()) * (f0 - f0.mean())).mean())
    var_u = float(u0.var()) if big_n else 0.0
    every = np.concatenate([f0, u0])
    v = float(every.var(ddof=1)) if every.size > 1 else 0.0
    m = np.arange(n, total + 1, dtype=np.float64)
    rest = total - m
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where((rest > 0) & (v > 0), cov / ((1.0 + m / rest) * v), 0.0)
        lam = np.clip(lam, 0.0, 1.0)
        imputed = np.where(rest > 0, lam**2 * var_u / rest, 0.0)
    rectified = np.maximum(var_y - 2.0 * lam * cov + lam**2 * var_f, 0.0) / m
    return np.asarray(z * np.sqrt(imputed + rectified), dtype=np.float64)


def labels_needed(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    target_halfwidth: float,
    *,
    confidence: float = 0.95,
) -> LabelsNeeded:
    """How many further randomly sampled reference labels bring the PPI++ interval's
    half-width to ``target_halfwidth`` or below: the smallest k with
    ``projected_halfwidths(...)[k] <= target`` (the variance formula solved for n by a search
    over every possible n, since λ changes with n and the unlabelled units run out).

    Raises:
        ValueError: a target that is not positive, or data :func:`ppi_means` refuses.
    """
    if not (target_halfwidth > 0 and math.isfinite(target_halfwidth)):
        raise ValueError(f"the target half-width must be positive, not {target_halfwidth!r}")
    h = projected_halfwidths(y, yhat, yhat_unlabelled, confidence=confidence)
    now = float(h[0])
    # a tolerance in the last digits: the target equal to the current width needs no label
    reached = np.flatnonzero(h <= target_halfwidth * (1.0 + 1e-12))
    units = int(h.size - 1 + np.asarray(y).shape[-1])
    if reached.size == 0:
        return LabelsNeeded(None, now, float(h[-1]), units)
    k = int(reached[0])
    return LabelsNeeded(k, now, float(h[k]), units)
