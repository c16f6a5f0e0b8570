"""Gwet's AC1 and Bennett's S (the Brennan–Prediger coefficient) for any number of raters,
computed as irrCAC's ``CAC.gwet()`` and ``CAC.bp()`` compute them (Gwet 2014).

Both share Fleiss' observed agreement over units with missing labels (Gwet's generalisation,
as :func:`.readers.fleiss_all_units`) and differ in the chance agreement:

* the **units**: every unit with at least one label (``n``) takes part; the observed agreement
  p_a is the mean over the units with two or more labels (``n₂``) of each unit's share of
  agreeing label pairs; the category shares π_k average each labelled unit's shares;
* **AC1**: p_e = Σ_k π_k (1 − π_k) / (q − 1), q the declared categories;
* **S**: p_e = 1/q;
* the coefficient is (p_a − p_e)/(1 − p_e); its variance Gwet's linearisation,
  Σ_i (x_i − coefficient)² / (n (n − 1)) over the labelled units (no finite-population
  correction), with x_i = (n/n₂)(p_a,i − p_e·[r_i ≥ 2])/(1 − p_e), AC1 also subtracting
  2(1 − AC1)(p_e,i − p_e)/(1 − p_e);
* the interval, as irrCAC's: coefficient ± t·SE with Student's t on n − 1 degrees of freedom
  (clipped to [−1, 1]).

The estimate's ``n`` is n₂, the units the agreement is measured on, as Fleiss' κ over all
units prints it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from medjudge.judging.stats.agreement.readers import UnitCounts
from medjudge.judging.stats.estimates import ZERO_WIDTH, Estimate

NO_PAIRS = "no unit labelled by two raters"
ONE_CATEGORY = "only one category on the scale (needs at least two)"


def t_interval(value: float, se: float, n: int, confidence: float) -> tuple[float, float]:
    """``value ± t·se`` with Student's t on ``n − 1`` degrees of freedom, clipped to [−1, 1]
    (irrCAC's interval)."""
    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * se
    return max(-1.0, value - half), min(1.0, value + half)


def _agreement(counts: UnitCounts) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Each unit's share of agreeing label pairs (0 below two labels), which units have two
    labels or more, and how many units have one label or more (n) and two or more (n₂)."""
    ri = counts.per_unit
    two = ri >= 2
    with np.errstate(all="ignore"):
        pairs = np.bincount(counts.unit, counts.count * (counts.count - 1.0), len(ri))
        pa_i = np.where(two, pairs / (ri * (ri - 1.0)), 0.0)
    return pa_i, two, int((ri > 0).sum()), int(two.sum())


def _estimate(
    value: float,
    x: np.ndarray,
    n: int,
    n2: int,
    *,
    intervals: bool,
    confidence: float,
    why_zero: str,
) -> Estimate:
    if not intervals or n < 2:
        return Estimate(value, None, None, n2, reason=None if not intervals else "n < 2")
    se = math.sqrt(max(float(((x - value) ** 2).sum() / (n * (n - 1.0))), 0.0))
    low, high = t_interval(value, se, n, confidence)
    return Estimate(
        value, low, high, n2, reason=why_zero if se == 0.0 else None, method="student_t", se=se
    )


def gwet_ac1_all_units(
    counts: UnitCounts,
    q: int,
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    zero_width: str = ZERO_WIDTH,
) -> Estimate:
    """Gwet's AC1 of any number of raters over every labelled unit, as irrCAC's
    ``CAC.gwet()`` (identity weights; ``q`` the declared categories). ``zero_width`` is the
    reason given when the standard error is 0 (the caller knows its cause)."""
    if q < 2:
        return Estimate.undefined(ONE_CATEGORY, 0)
    pa_i, two, n, n2 = _agreement(counts)
    if n2 == 0:
        return Estimate.undefined(NO_PAIRS, 0)
    ri = counts.per_unit[counts.unit]
    pa = float(pa_i[two].sum() / n2)
    pi = np.bincount(counts.cat, counts.count / ri, minlength=q)[:q] / n
    pe = float((pi * (1.0 - pi)).sum() / (q - 1.0))
    value = (pa - pe) / (1.0 - pe)
    labelled = counts.per_unit > 0
    with np.errstate(all="ignore"):
        pe_i = (
            np.bincount(counts.unit, counts.count * (1.0 - pi[counts.cat]), len(counts.per_unit))
            / counts.per_unit
            / (q - 1.0)
        )
    ac1_i = (n / n2) * (pa_i - pe * two) / (1.0 - pe)
    x = (ac1_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe))[labelled]
    return _estimate(
        value,
        x,
        n,
        n2,
        intervals=intervals,
        confidence=confidence,
        why_zero=zero_width,
    )


def bennett_s_all_units(
    counts: UnitCounts,
    q: int,
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    zero_width: str = ZERO_WIDTH,
) -> Estimate:
    """Bennett's S (Brennan–Prediger) of any number of raters over every labelled unit, as
    irrCAC's ``CAC.bp()`` (identity weights; chance agreement 1/q, ``q`` the declared
    categories)."""
    if q < 2:
        return Estimate.undefined(ONE_CATEGORY, 0)
    pa_i, two, n, n2 = _agreement(counts)
    if n2 == 0:
        return Estimate.undefined(NO_PAIRS, 0)
    pa = float(pa_i[two].sum() / n2)
    pe = 1.0 / q
    value = (pa - pe) / (1.0 - pe)
    labelled = counts.per_unit > 0
    x = ((n / n2) * (pa_i - pe * two) / (1.0 - pe))[labelled]
    return _estimate(
        value,
        x,
        n,
        n2,
        intervals=intervals,
        confidence=confidence,
        why_zero=zero_width,
    )
