"""A straight-line slope with a heteroskedasticity-robust interval (the judge biases' "change
in win share per 100 words of length difference", :mod:`medjudge.judging.analysis.judge_biases`).

Ordinary least squares of ``y`` on ``x`` with an intercept; the slope's standard error is the
sandwich (HC1, White 1980 with the ``n / (n − 2)`` correction) estimate, right for a 0/1
outcome whose variance changes with ``x`` (a linear probability model), and the interval is
normal, ``slope ± z·se`` — what ``statsmodels.OLS(y, add_constant(x)).fit(cov_type="HC1")``
gives (the tests check them against each other).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .estimates import Estimate, z_value


def linear_slope(
    x: ArrayLike, y: ArrayLike, confidence: float = 0.95, *, empty: str = "no units"
) -> Estimate:
    """The OLS slope of ``y`` on ``x`` (with an intercept) and its HC1 normal interval.

    Undefined (with the reason) for fewer than three points or an ``x`` that never varies.
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    n = int(xs.size)
    if n == 0:
        return Estimate.undefined(empty, 0)
    if n < 3:
        return Estimate.undefined("a slope with an interval needs n >= 3", n)
    dx = xs - xs.mean()
    sxx = float(dx @ dx)
    if sxx <= 0:
        return Estimate.undefined("the length difference never varies", n)
    slope = float(dx @ (ys - ys.mean())) / sxx
    resid = ys - ys.mean() - slope * dx
    # the slope's row of (X'X)⁻¹ X' with X = [1, x] is dx / sxx
    se = float(np.sqrt((dx**2 @ resid**2) / sxx**2 * n / (n - 2)))
    z = z_value(confidence)
    return Estimate(slope, slope - z * se, slope + z * se, n, method="normal_se", se=se)
