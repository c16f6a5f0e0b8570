"""ICC(2,1): two-way random effects, absolute agreement, single rater (Shrout & Fleiss 1979).

For interval ratings (a Likert scale treated as numbers): every unit is rated by the same k
raters, drawn from a larger population of raters, and a single rater's rating is what would
be used. Only units rated by every rater count (the two-way ANOVA needs a complete table).

The interval is the F-based one of McGraw & Wong (1996, case 2A), as pingouin and R's
``irr::icc`` compute it.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from medjudge.judging.stats.estimates import Estimate


def icc_2_1(ratings: np.ndarray, confidence: float = 0.95) -> Estimate:
    """ICC(2,1) of a complete ``(n_units, k_raters)`` table of numbers.

    Args:
        ratings: One row per unit, one column per rater; no missing values.
        confidence: Confidence level of the interval.

    Returns:
        The estimate (``method="f_distribution"``), or an undefined one with a reason.
    """
    y = np.asarray(ratings, dtype=float)
    if y.ndim != 2:
        raise ValueError("ratings must be a units × raters table")
    n, k = y.shape
    if k < 2:
        return Estimate.undefined("needs at least two raters", n)
    if n < 2:
        return Estimate.undefined("needs at least two units rated by every rater", n)
    grand = y.mean()
    ss_rows = k * ((y.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_total = ((y - grand) ** 2).sum()
    ss_err = ss_total - ss_rows - ss_cols
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    if denom <= 1e-12:
        return Estimate.undefined("no variation in the ratings", n)
    icc = (msr - mse) / denom
    alpha = 1.0 - confidence
    low = high = None
    if mse > 1e-12 and icc < 1.0:
        a = k * icc / (n * (1.0 - icc))
        b = 1.0 + k * icc * (n - 1) / (n * (1.0 - icc))
        v = (a * msc + b * mse) ** 2 / (
            (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
        )
        fc = stats.f.ppf(1.0 - alpha / 2.0, n - 1, v)
        fd = stats.f.ppf(1.0 - alpha / 2.0, v, n - 1)
        low = n * (msr - fc * mse) / (fc * (k * msc + (k * n - k - n) * mse) + n * msr)
        high = n * (fd * msr - mse) / (k * msc + (k * n - k - n) * mse + n * fd * msr)
    if low is None or high is None:
        return Estimate(float(icc), None, None, n, reason="no interval: no residual variation")
    return Estimate(
        float(icc), max(-1.0, float(low)), min(1.0, float(high)), n, method="f_distribution"
    )
