"""Multi-rater label patterns and the sums over units behind the figures of
:mod:`.multi`.

:func:`label_patterns` reduces the units (one row of category codes per unit, ``-1`` =
missing) to their distinct patterns. Each pattern carries a few scalar sums, the named blocks
of its :class:`Layout` (complete, pairable, agreeing and total label pairs, majority
eligibility, Krippendorff's observed disagreement, …), found from its raters' pairs of labels,
and its category counts as sparse entries (at most one per rater). Nothing is
``categories × categories`` or ``units × categories``: memory and time stay linear in
units × raters however many distinct labels there are. The functions below compute Fleiss'
figures from such sums (NaN where undefined).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medjudge.judging.stats.bootstrap_categories import CategoryFigure, CategorySums
from medjudge.judging.stats.estimates import zero_width_reason

_EPS = 1e-12


class Layout:
    """Named column blocks of the per-pattern sum vectors."""

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
        return np.hstack(self.parts) if self.parts else np.zeros((0, 0))


@dataclass(frozen=True)
class LabelPatterns:
    """Units reduced to distinct label patterns, with the sums the figures use.

    Attributes:
        codes: ``(P, R)`` each pattern's category codes (``-1`` = missing).
        freq: ``(P,)`` units per pattern.
        q: Number of categories.
        layout: The scalar sums of each pattern, by name (``layout.blocks``).
        rows: ``(P, d)`` those sums as one matrix.
        pat: Pattern of each category-count entry.
        cat: Category of each entry (pairs ``(pat, cat)`` are unique).
        count: How many of the pattern's labels are that category.
    """

    codes: np.ndarray
    freq: np.ndarray
    q: int
    layout: Layout
    rows: np.ndarray
    pat: np.ndarray
    cat: np.ndarray
    count: np.ndarray

    @property
    def n_raters(self) -> int:
        """Raters (columns of ``codes``)."""
        return int(self.codes.shape[1])

    def block(self, name: str) -> np.ndarray:
        """One scalar block, ``(P,)`` (its first column)."""
        return self.rows[:, self.layout.blocks[name]][:, 0]

    def total(self) -> np.ndarray:
        """Every scalar sum over all units, ``(d,)``."""
        total: np.ndarray = self.freq @ self.rows
        return total

    def category_totals(self, which: np.ndarray) -> np.ndarray:
        """Labels of each category over the units of the patterns where ``which`` holds."""
        keep = which[self.pat]
        w = self.freq[self.pat[keep]] * self.count[keep]
        return np.bincount(self.cat[keep], w, minlength=self.q).astype(float)


def label_patterns(units: np.ndarray, q: int, scores: np.ndarray) -> LabelPatterns:
    """Reduce ``(n, R)`` category codes (``-1`` = missing) to :class:`LabelPatterns`.

    ``scores`` are the categories' positions for the interval metric (numbers or ranks).
    """
    n_raters = units.shape[1]
    if units.shape[0]:
        codes, freq = np.unique(units.astype(np.int64), axis=0, return_counts=True)
    else:
        codes, freq = units.astype(np.int64), np.zeros(0, dtype=np.int64)
    present = codes >= 0
    both = present[:, :, None] & present[:, None, :]  # (P, R, R): a pair of labels
    same = both & (codes[:, :, None] == codes[:, None, :])
    own = same.sum(axis=2).astype(float)  # labels equal to each rater's own (itself too)
    m = present.sum(axis=1).astype(float)
    sum_sq = own.sum(axis=1)  # Σ_c n_c²
    complete = m == n_raters
    pairable = m >= 2
    agree_pairs = (sum_sq - m) / 2.0
    all_pairs = m * (m - 1.0) / 2.0
    # The strict majority of the others, seen by each rater with a label: the others hold
    # rater s's label own[s] - same[r, s] times.
    others = own[:, None, :] - same
    valid = present[:, None, :] & ~np.eye(n_raters, dtype=bool)[None]
    top = np.where(valid, others, 0.0).max(axis=2, initial=0.0)
    m_others = m[:, None] - 1.0
    eligible = present & (m_others >= 2) & (top > m_others / 2.0)
    agrees = eligible & (own - 1.0 > m_others / 2.0)
    # Krippendorff's observed disagreement per unit: 1/(m-1) Σ over ordered label pairs.
    safe_m1 = np.where(pairable, m - 1.0, 1.0)
    centred = scores - (scores.mean() if scores.size else 0.0)
    sc = np.where(present, centred[np.maximum(codes, 0)] if q else 0.0, 0.0)
    gaps = (((sc[:, :, None] - sc[:, None, :]) ** 2) * both).sum(axis=(1, 2)) / 2.0

    lay = Layout()
    lay.add("complete", complete)
    lay.add("c_punit", complete * (sum_sq - n_raters) / max(n_raters * (n_raters - 1.0), 1.0))
    lay.add("pairable", pairable)
    lay.add("agree_pairs", np.where(pairable, agree_pairs, 0.0))
    lay.add("all_pairs", np.where(pairable, all_pairs, 0.0))
    lay.add("p_unit", np.where(pairable, agree_pairs / np.where(pairable, all_pairs, 1.0), 0.0))
    lay.add("unanimous", pairable & (own.max(axis=1, initial=0.0) == m))
    lay.add("maj_eligible", eligible)
    lay.add("maj_agree", agrees)
    lay.add("labels", np.where(pairable, m, 0.0))
    lay.add("do_nominal", np.where(pairable, 2.0 * (all_pairs - agree_pairs) / safe_m1, 0.0))
    lay.add("do_interval", np.where(pairable, 2.0 * gaps / safe_m1, 0.0))
    lay.add("score_sum", np.where(pairable, sc.sum(axis=1), 0.0))
    lay.add("score_sq", np.where(pairable, (sc**2).sum(axis=1), 0.0))

    rows_of, cols_of = np.nonzero(present)
    keys, count = np.unique(rows_of * max(q, 1) + codes[rows_of, cols_of], return_counts=True)
    return LabelPatterns(
        codes,
        freq.astype(float),
        q,
        lay,
        lay.matrix(),
        keys // max(q, 1),
        keys % max(q, 1),
        count.astype(float),
    )


def zero_width_cause(pats: LabelPatterns, which: str = "pairable") -> str:
    """Why an interval on the units of block ``which`` (``pairable`` or ``complete``) has zero
    width: every unit agrees, one rater gave the same label to every unit, or neither
    (:func:`~medjudge.judging.stats.estimates.zero_width_reason`)."""
    keep = (pats.block(which) > 0) & (pats.freq > 0)
    codes = pats.codes[keep]
    all_agree = bool(pats.block("unanimous")[keep].all())
    constant = False
    for r in range(pats.n_raters):
        given = codes[codes[:, r] >= 0, r]
        constant = constant or (given.size > 0 and bool((given == given[0]).all()))
    return zero_width_reason(all_agree=all_agree, constant_rater=constant)


# ----------------------------------------------------------------------------- Fleiss' κ


def fleiss_from_sums(s: np.ndarray, b: dict[str, slice], counts: np.ndarray, r: int) -> np.ndarray:
    """Fleiss' κ from scalar sums ``s (B, d)`` and the complete units' category counts
    ``counts (B, q)``; NaN where undefined."""
    nb = s[:, b["complete"]][:, 0]
    safe = np.where(nb > 0, nb, 1.0)
    pa = s[:, b["c_punit"]][:, 0] / safe
    pi = counts / (safe[:, None] * r)
    pe = (pi**2).sum(axis=1)
    ok = (nb >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (pa - pe) / (1.0 - pe), np.nan)


def fleiss_chance(pats: LabelPatterns) -> float | None:
    """Fleiss' chance agreement pₑ = Σ_j p_j² over the complete units (None: no complete unit)."""
    complete = pats.block("complete") > 0
    nb = float(pats.freq[complete].sum())
    if nb <= 0 or pats.n_raters < 1:
        return None
    p = pats.category_totals(complete) / (nb * pats.n_raters)
    return float((p**2).sum())


def fleiss_se(pats: LabelPatterns, kappa: float) -> float:
    """Gwet's linearisation SE of Fleiss' κ on complete units (irrCAC ``CAC.fleiss()``)."""
    r = pats.n_raters
    complete = pats.block("complete") > 0
    freq = pats.freq[complete]
    n = float(freq.sum())
    pi = pats.category_totals(complete) / (n * r)
    pe = float((pi**2).sum())
    pa_unit = pats.block("c_punit")[complete]
    k_unit = (pa_unit - pe) / (1.0 - pe)
    pe_all = np.bincount(pats.pat, pats.count * pi[pats.cat], minlength=len(pats.freq)) / r
    x = k_unit - 2.0 * (1.0 - kappa) * (pe_all[complete] - pe) / (1.0 - pe)
    return float(np.sqrt(max((freq * (x - kappa) ** 2).sum() / (n * (n - 1.0)), 0.0)))


def fleiss_category_sums(pats: LabelPatterns) -> CategorySums:
    """The sums of Fleiss' κ per category: globals ``[complete]``, channels ``[n_j,
    n_j (R − n_j)]`` of the complete units (Fleiss 1971)."""
    complete = pats.block("complete") > 0
    keep = complete[pats.pat]
    count = pats.count[keep]
    return CategorySums(
        pats.freq,
        complete[:, None].astype(float),
        pats.pat[keep],
        pats.cat[keep],
        np.column_stack([count, count * (pats.n_raters - count)]),
        pats.q,
    )


def fleiss_category_figure(r: int) -> CategoryFigure:
    """Fleiss' (1971) κ_j from ``globals = [complete units]``, ``channels = [n_j, n_j(R−n_j)]``."""

    def figure(glob: np.ndarray, chan: np.ndarray) -> np.ndarray:
        nb = glob[..., 0]
        safe = np.where(nb > 0, nb, 1.0)
        p = chan[..., 0] / (safe * r)
        spread = safe * r * (r - 1.0) * p * (1.0 - p)
        with np.errstate(all="ignore"):
            k = 1.0 - chan[..., 1] / spread
        return np.where((nb >= 2) & (spread > _EPS), k, np.nan)

    return figure
