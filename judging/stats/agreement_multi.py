"""Agreement among three or more raters.

Input is a table of units, one row per unit and one label per rater (``None`` = missing).

Figures, each with the units its definition uses (printed as its ``n``):

* **Fleiss' κ** and **Fleiss' κ per category** (Fleiss 1971): units labelled by *every* rater;
* **Krippendorff's α** (nominal, ordinal or interval metric), **mean pairwise agreement**
  (pooled over every pair of labels on the same unit, so each rater pair weighs by the units
  it shares), **per-unit pairwise agreement** (the mean over units of the share of agreeing
  label pairs), **Randolph's free-marginal κ** (= (per-unit agreement − 1/q)/(1 − 1/q)) and the
  **unanimous share**: every unit with at least two labels;
* **ICC(2,1)** (interval scales): units labelled by every rater;
* each rater's agreement with the strict majority of the others; the pairwise table.

Intervals (one method per figure, see :mod:`.estimates`): Fleiss' κ ``± z·SE`` with Gwet's
(2014) linearisation variance (irrCAC's ``CAC.fleiss()``); α, both pairwise figures,
Randolph's κ and Fleiss' κ per category by BCa bootstrap over units; proportions (unanimous
share, agreement with the majority) by Wilson; ICC(2,1) by its F interval.

Units are reduced to their distinct label patterns first (:class:`~.estimates.UnitPatterns`),
so the work after reading the labels does not grow with the number of units.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from medjudge.judging.stats.agreement_icc import icc_2_1
from medjudge.judging.stats.agreement_labels import (
    category_scores,
    is_missing,
    json_label,
    resolve_categories,
)
from medjudge.judging.stats.agreement_two import TwoRaterStats, check_options, two_rater_stats
from medjudge.judging.stats.estimates import (
    N_BOOT,
    Estimate,
    UnitPatterns,
    bca_estimates,
    normal_interval,
    proportion,
)

_EPS = 1e-12


@dataclass(frozen=True)
class MultiRaterStats:
    """Agreement figures for a table of units × raters.

    Attributes:
        raters: Rater names (column order).
        categories: Ordered categories (declared, or inferred when ``categories_inferred``).
        n_units: Rows in the table (including rows with no label).
        n_pairable: Units with at least two labels.
        n_complete: Units labelled by every rater.
        fleiss: Fleiss' κ over the complete units.
        fleiss_per_category: category → Fleiss' κ of that category against the rest.
        krippendorff_alpha: Krippendorff's α at the scale's level.
        mean_pairwise_percent: Agreement pooled over every pair of labels on the same unit.
        per_unit_pairwise_percent: Mean over units of the share of agreeing label pairs.
        randolph_kappa: Randolph's free-marginal multi-rater κ.
        unanimous_share: Share of units (with ≥ 2 labels) whose labels are all the same.
        icc: ICC(2,1) (interval scale only).
        pairwise: ``(rater_i, rater_j)`` → :class:`TwoRaterStats`, for i before j.
        vs_majority: rater → percent agreement with the strict majority of the other raters,
            over the units that rater labelled where the other raters who labelled the unit
            (at least two of them) have a label held by more than half of them.
        scale: ``nominal``, ``ordinal`` or ``interval``.
        categories_inferred: True when the observed labels stood in for a declared set.
    """

    raters: list[Hashable]
    categories: list[Hashable]
    n_units: int
    n_pairable: int
    n_complete: int
    fleiss: Estimate
    fleiss_per_category: dict[Hashable, Estimate]
    krippendorff_alpha: Estimate
    mean_pairwise_percent: Estimate
    per_unit_pairwise_percent: Estimate
    randolph_kappa: Estimate
    unanimous_share: Estimate
    icc: Estimate | None
    pairwise: dict[tuple[Hashable, Hashable], TwoRaterStats] = field(default_factory=dict)
    vs_majority: dict[Hashable, Estimate] = field(default_factory=dict)
    scale: str = "nominal"
    categories_inferred: bool = False

    @property
    def ordinal(self) -> bool:
        """Whether the scale is ordered (ordinal or interval)."""
        return self.scale != "nominal"

    @property
    def units_note(self) -> str:
        """Why the figures rest on different numbers of units."""
        return units_note(self.n_pairable, self.n_complete, len(self.raters))

    def pairwise_records(self) -> list[dict[str, object]]:
        """The pairwise table as JSON-safe records (``rater_a``, ``rater_b`` + figures)."""
        return [
            {"rater_a": json_label(r1), "rater_b": json_label(r2), **stats.to_dict()}
            for (r1, r2), stats in self.pairwise.items()
        ]

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict (``json.dumps(..., allow_nan=False)`` works).

        ``pairwise``, ``vs_majority`` and ``fleiss_per_category`` become lists of records so
        names of any type survive.
        """
        return {
            "raters": [json_label(r) for r in self.raters],
            "categories": [json_label(c) for c in self.categories],
            "categories_inferred": self.categories_inferred,
            "scale": self.scale,
            "n_units": self.n_units,
            "n_pairable": self.n_pairable,
            "n_complete": self.n_complete,
            "units_note": self.units_note,
            "fleiss": self.fleiss.to_dict(),
            "fleiss_per_category": [
                {"category": json_label(c), **e.to_dict()}
                for c, e in self.fleiss_per_category.items()
            ],
            "krippendorff_alpha": self.krippendorff_alpha.to_dict(),
            "mean_pairwise_percent": self.mean_pairwise_percent.to_dict(),
            "per_unit_pairwise_percent": self.per_unit_pairwise_percent.to_dict(),
            "randolph_kappa": self.randolph_kappa.to_dict(),
            "unanimous_share": self.unanimous_share.to_dict(),
            "icc": None if self.icc is None else self.icc.to_dict(),
            "pairwise": self.pairwise_records(),
            "vs_majority": [
                {"rater": json_label(r), **e.to_dict()} for r, e in self.vs_majority.items()
            ],
        }


def units_note(n_pairable: int, n_complete: int, n_raters: int) -> str:
    """The sentence that explains the unit counts of the multi-rater figures."""
    return (
        f"Krippendorff's α, the pairwise figures, Randolph's κ and the unanimous share use the "
        f"{n_pairable} units with at least two labels; Fleiss' κ (and ICC) only the "
        f"{n_complete} units labelled by all {n_raters} raters, as their definitions require."
    )


# ------------------------------------------------------------------- per-pattern sufficient sums


class _Layout:
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


def _pattern_sums(codes: np.ndarray, q: int) -> _Layout:
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

    lay = _Layout()
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


def _fleiss(s: np.ndarray, b: dict[str, slice], n_raters: int) -> np.ndarray:
    """Fleiss' κ from sums ``s`` (B, d); NaN where undefined."""
    nb = s[:, b["complete"]][:, 0]
    safe = np.where(nb > 0, nb, 1.0)
    pa = s[:, b["c_punit"]][:, 0] / safe
    pi = s[:, b["c_counts"]] / (safe[:, None] * n_raters)
    pe = (pi**2).sum(axis=1)
    ok = (nb >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (pa - pe) / (1.0 - pe), np.nan)


def _fleiss_per_category(s: np.ndarray, b: dict[str, slice], n_raters: int) -> np.ndarray:
    """Fleiss' (1971) κ_j per category, shape (q, B)."""
    nb = s[:, b["complete"]][:, 0]
    safe = np.where(nb > 0, nb, 1.0)
    p = s[:, b["c_counts"]] / (safe[:, None] * n_raters)
    spread = safe[:, None] * n_raters * (n_raters - 1.0) * p * (1.0 - p)
    with np.errstate(all="ignore"):
        k = 1.0 - s[:, b["c_cat"]] / spread
    ok = (nb[:, None] >= 2) & (spread > _EPS)
    return np.where(ok, k, np.nan).T


def _alpha(
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


def _fleiss_se(counts: np.ndarray, freq: np.ndarray, n_raters: int, kappa: float) -> float:
    """Gwet's linearisation SE of Fleiss' κ on complete units (irrCAC ``CAC.fleiss()``)."""
    n = float(freq.sum())
    pi = (freq @ counts) / (n * n_raters)
    pe = float((pi**2).sum())
    pa_unit = ((counts**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    k_unit = (pa_unit - pe) / (1.0 - pe)
    pe_unit = counts @ pi / n_raters
    x = k_unit - 2.0 * (1.0 - kappa) * (pe_unit - pe) / (1.0 - pe)
    return float(np.sqrt(max((freq * (x - kappa) ** 2).sum() / (n * (n - 1.0)), 0.0)))


# ------------------------------------------------------------------------------ public API


def multi_rater_stats(
    table: Sequence[Sequence[Hashable | None]],
    raters: Sequence[Hashable] | None = None,
    *,
    categories: Sequence[Hashable] | None = None,
    scale: str = "nominal",
    intervals: bool = True,
    pairwise: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> MultiRaterStats:
    """Agreement among several raters.

    Args:
        table: One row per unit, one label per rater (``None`` = missing).
        raters: Rater names, one per column; defaults to ``0, 1, …``.
        categories: The declared categories in order; without them the observed labels
            stand in (sorted) and ``categories_inferred`` is set. Also passed to every
            pairwise comparison, so their tables share one shape.
        scale: ``nominal``, ``ordinal`` or ``interval`` (α's metric, the pairwise figures,
            ICC). Ordered scales need numbers or ``categories`` in order.
        intervals: Compute the confidence intervals (each figure's one method).
        pairwise: Also compute every pair's two-rater figures.
        n_boot: Bootstrap resamples (BCa figures).
        seed: Bootstrap seed; the same seed gives the same intervals.
        confidence: Confidence level.

    Returns:
        The figures as a :class:`MultiRaterStats`.

    Raises:
        ValueError: On rows of unequal length, duplicate rater names or invalid options.
    """
    check_options(scale, confidence)
    if n_boot < 1:
        raise ValueError("n_boot must be positive")
    rows = [list(row) for row in table]
    n_raters = len(raters) if raters is not None else (len(rows[0]) if rows else 0)
    names: list[Hashable] = list(raters) if raters is not None else list(range(n_raters))
    if len(set(names)) != len(names):
        raise ValueError("rater names must be unique")
    for i, row in enumerate(rows):
        if len(row) != n_raters:
            raise ValueError(f"row {i} has {len(row)} labels, expected {n_raters}")

    cats = resolve_categories((x for row in rows for x in row), categories, scale)
    q = len(cats)
    scores = category_scores(cats)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.asarray(
        [[-1 if is_missing(x) else index[x] for x in row] for row in rows], dtype=np.int64
    ).reshape(len(rows), n_raters)
    n_units = len(rows)
    if n_units:
        pats, freq = np.unique(codes, axis=0, return_counts=True)
    else:
        pats, freq = codes, np.zeros(0, dtype=np.int64)
    lay = _pattern_sums(pats, q)
    b = lay.blocks
    patterns = UnitPatterns(lay.matrix(), freq.astype(float))
    total = patterns.total()
    n_complete = int(total[b["complete"]][0]) if n_units else 0
    n_pairable = int(total[b["pairable"]][0]) if n_units else 0

    def boot_stat(s: np.ndarray) -> np.ndarray:
        pairable = s[:, b["pairable"]][:, 0]
        safe = np.where(pairable > 0, pairable, 1.0)
        per_unit = np.where(pairable > 0, s[:, b["p_unit"]][:, 0] / safe, np.nan)
        all_pairs = s[:, b["all_pairs"]][:, 0]
        pooled = np.where(
            all_pairs > 0,
            s[:, b["agree_pairs"]][:, 0] / np.where(all_pairs > 0, all_pairs, 1.0),
            np.nan,
        )
        randolph = (per_unit - 1.0 / q) / (1.0 - 1.0 / q) if q >= 2 else np.full(len(s), np.nan)
        alpha = _alpha(s, b, q, scale, scores) if q else np.full(len(s), np.nan)
        per_cat = (
            _fleiss_per_category(s, b, n_raters) if n_raters >= 2 else np.full((q, len(s)), np.nan)
        )
        return np.vstack([alpha, pooled, per_unit, randolph, per_cat])

    no_pairs = "no unit labelled by at least two raters"
    reasons = [
        no_pairs if n_pairable == 0 else "only one category used (expected disagreement is 0)",
        no_pairs,
        no_pairs,
        no_pairs if n_pairable == 0 else "only one category on the scale",
    ] + [
        "no units labelled by all raters"
        if n_complete == 0
        else "category never or always used (no spread to agree on)"
    ] * q
    ns = [n_pairable] * 4 + [n_complete] * q
    alpha, pooled, per_unit, randolph, *per_cat = bca_estimates(
        patterns,
        boot_stat,
        reasons,
        ns=ns,
        intervals=intervals,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )

    # Fleiss' kappa with its linearisation SE
    fleiss_value = float(_fleiss(total[None], b, n_raters)[0]) if n_raters >= 2 else np.nan
    if n_raters < 2:
        fleiss_reason = "needs at least two raters"
    elif n_complete == 0:
        fleiss_reason = "no units labelled by all raters"
    elif n_complete < 2:
        fleiss_reason = "n < 2"
    else:
        fleiss_reason = "only one category used (chance agreement is 1)"
    if np.isnan(fleiss_value):
        fleiss = Estimate.undefined(fleiss_reason, n_complete)
    elif not intervals:
        fleiss = Estimate(fleiss_value, None, None, n_complete)
    else:
        is_complete = lay.parts[0][:, 0] > 0
        counts = lay.matrix()[is_complete][:, b["c_counts"]]
        se = _fleiss_se(counts, patterns.freq[is_complete], n_raters, fleiss_value)
        low, high = normal_interval(fleiss_value, se, confidence)
        fleiss = Estimate(fleiss_value, low, high, n_complete, method="normal_se", se=se)

    def wilson(successes: float, n: int, empty: str) -> Estimate:
        e = proportion(successes, n, confidence, empty)
        return e if intervals or e.value is None else Estimate(e.value, None, None, n)

    unanimous = wilson(float(total[b["unanimous"]][0]), n_pairable, no_pairs)
    elig, agree = total[b["maj_eligible"]], total[b["maj_agree"]]
    vs_majority = {
        name: wilson(
            float(agree[r]), int(elig[r]), "no units where the other raters have a strict majority"
        )
        for r, name in enumerate(names)
    }

    icc = None
    if scale == "interval":
        complete_rows = np.repeat(pats[(pats >= 0).all(axis=1)], freq[(pats >= 0).all(axis=1)], 0)
        icc = icc_2_1(scores[complete_rows].reshape(-1, n_raters), confidence)
        if not intervals and icc.value is not None:
            icc = Estimate(icc.value, None, None, icc.n)

    pairs = {}
    if pairwise:
        pairs = {
            (names[i], names[j]): two_rater_stats(
                [row[i] for row in rows],
                [row[j] for row in rows],
                categories=cats,
                scale=scale,
                intervals=intervals,
                confidence=confidence,
            )
            for i, j in combinations(range(n_raters), 2)
        }

    return MultiRaterStats(
        raters=names,
        categories=cats,
        n_units=n_units,
        n_pairable=n_pairable,
        n_complete=n_complete,
        fleiss=fleiss,
        fleiss_per_category=dict(zip(cats, per_cat, strict=True)),
        krippendorff_alpha=alpha,
        mean_pairwise_percent=pooled,
        per_unit_pairwise_percent=per_unit,
        randolph_kappa=randolph,
        unanimous_share=unanimous,
        icc=icc,
        pairwise=pairs,
        vs_majority=vs_majority,
        scale=scale,
        categories_inferred=categories is None,
    )
