"""Multi-rater figures as functions of sums over units (the bootstrap's sufficient statistics).

:func:`pattern_sums` turns each distinct pattern of labels (one row per pattern, one column
per rater, ``-1`` = missing) into a vector of named blocks — counts, coincidences, agreeing
and total label pairs, majority eligibility — whose sums over units give every figure of
:mod:`.agreement_multi`. The functions below compute the figures from such sums for one
data set or a batch of bootstrap resamples at once (NaN where undefined).
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-12


class Layout:
    """Named column blocks of the per-unit sum vectors."""

    def __init__(self) -> None:
        self.blocks: dict[str, slice] = {}
        self.parts: list[np.ndarray] = []
        self.width = 0

    def add(self, name: str, values: np.ndarray) -> None:
        width = int(np.prod(values.shape[1:])) if values.ndim > 1 else 1
        values = values.reshape(values.shape[0], width).astype(float)
        self.blocks[name] = slice(self.width, self.width + values.shape[1])
        self.width += values.shape[1]
        self.parts.append(values)

    def matrix(self) -> np.ndarray:
        return np.hstack(self.parts)


def pattern_sums(codes: np.ndarray, q: int) -> Layout:
    """Per-pattern vectors whose sums over units give every figure."""
    n_pat, n_raters = codes.shape
    counts = np.zeros((n_pat, q))
    for r in range(n_raters):
        has = codes[:, r] >= 0
        np.add.at(counts, (np.nonzero(has)[0], codes[has, r]), 1.0)
    m = counts.sum(axis=1)
    complete = (m == n_raters).astype(float)
    pairable = m >= 2
    agree_pairs = (counts * (counts - 1.0)).sum(axis=1) / 2.0
    all_pairs = m * (m - 1.0) / 2.0
    safe_pairs = np.where(pairable, all_pairs, 1.0)
    outer = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(q)[None]
    coincidence = np.where(
        pairable[:, None, None], outer / np.where(pairable, m - 1.0, 1.0)[:, None, None], 0.0
    )
    rows = np.arange(n_pat)
    eligible = np.zeros((n_pat, n_raters))
    maj_agree = np.zeros((n_pat, n_raters))
    for r in range(n_raters):
        has = codes[:, r] >= 0
        others = counts.copy()
        others[rows[has], codes[has, r]] -= 1.0
        m_others = others.sum(axis=1)
        top = others.argmax(axis=1) if q else np.zeros(n_pat, dtype=int)
        top_count = others.max(axis=1) if q else np.zeros(n_pat)
        majority = (m_others >= 2) & (top_count > m_others / 2.0)
        eligible[:, r] = has & majority
        maj_agree[:, r] = has & majority & (codes[:, r] == top)
    denom_r = max(n_raters * (n_raters - 1.0), 1.0)

    lay = Layout()
    lay.add("complete", complete)
    lay.add("c_counts", complete[:, None] * counts)
    lay.add("c_punit", complete * ((counts**2).sum(axis=1) - n_raters) / denom_r)
    lay.add("c_cat", complete[:, None] * counts * (n_raters - counts))
    lay.add("coincidence", coincidence)
    lay.add("pairable", pairable.astype(float))
    lay.add("agree_pairs", np.where(pairable, agree_pairs, 0.0))
    lay.add("all_pairs", np.where(pairable, all_pairs, 0.0))
    lay.add("p_unit", np.where(pairable, agree_pairs / safe_pairs, 0.0))
    lay.add("unanimous", pairable & (counts.max(axis=1, initial=0.0) == m))
    lay.add("maj_eligible", eligible)
    lay.add("maj_agree", maj_agree)
    return lay


def fleiss_from_sums(s: np.ndarray, b: dict[str, slice], n_raters: int) -> np.ndarray:
    """Fleiss' κ from sums ``s`` (B, d); NaN where undefined."""
    nb = s[:, b["complete"]][:, 0]
    safe = np.where(nb > 0, nb, 1.0)
    pa = s[:, b["c_punit"]][:, 0] / safe
    pi = s[:, b["c_counts"]] / (safe[:, None] * n_raters)
    pe = (pi**2).sum(axis=1)
    ok = (nb >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (pa - pe) / (1.0 - pe), np.nan)


def fleiss_chance(total: np.ndarray, b: dict[str, slice], n_raters: int) -> float | None:
    """Fleiss' chance agreement pₑ = Σ_j p_j² from the sums over all units (None: no complete
    unit)."""
    nb = float(total[b["complete"]][0]) if total.size else 0.0
    if nb <= 0 or n_raters < 1:
        return None
    p = total[b["c_counts"]] / (nb * n_raters)
    return float((p**2).sum())


def fleiss_per_category(s: np.ndarray, b: dict[str, slice], n_raters: int) -> np.ndarray:
    """Fleiss' (1971) κ_j per category, shape (q, B)."""
    nb = s[:, b["complete"]][:, 0]
    safe = np.where(nb > 0, nb, 1.0)
    p = s[:, b["c_counts"]] / (safe[:, None] * n_raters)
    spread = safe[:, None] * n_raters * (n_raters - 1.0) * p * (1.0 - p)
    with np.errstate(all="ignore"):
        k = 1.0 - s[:, b["c_cat"]] / spread
    ok = (nb[:, None] >= 2) & (spread > _EPS)
    return np.where(ok, k, np.nan).T


def alpha_from_sums(
    s: np.ndarray, b: dict[str, slice], q: int, scale: str, scores: np.ndarray
) -> np.ndarray:
    """Krippendorff's α from coincidences (as ``krippendorff.alpha``); NaN where undefined."""
    o = s[:, b["coincidence"]].reshape(-1, q, q)
    n_v = o.sum(axis=1)
    n_tot = n_v.sum(axis=1)
    if scale == "ordinal":
        cum = np.cumsum(n_v, axis=1)
        lo = np.minimum.outer(np.arange(q), np.arange(q))
        hi = np.maximum.outer(np.arange(q), np.arange(q))
        between = cum[:, hi] - cum[:, lo] + n_v[:, lo]
        d = (between - (n_v[:, :, None] + n_v[:, None, :]) / 2.0) ** 2
    elif scale == "interval":
        d = np.broadcast_to((scores[:, None] - scores[None, :]) ** 2, o.shape)
    else:
        d = np.broadcast_to(1.0 - np.eye(q), o.shape)
    with np.errstate(all="ignore"):
        e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(q)) / (n_tot - 1.0)[
            :, None, None
        ]
        observed = (o * d).sum(axis=(1, 2))
        expected = (e * d).sum(axis=(1, 2))
        ok = (n_tot >= 2) & (expected > _EPS)
        return np.where(ok, 1.0 - observed / expected, np.nan)


def fleiss_se(counts: np.ndarray, freq: np.ndarray, n_raters: int, kappa: float) -> float:
    """Gwet's linearisation SE of Fleiss' κ on complete units (irrCAC ``CAC.fleiss()``)."""
    n = float(freq.sum())
    pi = (freq @ counts) / (n * n_raters)
    pe = float((pi**2).sum())
    pa_unit = ((counts**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    k_unit = (pa_unit - pe) / (1.0 - pe)
    pe_unit = counts @ pi / n_raters
    x = k_unit - 2.0 * (1.0 - kappa) * (pe_unit - pe) / (1.0 - pe)
    return float(np.sqrt(max((freq * (x - kappa) ** 2).sum() / (n * (n - 1.0)), 0.0)))
