"""The audit's corrected figure computed apart from the product's code, for the tests: the
moments re-derived here as weighted averages (the labelled pairs with a quarter pseudo-pair
at each corner of the range, the unlabelled values with half a pseudo-value at each end), the
point estimate from ppi_py at that λ, the interval from statsmodels' Wilson interval for the
effective sample size (docs/statistics.md, "Corrected figures")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .reference import Reference
from .reference_calls import ppi_mean, wilson_fractional


@dataclass(frozen=True)
class Corrected:
    """What the report should say: the value, its interval and λ."""

    value: float
    ci_low: float
    ci_high: float
    lam: float


def corrected(
    reference: Reference,
    y: ArrayLike,
    yhat: ArrayLike,
    unlabelled: ArrayLike,
    *,
    low: float = 0.0,
    high: float = 1.0,
    alpha: float = 0.05,
) -> Corrected:
    """The corrected mean of ``y`` on ``[low, high]`` (see the module)."""
    span = high - low
    ys, fs, us = ((np.asarray(v, dtype=float) - low) / span for v in (y, yhat, unlabelled))
    n, big_n = ys.size, us.size
    weights = np.concatenate([np.ones(n), np.full(4, 0.25)])
    py = np.concatenate([ys, [0.0, 0.0, 1.0, 1.0]])
    pf = np.concatenate([fs, [0.0, 1.0, 0.0, 1.0]])
    ey, ef = np.average(py, weights=weights), np.average(pf, weights=weights)
    var_y = np.average((py - ey) ** 2, weights=weights)
    var_f = np.average((pf - ef) ** 2, weights=weights)
    cov = np.average((py - ey) * (pf - ef), weights=weights)
    pu = np.concatenate([us, [0.0, 1.0]])
    wu = np.concatenate([np.ones(big_n), [0.5, 0.5]])
    var_u = np.average((pu - np.average(pu, weights=wu)) ** 2, weights=wu)
    every = np.concatenate([fs, us])
    lam = float(np.clip(cov / ((1 + n / big_n) * every.var()), 0, 1)) if big_n else 0.0
    se2 = (lam**2 * var_u / big_n if big_n else 0.0) + (var_y - 2 * lam * cov + lam**2 * var_f) / n
    point = reference(ppi_mean, ys, fs, us, alpha=alpha, lam=lam)[0] if big_n else ys.mean()
    point = min(max(point, 0.0), 1.0)
    n_star = min(ey * (1 - ey) / se2, n + big_n)
    lo, hi = reference(wilson_fractional, point * n_star, n_star, alpha)
    return Corrected(low + span * point, low + span * lo, low + span * hi, lam)
