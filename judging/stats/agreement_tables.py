"""Two-rater coefficients as vectorised functions of confusion tables, and their SEs.

The coefficient functions take counts of shape ``(..., k, k)`` (rows = rater a) and return
arrays of shape ``(...)`` with NaN where the coefficient is undefined, so one call handles a
single table or a batch of them. The NaN never leaves
the package: :mod:`.agreement_two` turns it into an undefined :class:`~.estimates.Estimate`.

Standard errors (single table):

* :func:`cohen_se` and :func:`weighted_se`: Fleiss, Cohen & Everitt (1969), equal to
  statsmodels ``cohens_kappa(...).std_kappa``;
* :func:`ac1_se`: Gwet (2008) linearisation, equal to irrCAC's ``CAC.gwet()`` SE.
"""

from __future__ import annotations

import math

import numpy as np

from medjudge.judging.stats.estimates import z_value

_EPS = 1e-12


def margins(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(n, p1, p2)``: total count and the two raters' marginal proportions."""
    n = t.sum(axis=(-2, -1))
    safe = np.where(n > 0, n, 1.0)[..., None]
    return n, t.sum(axis=-1) / safe, t.sum(axis=-2) / safe


def percent_table(t: np.ndarray) -> np.ndarray:
    """Observed agreement p_o."""
    n = t.sum(axis=(-2, -1))
    with np.errstate(all="ignore"):
        return np.where(n > 0, np.trace(t, axis1=-2, axis2=-1) / n, np.nan)


def cohen_table(t: np.ndarray) -> np.ndarray:
    """Cohen's κ = (p_o − p_e) / (1 − p_e), p_e = Σ p1(c)·p2(c)."""
    n, p1, p2 = margins(t)
    po = percent_table(t)
    pe = (p1 * p2).sum(axis=-1)
    ok = (n >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (po - pe) / (1.0 - pe), np.nan)


def _gwet_pe(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    q = p1.shape[-1]
    pi = (p1 + p2) / 2.0
    pe: np.ndarray = (pi * (1.0 - pi)).sum(axis=-1) / max(q - 1, 1)
    return pe


def ac1_table(t: np.ndarray) -> np.ndarray:
    """Gwet's AC1 with p_e = 1/(Q−1) Σ π_q(1−π_q), Q = number of categories (table size)."""
    n, p1, p2 = margins(t)
    if t.shape[-1] < 2:
        return np.full(n.shape, np.nan)
    po = percent_table(t)
    pe = _gwet_pe(p1, p2)
    with np.errstate(all="ignore"):
        return np.where(n >= 2, (po - pe) / (1.0 - pe), np.nan)


def disagreement_weights(k: int, kind: str) -> np.ndarray:
    """Disagreement weights by category position: |i−j|/(k−1), squared for quadratic."""
    idx = np.arange(k, dtype=float)
    d = np.abs(idx[:, None] - idx[None, :]) / max(k - 1, 1)
    return d if kind == "linear" else d**2


def weighted_table(t: np.ndarray, kind: str) -> np.ndarray:
    """Weighted κ = 1 − Σ d·O / Σ d·E (same as sklearn ``cohen_kappa_score(weights=...)``)."""
    n, p1, p2 = margins(t)
    d = disagreement_weights(t.shape[-1], kind)
    safe = np.where(n > 0, n, 1.0)
    observed = (d * t).sum(axis=(-2, -1)) / safe
    expected = (d * p1[..., :, None] * p2[..., None, :]).sum(axis=(-2, -1))
    ok = (n >= 2) & (expected > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, 1.0 - observed / expected, np.nan)


# ------------------------------------------------------------------------ standard errors


def cohen_se(t: np.ndarray, kappa: float) -> float:
    """Large-sample SE of Cohen's κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n, p1, p2 = margins(t)
    p = t / n
    pe = float((p1 * p2).sum())
    term_a = (np.diag(p) * (1.0 - (p1 + p2) * (1.0 - kappa)) ** 2).sum()
    term_b = p * (p2[:, None] + p1[None, :]) ** 2  # p_ij (p_.i + p_j.)^2
    np.fill_diagonal(term_b, 0.0)
    term_b = (1.0 - kappa) ** 2 * term_b.sum()
    term_c = (kappa - pe * (1.0 - kappa)) ** 2
    var = (term_a + term_b - term_c) / (1.0 - pe) ** 2 / n
    return math.sqrt(max(float(var), 0.0))


def weighted_se(t: np.ndarray, kappa: float, kind: str) -> float:
    """Large-sample SE of weighted κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n, p1, p2 = margins(t)
    p = t / n
    w = 1.0 - disagreement_weights(t.shape[-1], kind)
    w_row = (p2[None, :] * w).sum(axis=1)  # w̄_i. = Σ_j p.j w_ij
    w_col = (p1[:, None] * w).sum(axis=0)  # w̄_.j = Σ_i p_i. w_ij
    pe_w = float((w * p1[:, None] * p2[None, :]).sum())
    term_a = (p * (w - (w_col[None, :] + w_row[:, None]) * (1.0 - kappa)) ** 2).sum()
    var = (term_a - (kappa - pe_w * (1.0 - kappa)) ** 2) / ((1.0 - pe_w) ** 2 * n)
    return math.sqrt(max(float(var), 0.0))


def ac1_se(t: np.ndarray, ac1: float) -> float:
    """Gwet (2008) linearisation SE of AC1 for two raters with complete data (as irrCAC)."""
    n, p1, p2 = margins(t)
    q = t.shape[-1]
    pi = (p1 + p2) / 2.0
    pe = float(_gwet_pe(p1, p2))
    agree = np.eye(q)
    ac1_unit = (agree - pe) / (1.0 - pe)
    pe_unit = ((1.0 - pi)[:, None] + (1.0 - pi)[None, :]) / (2.0 * (q - 1))
    x = ac1_unit - 2.0 * (1.0 - ac1) * (pe_unit - pe) / (1.0 - pe)
    var = (t * (x - ac1) ** 2).sum() / (n * (n - 1.0))
    return math.sqrt(max(float(var), 0.0))


def fisher_interval(r: float, n: int, confidence: float, spearman: bool) -> tuple[float, float]:
    """Fisher-z interval; SE sqrt(1.06/(n-3)) for Spearman (Fieller et al.), 1/sqrt(n-3) else."""
    if abs(r) >= 1.0:
        return r, r
    se = math.sqrt((1.06 if spearman else 1.0) / (n - 3))
    z = math.atanh(r)
    half = z_value(confidence) * se
    return math.tanh(z - half), math.tanh(z + half)
