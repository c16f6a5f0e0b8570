"""The judge biases' slope (:mod:`medjudge.judging.stats.slope`) against statsmodels' OLS with
HC1 standard errors, and its undefined cases."""

from __future__ import annotations

import numpy as np
import pytest

from medjudge.judging.stats.slope import linear_slope

from .support.reference import Reference
from .support.reference_calls import ols_hc1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_slope_and_interval_equal_statsmodels_hc1(seed: int, reference: Reference) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1.5, 200)
    y = (rng.random(200) < np.clip(0.5 + 0.1 * x, 0, 1)).astype(float)
    fit = reference(ols_hc1, y, x, alpha=0.1)
    got = linear_slope(x, y, 0.9)
    assert (got.value, got.se) == pytest.approx((fit["slope"], fit["se"]), abs=1e-12)
    assert (got.ci_low, got.ci_high) == pytest.approx((fit["ci_low"], fit["ci_high"]), abs=1e-12)
    assert got.n == 200 and got.method == "normal_se"


def test_undefined_slopes_say_why() -> None:
    assert linear_slope([], [], empty="no decisive verdict").reason == "no decisive verdict"
    assert linear_slope([1, 2], [0, 1]).reason == "a slope with an interval needs n >= 3"
    flat = linear_slope([1, 1, 1, 1], [0, 1, 0, 1])
    assert flat.value is None and flat.reason == "the length difference never varies"
