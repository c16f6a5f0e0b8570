"""Two-rater coefficients from a confusion table kept as its non-empty cells, and their SEs.

A :class:`PairTable` holds the two raters' table over ``k`` categories as the cells that hold
units (at most one per unit), so every coefficient below costs time and memory linear in the
units and the categories, never ``k × k``: chance agreement needs only the margins, and the
weighted coefficients' expected disagreement is a sum over the margins in closed form (the
linear and quadratic weights depend on positions only). A coefficient is NaN where it is
undefined; the NaN never leaves the package: :mod:`.two` turns it into an undefined
:class:`~.estimates.Estimate`.

Standard errors:

* :func:`cohen_se` and :func:`weighted_se`: Fleiss, Cohen & Everitt (1969), equal to
  statsmodels ``cohens_kappa(...).std_kappa``;
* :func:`ac1_se`: Gwet (2008) linearisation, equal to irrCAC's ``CAC.gwet()`` SE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from medjudge.judging.stats.estimates import zero_width_reason

_EPS = 1e-12


@dataclass(frozen=True)
class PairTable:
    """Two raters' confusion table over ``k`` categories, as its non-empty cells.

    Attributes:
        k: Number of categories (rows and columns).
        row: Rater a's category code of each cell.
        col: Rater b's category code of each cell.
        count: Units in each cell (``> 0``), cells in row-major order.
    """

    k: int
    row: np.ndarray
    col: np.ndarray
    count: np.ndarray

    @classmethod
    def from_pair_codes(cls, codes: np.ndarray, k: int) -> PairTable:
        """The table of units given as pair codes ``a · k + b`` (codes ``0 … k-1``)."""
        cells, count = np.unique(np.asarray(codes, np.int64), return_counts=True)
        return cls(k, cells // max(k, 1), cells % max(k, 1), count.astype(float))

    @property
    def n(self) -> float:
        """Units in the table."""
        return float(self.count.sum())

    def margins(self) -> tuple[np.ndarray, np.ndarray]:
        """Rater a's and rater b's marginal proportions (zeros for an empty table)."""
        safe = self.n or 1.0
        p1 = np.bincount(self.row, self.count, minlength=self.k)[: self.k] / safe
        p2 = np.bincount(self.col, self.count, minlength=self.k)[: self.k] / safe
        return p1, p2

    def agreeing(self) -> float:
        """Units on the diagonal (both raters gave the same category)."""
        return float(self.count[self.row == self.col].sum())

    def cells(self) -> list[tuple[int, int, int]]:
        """``(row, column, count)`` of every non-empty cell, row-major."""
        counts = self.count.astype(int).tolist()
        return list(zip(self.row.tolist(), self.col.tolist(), counts, strict=True))

    def dense(self) -> np.ndarray:
        """The full ``k × k`` table (for display and small tables only)."""
        t = np.zeros((self.k, self.k))
        t[self.row, self.col] = self.count
        return t


def pair_zero_width(t: PairTable) -> str:
    """Why a two-rater interval has zero width: every unit agrees, one rater gave one label
    to every unit (Cohen's κ is then 0 at any agreement), or neither."""
    p1, p2 = t.margins()
    return zero_width_reason(
        all_agree=bool((t.row == t.col).all()),
        constant_rater=bool((p1 > 0).sum() == 1 or (p2 > 0).sum() == 1),
    )


def percent_table(t: PairTable) -> float:
    """Observed agreement p_o."""
    return t.agreeing() / t.n if t.n > 0 else math.nan


def cohen_table(t: PairTable) -> float:
    """Cohen's κ = (p_o − p_e) / (1 − p_e), p_e = Σ p1(c)·p2(c)."""
    p1, p2 = t.margins()
    pe = float((p1 * p2).sum())
    if t.n < 2 or 1.0 - pe <= _EPS:
        return math.nan
    return (percent_table(t) - pe) / (1.0 - pe)


def _gwet_pe(p1: np.ndarray, p2: np.ndarray) -> float:
    pi = (p1 + p2) / 2.0
    return float((pi * (1.0 - pi)).sum()) / max(len(p1) - 1, 1)


def ac1_table(t: PairTable) -> float:
    """Gwet's AC1 with p_e = 1/(Q−1) Σ π_q(1−π_q), Q = number of categories (table size)."""
    if t.k < 2 or t.n < 2:
        return math.nan
    p1, p2 = t.margins()
    pe = _gwet_pe(p1, p2)
    with np.errstate(all="ignore"):
        return float((percent_table(t) - pe) / (1.0 - pe))


def _distance(i: np.ndarray, j: np.ndarray, k: int, kind: str) -> np.ndarray:
    """Disagreement weights by category position: |i−j|/(k−1), squared for quadratic."""
    d: np.ndarray = np.abs(i - j).astype(float) / max(k - 1, 1)
    return d if kind == "linear" else d**2


def _mean_distance(p: np.ndarray, k: int, kind: str) -> np.ndarray:
    """``D[i] = Σ_j p_j d(i, j)`` for every position ``i``, in O(k) (no ``k × k`` weights)."""
    pos = np.arange(k, dtype=float)
    scale = float(max(k - 1, 1))
    if kind == "quadratic":
        mean, square = float(p @ pos), float(p @ pos**2)
        quadratic: np.ndarray = (pos**2 * p.sum() - 2.0 * pos * mean + square) / scale**2
        return quadratic
    below = np.cumsum(p)  # Σ_{j ≤ i} p_j
    below_pos = np.cumsum(p * pos)  # Σ_{j ≤ i} j p_j
    above, above_pos = p.sum() - below, float(p @ pos) - below_pos
    linear: np.ndarray = (pos * below - below_pos + above_pos - pos * above) / scale
    return linear


def weighted_table(t: PairTable, kind: str) -> float:
    """Weighted κ = 1 − Σ d·O / Σ d·E (same as sklearn ``cohen_kappa_score(weights=...)``)."""
    if t.n < 2:
        return math.nan
    p1, p2 = t.margins()
    observed = float((_distance(t.row, t.col, t.k, kind) * t.count).sum()) / t.n
    expected = float(p1 @ _mean_distance(p2, t.k, kind))
    if expected <= _EPS:
        return math.nan
    return 1.0 - observed / expected


# ------------------------------------------------------------------------ standard errors


def cohen_se(t: PairTable, kappa: float) -> float:
    """Large-sample SE of Cohen's κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n = t.n
    p1, p2 = t.margins()
    p = t.count / n
    pe = float((p1 * p2).sum())
    diag = t.row == t.col
    i, j = t.row[diag], t.col[~diag]
    term_a = (p[diag] * (1.0 - (p1[i] + p2[i]) * (1.0 - kappa)) ** 2).sum()
    term_b = (1.0 - kappa) ** 2 * (p[~diag] * (p2[t.row[~diag]] + p1[j]) ** 2).sum()
    term_c = (kappa - pe * (1.0 - kappa)) ** 2
    var = (term_a + term_b - term_c) / (1.0 - pe) ** 2 / n
    return math.sqrt(max(float(var), 0.0))


def weighted_se(t: PairTable, kappa: float, kind: str) -> float:
    """Large-sample SE of weighted κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n = t.n
    p1, p2 = t.margins()
    p = t.count / n
    w = 1.0 - _distance(t.row, t.col, t.k, kind)  # agreement weights of the cells
    w_row = p2.sum() - _mean_distance(p2, t.k, kind)  # w̄_i. = Σ_j p.j w_ij
    w_col = p1.sum() - _mean_distance(p1, t.k, kind)  # w̄_.j = Σ_i p_i. w_ij
    pe_w = float(p1.sum() * p2.sum() - p1 @ _mean_distance(p2, t.k, kind))
    term_a = (p * (w - (w_col[t.col] + w_row[t.row]) * (1.0 - kappa)) ** 2).sum()
    var = (term_a - (kappa - pe_w * (1.0 - kappa)) ** 2) / ((1.0 - pe_w) ** 2 * n)
    return math.sqrt(max(float(var), 0.0))


def ac1_se(t: PairTable, ac1: float) -> float:
    """Gwet (2008) linearisation SE of AC1 for two raters with complete data (as irrCAC)."""
    n, q = t.n, t.k
    p1, p2 = t.margins()
    pi = (p1 + p2) / 2.0
    pe = _gwet_pe(p1, p2)
    ac1_unit = ((t.row == t.col).astype(float) - pe) / (1.0 - pe)
    pe_unit = ((1.0 - pi)[t.row] + (1.0 - pi)[t.col]) / (2.0 * (q - 1))
    x = ac1_unit - 2.0 * (1.0 - ac1) * (pe_unit - pe) / (1.0 - pe)
    var = (t.count * (x - ac1) ** 2).sum() / (n * (n - 1.0))
    return math.sqrt(max(float(var), 0.0))
