"""Agreement among three or more raters.

Input is a table of units, one row per unit and one label per rater (``None`` = missing).

Figures, each with the units its definition uses (printed as its ``n``):

* **Fleiss' κ** and **Fleiss' κ per category** (Fleiss 1971): units labelled by *every* rater;
* **Krippendorff's α** (nominal, ordinal or interval metric), **mean pairwise agreement**
  (pooled over every pair of labels on the same unit, so each rater pair weighs by the units
  it shares), **per-unit pairwise agreement** (the mean over units of the share of agreeing
  label pairs), **Randolph's free-marginal κ** (= (per-unit agreement − 1/q)/(1 − 1/q)) and the
  **unanimous share**: every unit with at least two labels;
* **Gwet's AC1** and **Bennett's S** (Brennan–Prediger) over every labelled unit, as irrCAC
  computes them (:mod:`.gwet_bp`: agreement from the units with two labels or more);
* **ICC(2,1)** (interval scales): units labelled by every rater;
* each rater's agreement with the strict majority of the others; the pairwise table.

Intervals (one method per figure, see :mod:`.estimates`): Fleiss' κ ``± z·SE`` with Gwet's
(2014) linearisation variance (irrCAC's ``CAC.fleiss()``); α, both pairwise figures,
Randolph's κ and Fleiss' κ per category by BCa bootstrap over units; proportions (unanimous
share, agreement with the majority) by Wilson; ICC(2,1) by its F interval.

Units are reduced to their distinct label patterns first
(:func:`~.patterns.label_patterns`), so the work after reading the labels does not
grow with the number of units, and nothing is categories × categories.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import chain, combinations

import numpy as np

from medjudge.judging.stats.agreement.alpha import PairFigures
from medjudge.judging.stats.agreement.gwet_bp import bennett_s_all_units, gwet_ac1_all_units
from medjudge.judging.stats.agreement.icc import icc_2_1
from medjudge.judging.stats.agreement.labels import (
    category_scores,
    is_missing,
    json_label,
    resolve_categories,
)
from medjudge.judging.stats.agreement.patterns import (
    LabelPatterns,
    fleiss_category_figure,
    fleiss_category_sums,
    fleiss_chance,
    fleiss_from_sums,
    fleiss_se,
    label_patterns,
    zero_width_cause,
)
from medjudge.judging.stats.agreement.readers import (
    UnitCounts,
    fleiss_all_units,
    light_kappa,
    mean_pair_percent,
    vs_majority_with_own,
)
from medjudge.judging.stats.agreement.two import TwoRaterStats, check_options, two_rater_stats
from medjudge.judging.stats.bootstrap import Resampled, as_estimates, bca_many
from medjudge.judging.stats.bootstrap_categories import CategoryFigures
from medjudge.judging.stats.estimates import N_BOOT, Estimate, normal_interval, proportion


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
    chance: float | None = None
    """Fleiss' chance agreement pₑ = Σ_j p_j² over the complete units (None without any)."""
    pairwise: dict[tuple[Hashable, Hashable], TwoRaterStats] = field(default_factory=dict)
    vs_majority: dict[Hashable, Estimate] = field(default_factory=dict)
    scale: str = "nominal"
    categories_inferred: bool = False
    light_kappa: Estimate | None = None
    """Light's κ: the mean of the pairwise Cohen's κ (:mod:`.readers`)."""
    mean_pair_percent: Estimate | None = None
    """The unweighted mean over rater pairs of their percent agreement."""
    fleiss_all_units: Estimate | None = None
    """Fleiss' κ over every unit with a label (Gwet's generalisation, as irrCAC)."""
    vs_majority_own: dict[Hashable, Estimate] = field(default_factory=dict)
    """Each rater vs the strict majority of all raters, its own vote included."""
    gwet_ac1_all_units: Estimate | None = None
    """Gwet's AC1 of all raters over every labelled unit, as irrCAC's ``gwet`` (:mod:`.gwet_bp`)."""
    bennett_s_all_units: Estimate | None = None
    """Bennett's S (Brennan–Prediger) of all raters, as irrCAC's ``bp`` (:mod:`.gwet_bp`)."""

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
            "chance": self.chance,
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
            "light_kappa": None if self.light_kappa is None else self.light_kappa.to_dict(),
            "mean_pair_percent": (
                None if self.mean_pair_percent is None else self.mean_pair_percent.to_dict()
            ),
            "fleiss_all_units": (
                None if self.fleiss_all_units is None else self.fleiss_all_units.to_dict()
            ),
            "gwet_ac1_all_units": (
                None if self.gwet_ac1_all_units is None else self.gwet_ac1_all_units.to_dict()
            ),
            "bennett_s_all_units": (
                None if self.bennett_s_all_units is None else self.bennett_s_all_units.to_dict()
            ),
            "vs_majority_own": [
                {"rater": json_label(r), **e.to_dict()} for r, e in self.vs_majority_own.items()
            ],
        }


def units_note(n_pairable: int, n_complete: int, n_raters: int) -> str:
    """The sentence that explains the unit counts of the multi-rater figures."""
    return (
        f"Krippendorff's α, the pairwise figures, Randolph's κ and the unanimous share use the "
        f"{n_pairable} units with at least two labels (Gwet's AC1 and Bennett's S measure "
        f"agreement on them too); Fleiss' κ (and ICC) only the "
        f"{n_complete} units labelled by all {n_raters} raters, as their definitions require."
    )


# ------------------------------------------------------------------------------ public API


def _checked(
    table: Sequence[Sequence[Hashable | None]], raters: Sequence[Hashable] | None
) -> tuple[list[list[Hashable | None]], list[Hashable]]:
    """The table's rows and the raters' names, checked: unique names, one label each."""
    rows = [list(row) for row in table]
    n_raters = len(raters) if raters is not None else (len(rows[0]) if rows else 0)
    names: list[Hashable] = list(raters) if raters is not None else list(range(n_raters))
    if len(set(names)) != len(names):
        raise ValueError("rater names must be unique")
    for i, row in enumerate(rows):
        if len(row) != n_raters:
            raise ValueError(f"row {i} has {len(row)} labels, expected {n_raters}")
    return rows, names


def _fleiss(pats: LabelPatterns, n_complete: int, intervals: bool, confidence: float) -> Estimate:
    """Fleiss' κ over the complete units, with its linearisation SE."""
    n_raters = pats.n_raters
    fleiss_value = math.nan
    if n_raters >= 2:
        counts = pats.category_totals(pats.block("complete") > 0)
        fleiss_value = float(
            fleiss_from_sums(pats.total()[None], pats.layout.blocks, counts[None], n_raters)[0]
        )
    if n_raters < 2:
        fleiss_reason = "needs at least two raters"
    elif n_complete == 0:
        fleiss_reason = "no units labelled by all raters"
    elif n_complete < 2:
        fleiss_reason = "n < 2"
    else:
        fleiss_reason = "only one category used (chance agreement is 1)"
    if np.isnan(fleiss_value):
        return Estimate.undefined(fleiss_reason, n_complete)
    if not intervals:
        return Estimate(fleiss_value, None, None, n_complete)
    se = fleiss_se(pats, fleiss_value)
    low, high = normal_interval(fleiss_value, se, confidence)
    why = zero_width_cause(pats, "complete") if low == high else None
    return Estimate(fleiss_value, low, high, n_complete, reason=why, method="normal_se", se=se)


def _icc(
    pats: np.ndarray,
    freq: np.ndarray,
    scores: np.ndarray,
    n_raters: int,
    intervals: bool,
    confidence: float,
) -> Estimate:
    """ICC(2,1) over the complete units (interval scales)."""
    complete = (pats >= 0).all(axis=1)
    complete_rows = np.repeat(pats[complete], freq[complete], 0)
    icc = icc_2_1(scores[complete_rows].reshape(-1, n_raters), confidence)
    if not intervals and icc.value is not None:
        icc = Estimate(icc.value, None, None, icc.n)
    return icc


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
    rows, names = _checked(table, raters)
    columns = [[row[r] for row in rows] for r in range(len(names))]
    del rows
    return multi_rater_column_stats(
        columns,
        names,
        categories=categories,
        scale=scale,
        intervals=intervals,
        pairwise=pairwise,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )


def multi_rater_column_stats(
    columns: Sequence[Sequence[Hashable | None]],
    raters: Sequence[Hashable],
    *,
    categories: Sequence[Hashable] | None = None,
    scale: str = "nominal",
    intervals: bool = True,
    pairwise: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> MultiRaterStats:
    """:func:`multi_rater_stats` for labels given rater by rater: one column per rater, one
    label per unit (no list per unit is made, so 100,000 units cost a few MB).

    Raises:
        ValueError: On columns of unequal length, a name count that differs from the column
            count, duplicate rater names or invalid options.
    """
    check_options(scale, confidence)
    if n_boot < 1:
        raise ValueError("n_boot must be positive")
    names = list(raters)
    if len(set(names)) != len(names):
        raise ValueError("rater names must be unique")
    if len(names) != len(columns):
        raise ValueError(f"{len(columns)} columns for {len(names)} rater names")
    n_units = len(columns[0]) if columns else 0
    for name, column in zip(names, columns, strict=True):
        if len(column) != n_units:
            raise ValueError(f"rater {name!r} has {len(column)} labels, expected {n_units}")
    n_raters = len(names)

    cats = resolve_categories(chain.from_iterable(columns), categories, scale)
    q = len(cats)
    scores = category_scores(cats)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.empty((n_units, n_raters), dtype=np.int64)
    for r, column in enumerate(columns):
        codes[:, r] = np.fromiter(
            (-1 if is_missing(x) else index[x] for x in column), dtype=np.int64, count=n_units
        )
    pats = label_patterns(codes, q, scores)
    unit_counts = UnitCounts.of(codes, q)
    why = zero_width_cause(pats)  # the reason if an SE over these units is 0
    all_units = fleiss_all_units(
        unit_counts, q, intervals=intervals, confidence=confidence, zero_width=why
    )
    ac1 = gwet_ac1_all_units(
        unit_counts, q, intervals=intervals, confidence=confidence, zero_width=why
    )
    bp = bennett_s_all_units(
        unit_counts, q, intervals=intervals, confidence=confidence, zero_width=why
    )
    with_own = vs_majority_with_own(codes, unit_counts, names, confidence)
    del codes
    b = pats.layout.blocks
    total = pats.total()
    n_complete = int(total[b["complete"]][0]) if n_units else 0
    n_pairable = int(total[b["pairable"]][0]) if n_units else 0

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
    figures: list[Resampled] = [
        PairFigures(pats, scale),
        CategoryFigures(fleiss_category_sums(pats), fleiss_category_figure(n_raters)),
    ]
    theta, cis = bca_many(
        figures, pats.freq, n_boot=n_boot, seed=seed, confidence=confidence, intervals=intervals
    )
    alpha, pooled, per_unit, randolph, *per_cat = as_estimates(theta, cis, reasons, ns)

    fleiss = _fleiss(pats, n_complete, intervals, confidence)

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
        icc = _icc(pats.codes, pats.freq.astype(np.int64), scores, n_raters, intervals, confidence)

    pairs = {}
    if pairwise:
        pairs = {
            (names[i], names[j]): two_rater_stats(
                columns[i],
                columns[j],
                categories=cats,
                scale=scale,
                intervals=intervals,
                confidence=confidence,
                n_boot=n_boot,
                seed=seed,
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
        chance=fleiss_chance(pats),
        pairwise=pairs,
        vs_majority=vs_majority,
        scale=scale,
        categories_inferred=categories is None,
        light_kappa=light_kappa(pairs, n_pairable) if pairs else None,
        mean_pair_percent=mean_pair_percent(pairs, n_pairable) if pairs else None,
        fleiss_all_units=all_units,
        vs_majority_own=with_own,
        gwet_ac1_all_units=ac1,
        bennett_s_all_units=bp,
    )
