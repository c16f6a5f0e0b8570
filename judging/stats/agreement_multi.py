"""Agreement among three or more raters: Fleiss' κ, Krippendorff's α, pairwise and majority.

Input is a table of units, one row per unit and one label per rater (``None`` = missing).

Intervals:

* Fleiss' κ (units labelled by all raters): with ``ci="analytic"``, ``κ ± z·SE`` with Gwet's
  (2014) linearisation variance for Fleiss' κ (the SE irrCAC's ``CAC.fleiss()`` reports; it
  is a non-null SE, unlike the Fleiss–Nee–Landis one meant for testing κ = 0), clipped to
  [−1, 1]; with ``ci="bootstrap"``, percentile bootstrap over units.
* Krippendorff's α and the mean pairwise percent agreement: always a percentile bootstrap over
  units (unless ``ci="none"``); there is no analytic interval here.
* Agreement with the majority of the others: Wilson interval (analytic) or bootstrap.
* Pairwise figures: as :func:`~.agreement_two.two_rater_stats` with the same ``ci``.

All unit-level bootstraps draw units (rows) with replacement using ``scipy.stats.bootstrap``
and a ``numpy.random.default_rng(seed)``, so results are deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from medjudge.judging.stats.agreement_labels import is_missing, json_label, resolve_categories
from medjudge.judging.stats.agreement_two import TwoRaterStats, _check_options, two_rater_stats
from medjudge.judging.stats.estimates import (
    Estimate,
    bootstrap_distribution,
    bootstrap_estimate,
    normal_interval,
    wilson_interval,
)

_EPS = 1e-12


@dataclass(frozen=True)
class MultiRaterStats:
    """Agreement figures for a table of units × raters.

    Attributes:
        raters: Rater names (column order).
        categories: Ordered categories.
        n_units: Rows in the table (including rows with no label).
        n_complete: Units labelled by every rater.
        fleiss: Fleiss' κ over the complete units.
        krippendorff_alpha: Krippendorff's α (nominal, or ordinal when ``ordinal``); uses
            every unit with at least two labels.
        mean_pairwise_percent: Mean over rater pairs of their percent agreement on the units
            both labelled (pairs with no such unit are left out).
        pairwise: ``(rater_i, rater_j)`` → :class:`TwoRaterStats`, for i before j.
        vs_majority: rater → percent agreement with the strict majority of the other raters,
            over the units that rater labelled where the other raters who labelled the unit
            (at least two of them) have a label held by more than half of them.
        ordinal: Whether the scale was treated as ordinal.
    """

    raters: list[Hashable]
    categories: list[Hashable]
    n_units: int
    n_complete: int
    fleiss: Estimate
    krippendorff_alpha: Estimate
    mean_pairwise_percent: Estimate
    pairwise: dict[tuple[Hashable, Hashable], TwoRaterStats] = field(default_factory=dict)
    vs_majority: dict[Hashable, Estimate] = field(default_factory=dict)
    ordinal: bool = False

    def pairwise_records(self) -> list[dict[str, object]]:
        """The pairwise table as JSON-safe records (``rater_a``, ``rater_b`` + figures)."""
        return [
            {"rater_a": json_label(r1), "rater_b": json_label(r2), **stats.to_dict()}
            for (r1, r2), stats in self.pairwise.items()
        ]

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict (``json.dumps(..., allow_nan=False)`` works).

        ``pairwise`` and ``vs_majority`` become lists of records so rater names of any type
        survive.
        """
        return {
            "raters": [json_label(r) for r in self.raters],
            "categories": [json_label(c) for c in self.categories],
            "ordinal": self.ordinal,
            "n_units": self.n_units,
            "n_complete": self.n_complete,
            "fleiss": self.fleiss.to_dict(),
            "krippendorff_alpha": self.krippendorff_alpha.to_dict(),
            "mean_pairwise_percent": self.mean_pairwise_percent.to_dict(),
            "pairwise": self.pairwise_records(),
            "vs_majority": [
                {"rater": json_label(r), **e.to_dict()} for r, e in self.vs_majority.items()
            ],
        }


# ------------------------------------------------------------------- per-unit sufficient data


@dataclass
class _Units:
    """Per-unit arrays; every figure is a function of weighted sums of their rows."""

    codes: np.ndarray  # (N, R) category index, -1 = missing
    counts: np.ndarray  # (N, q) labels per category
    complete: np.ndarray  # (N,) bool
    coincidence: np.ndarray  # (N, q*q) Krippendorff coincidences contributed by the unit
    pair_both: np.ndarray  # (N, P) both raters of pair p labelled
    pair_agree: np.ndarray  # (N, P) ... and agree
    maj_eligible: np.ndarray  # (N, R) others hold a strict majority and the rater labelled
    maj_agree: np.ndarray  # (N, R) ... and the rater agrees with it


def _units(codes: np.ndarray, q: int) -> _Units:
    n_units, n_raters = codes.shape
    counts = np.zeros((n_units, q))
    for r in range(n_raters):
        has = codes[:, r] >= 0
        np.add.at(counts, (np.nonzero(has)[0], codes[has, r]), 1.0)
    m = counts.sum(axis=1)
    pairable = m >= 2
    outer = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(q)[None]
    coincidence = np.where(
        pairable[:, None, None], outer / np.where(pairable, m - 1.0, 1.0)[:, None, None], 0.0
    ).reshape(n_units, q * q)

    pairs = list(combinations(range(n_raters), 2))
    both = np.zeros((n_units, len(pairs)))
    agree = np.zeros((n_units, len(pairs)))
    for p, (i, j) in enumerate(pairs):
        both[:, p] = (codes[:, i] >= 0) & (codes[:, j] >= 0)
        agree[:, p] = both[:, p].astype(bool) & (codes[:, i] == codes[:, j])

    eligible = np.zeros((n_units, n_raters))
    maj_agree = np.zeros((n_units, n_raters))
    rows = np.arange(n_units)
    for r in range(n_raters):
        has = codes[:, r] >= 0
        others = counts.copy()
        others[rows[has], codes[has, r]] -= 1.0
        m_others = others.sum(axis=1)
        top = others.argmax(axis=1) if q else np.zeros(n_units, dtype=int)
        top_count = others.max(axis=1) if q else np.zeros(n_units)
        majority = (m_others >= 2) & (top_count > m_others / 2.0)
        eligible[:, r] = has & majority
        maj_agree[:, r] = has & majority & (codes[:, r] == top)

    return _Units(
        codes=codes,
        counts=counts,
        complete=m == n_raters,
        coincidence=coincidence,
        pair_both=both,
        pair_agree=agree,
        maj_eligible=eligible,
        maj_agree=maj_agree,
    )


def _fleiss(w: np.ndarray, u: _Units, n_raters: int) -> np.ndarray:
    """Fleiss' κ for unit weights ``w`` (B, N); NaN where undefined."""
    counts = u.counts[u.complete]
    wc = w[:, u.complete]
    nb = wc.sum(axis=1)
    safe = np.where(nb > 0, nb, 1.0)
    p_unit = ((counts**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    pa = wc @ p_unit / safe
    pi = wc @ counts / (safe[:, None] * n_raters)
    pe = (pi**2).sum(axis=1)
    ok = (nb >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (pa - pe) / (1.0 - pe), np.nan)


def _fleiss_se(u: _Units, n_raters: int, kappa: float) -> float:
    """Gwet's linearisation SE of Fleiss' κ on complete units (irrCAC ``CAC.fleiss()``)."""
    counts = u.counts[u.complete]
    n = counts.shape[0]
    pi = counts.sum(axis=0) / (n * n_raters)
    pe = float((pi**2).sum())
    pa_unit = ((counts**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    k_unit = (pa_unit - pe) / (1.0 - pe)
    pe_unit = counts @ pi / n_raters
    x = k_unit - 2.0 * (1.0 - kappa) * (pe_unit - pe) / (1.0 - pe)
    return float(np.sqrt(max(((x - kappa) ** 2).sum() / (n * (n - 1.0)), 0.0)))


def _alpha(w: np.ndarray, u: _Units, q: int, ordinal: bool) -> np.ndarray:
    """Krippendorff's α from coincidences (as ``krippendorff.alpha``); NaN where undefined."""
    o = (w @ u.coincidence).reshape(-1, q, q)
    n_v = o.sum(axis=1)
    n_tot = n_v.sum(axis=1)
    if ordinal:
        cum = np.cumsum(n_v, axis=1)
        lo = np.minimum.outer(np.arange(q), np.arange(q))
        hi = np.maximum.outer(np.arange(q), np.arange(q))
        between = cum[:, hi] - cum[:, lo] + n_v[:, lo]
        d = (between - (n_v[:, :, None] + n_v[:, None, :]) / 2.0) ** 2
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


def _ratio(w: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Σ w·num / Σ w·den per column, NaN where the denominator is 0 -> shape (B, cols)."""
    top, bottom = w @ num, w @ den
    with np.errstate(all="ignore"):
        return np.where(bottom > 0, top / bottom, np.nan)


def _mean_pairwise(w: np.ndarray, u: _Units) -> np.ndarray:
    ratios = _ratio(w, u.pair_agree, u.pair_both)
    defined = np.isfinite(ratios)
    count = defined.sum(axis=1)
    with np.errstate(all="ignore"):
        return np.where(count > 0, np.where(defined, ratios, 0.0).sum(axis=1) / count, np.nan)


# ------------------------------------------------------------------------------ public API


def multi_rater_stats(
    table: Sequence[Sequence[Hashable | None]],
    raters: Sequence[Hashable] | None = None,
    *,
    categories: Sequence[Hashable] | None = None,
    ordinal: bool = False,
    weights: str = "linear",
    ci: str = "analytic",
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> MultiRaterStats:
    """Agreement among several raters.

    Args:
        table: One row per unit, one label per rater (``None`` = missing).
        raters: Rater names, one per column; defaults to ``0, 1, …``.
        categories: All categories in order; defaults to the observed labels, sorted. Also
            passed to every pairwise comparison, so their tables share one shape.
        ordinal: Ordinal α (Krippendorff's ordinal metric) and ordinal pairwise figures.
            Labels must be numbers or ``categories`` must give the order.
        weights: ``"linear"`` or ``"quadratic"``, for the pairwise weighted κ.
        ci: ``"analytic"``, ``"bootstrap"`` or ``"none"`` (see the module docstring for what
            each figure uses).
        n_boot: Bootstrap resamples.
        seed: Bootstrap seed; the same seed gives the same intervals.
        confidence: Confidence level.

    Returns:
        The figures as a :class:`MultiRaterStats`.

    Raises:
        ValueError: On rows of unequal length, duplicate rater names or invalid options.
    """
    _check_options(ci, weights, confidence, n_boot)
    rows = [list(row) for row in table]
    n_raters = len(raters) if raters is not None else (len(rows[0]) if rows else 0)
    names: list[Hashable] = list(raters) if raters is not None else list(range(n_raters))
    if len(set(names)) != len(names):
        raise ValueError("rater names must be unique")
    for i, row in enumerate(rows):
        if len(row) != n_raters:
            raise ValueError(f"row {i} has {len(row)} labels, expected {n_raters}")

    cats = resolve_categories((x for row in rows for x in row), categories, ordinal)
    q = len(cats)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.asarray(
        [[-1 if is_missing(x) else index[x] for x in row] for row in rows], dtype=np.int64
    ).reshape(len(rows), n_raters)
    u = _units(codes, q)
    n_units = len(rows)
    n_complete = int(u.complete.sum()) if n_raters else 0
    n_pairable = int((u.counts.sum(axis=1) >= 2).sum())
    ones = np.ones((1, n_units))

    fleiss_value = float(_fleiss(ones, u, n_raters)[0]) if n_raters >= 2 else np.nan
    alpha_value = float(_alpha(ones, u, q, ordinal)[0]) if q else np.nan
    mean_pp_value = float(_mean_pairwise(ones, u)[0])
    maj_value = _ratio(ones, u.maj_agree, u.maj_eligible)[0]
    maj_n = u.maj_eligible.sum(axis=0).astype(int)

    # One bootstrap over units for every unit-level figure.
    dist = None
    if ci != "none" and n_units >= 2:

        def _stat(w: np.ndarray) -> np.ndarray:
            parts = [
                _fleiss(w, u, n_raters) if n_raters >= 2 else np.full(len(w), np.nan),
                _alpha(w, u, q, ordinal) if q else np.full(len(w), np.nan),
                _mean_pairwise(w, u),
            ]
            return np.vstack([np.stack(parts), _ratio(w, u.maj_agree, u.maj_eligible).T])

        width = n_units + 3 * q * q + u.pair_both.shape[1] + n_raters
        dist = bootstrap_distribution(
            n_units, _stat, n_boot=n_boot, seed=seed, confidence=confidence, width=width
        )
    no_boot = None if ci == "none" else "confidence interval needs at least two units"

    def boot(value: float, n: int, row: int, reason: str) -> Estimate:
        if np.isnan(value):
            return Estimate.undefined(reason, n)
        return bootstrap_estimate(
            value, n, None if dist is None else dist[row], confidence, reason=no_boot
        )

    # Fleiss' kappa
    if n_raters < 2:
        fleiss_reason = "needs at least two raters"
    elif n_complete == 0:
        fleiss_reason = "no units labelled by all raters"
    elif n_complete < 2:
        fleiss_reason = "n < 2"
    else:
        fleiss_reason = "only one category used (chance agreement is 1)"
    if ci == "analytic" and not np.isnan(fleiss_value):
        se = _fleiss_se(u, n_raters, fleiss_value)
        low, high = normal_interval(fleiss_value, se, confidence)
        fleiss = Estimate(fleiss_value, low, high, n_complete, method="analytic", se=se)
    else:
        fleiss = boot(fleiss_value, n_complete, 0, fleiss_reason)

    alpha_reason = (
        "no unit labelled by at least two raters"
        if n_pairable == 0
        else "only one category used (expected disagreement is 0)"
    )
    alpha = boot(alpha_value, n_pairable, 1, alpha_reason)
    mean_pp = boot(
        mean_pp_value,
        n_pairable,
        2,
        "fewer than two raters" if n_raters < 2 else "no units labelled by two raters",
    )

    vs_majority: dict[Hashable, Estimate] = {}
    for r, name in enumerate(names):
        reason = "no units where the other raters have a strict majority"
        value, n = float(maj_value[r]), int(maj_n[r])
        if ci == "analytic" and not np.isnan(value):
            low, high = wilson_interval(value * n, n, confidence)
            vs_majority[name] = Estimate(value, low, high, n, method="analytic")
        else:
            vs_majority[name] = boot(value, n, 3 + r, reason)

    pairwise = {
        (names[i], names[j]): two_rater_stats(
            [row[i] for row in rows],
            [row[j] for row in rows],
            categories=cats,
            ordinal=ordinal,
            weights=weights,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        for i, j in combinations(range(n_raters), 2)
    }

    return MultiRaterStats(
        raters=names,
        categories=cats,
        n_units=n_units,
        n_complete=n_complete,
        fleiss=fleiss,
        krippendorff_alpha=alpha,
        mean_pairwise_percent=mean_pp,
        pairwise=pairwise,
        vs_majority=vs_majority,
        ordinal=ordinal,
    )
