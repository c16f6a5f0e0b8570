"""Agreement between two raters: percent agreement, Cohen's κ, Gwet's AC1, weighted κ.

Every coefficient is a function of the two raters' confusion table, so the point estimate
and each bootstrap resample are computed by the same vectorised table functions
(:mod:`.agreement_tables`); the correlations' point estimates come from :mod:`scipy.stats`.

Intervals (``ci="analytic"``):

* percent agreement: Wilson score interval;
* Cohen's κ: ``κ ± z·SE`` with the large-sample SE of Fleiss, Cohen & Everitt (1969), the one
  statsmodels ``cohens_kappa`` reports as ``std_kappa``;
* Gwet's AC1: ``AC1 ± z·SE`` with Gwet's (2008) linearisation variance (as irrCAC computes it);
* weighted κ: ``κw ± z·SE`` with the Fleiss–Cohen–Everitt weighted SE (statsmodels'
  ``std_kappa`` for ``wt="linear"``/``"quadratic"``);
* Spearman / Pearson: Fisher z, SE ``sqrt(1.06/(n-3))`` (Fieller et al. 1957) for Spearman and
  ``1/sqrt(n-3)`` for Pearson; needs n > 3.

Normal-theory intervals are clipped to the coefficient's range. With ``ci="bootstrap"``
every interval is a percentile bootstrap over units (:mod:`.estimates`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from medjudge.judging.stats.agreement_labels import (
    category_scores,
    is_missing,
    json_label,
    resolve_categories,
)
from medjudge.judging.stats.agreement_tables import (
    ac1_se,
    ac1_table,
    cohen_se,
    cohen_table,
    fisher_interval,
    margins,
    pearson_table,
    percent_table,
    spearman_table,
    weighted_se,
    weighted_table,
)
from medjudge.judging.stats.estimates import (
    Estimate,
    bootstrap_distribution,
    bootstrap_estimate,
    check_confidence,
    normal_interval,
    wilson_interval,
)

CI_CHOICES = ("analytic", "bootstrap", "none")
WEIGHT_CHOICES = ("linear", "quadratic")

NO_UNITS = "no units labelled by both raters"
TOO_FEW = "n < 2"
ONE_CATEGORY_COHEN = "only one category used by both raters (chance agreement is 1)"
ONE_CATEGORY_AC1 = "only one category on the scale (AC1 needs at least two)"
ONE_CATEGORY_WEIGHTED = "only one category used by both raters (chance disagreement is 0)"
NO_VARIATION = "no variation (correlation undefined)"


@dataclass(frozen=True)
class Confusion:
    """Confusion table of two raters.

    Attributes:
        categories: Ordered categories (rows and columns).
        matrix: Counts; rows are rater a, columns rater b.
    """

    categories: list[Hashable]
    matrix: list[list[int]]

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict."""
        return {
            "categories": [json_label(c) for c in self.categories],
            "matrix": [list(map(int, row)) for row in self.matrix],
        }


@dataclass(frozen=True)
class TwoRaterStats:
    """Agreement figures for two raters over the units both labelled.

    Attributes:
        n: Units labelled by both raters.
        n_dropped: Units dropped because at least one label was missing.
        percent: Observed agreement p_o.
        chance: Cohen's chance agreement p_e from each rater's own marginals (``None`` if n=0).
        cohen: Cohen's κ.
        gwet_ac1: Gwet's AC1.
        weighted_kappa: Weighted κ (only when ordinal, else ``None``).
        spearman: Spearman correlation (only when ordinal, else ``None``).
        pearson: Pearson correlation (only when ordinal, else ``None``).
        confusion: The confusion table.
        ordinal: Whether the scale was treated as ordinal.
        weights: Weight scheme of ``weighted_kappa`` (``None`` when not ordinal).
    """

    n: int
    n_dropped: int
    percent: Estimate
    chance: float | None
    cohen: Estimate
    gwet_ac1: Estimate
    weighted_kappa: Estimate | None
    spearman: Estimate | None
    pearson: Estimate | None
    confusion: Confusion
    ordinal: bool = False
    weights: str | None = None

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict (``json.dumps(..., allow_nan=False)`` works)."""

        def opt(e: Estimate | None) -> dict[str, object] | None:
            return None if e is None else e.to_dict()

        return {
            "n": self.n,
            "n_dropped": self.n_dropped,
            "ordinal": self.ordinal,
            "weights": self.weights,
            "percent": self.percent.to_dict(),
            "chance": self.chance,
            "cohen": self.cohen.to_dict(),
            "gwet_ac1": self.gwet_ac1.to_dict(),
            "weighted_kappa": opt(self.weighted_kappa),
            "spearman": opt(self.spearman),
            "pearson": opt(self.pearson),
            "confusion": self.confusion.to_dict(),
        }


# ------------------------------------------------------------------------------ public API


def _undefined_reason(kind: str, n: int) -> str:
    if n == 0:
        return NO_UNITS
    if n < 2:
        return TOO_FEW
    return {
        "cohen": ONE_CATEGORY_COHEN,
        "ac1": ONE_CATEGORY_AC1,
        "weighted": ONE_CATEGORY_WEIGHTED,
        "corr": NO_VARIATION,
    }[kind]


def _check_options(ci: str, weights: str, confidence: float, n_boot: int) -> None:
    if ci not in CI_CHOICES:
        raise ValueError(f"ci must be one of {CI_CHOICES}, not {ci!r}")
    if weights not in WEIGHT_CHOICES:
        raise ValueError(f"weights must be one of {WEIGHT_CHOICES}, not {weights!r}")
    check_confidence(confidence)
    if n_boot < 1:
        raise ValueError("n_boot must be positive")


def two_rater_stats(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    *,
    categories: Sequence[Hashable] | None = None,
    ordinal: bool = False,
    weights: str = "linear",
    ci: str = "analytic",
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> TwoRaterStats:
    """Agreement between two raters.

    Units where either label is missing (``None``/NaN) are dropped; ``n`` counts the units
    both raters labelled. Undefined figures come back with ``value=None`` and a reason,
    never NaN.

    Args:
        a: First rater's labels, one per unit (rows of the confusion table).
        b: Second rater's labels, aligned with ``a``.
        categories: All categories in order. Defaults to the labels observed on the units
            both raters labelled (sorted). It sets Q for AC1 and the weight positions for
            weighted κ; a label outside it raises ``ValueError``.
        ordinal: Also compute weighted κ, Spearman and Pearson. Labels must then be numbers
            or ``categories`` must give the order. Weights use category positions (as
            sklearn); correlations use numeric labels as scores, else positions.
        weights: ``"linear"`` or ``"quadratic"`` weights for weighted κ.
        ci: ``"analytic"`` (see module docstring), ``"bootstrap"`` (percentile bootstrap over
            units with ``scipy.stats.bootstrap``) or ``"none"``.
        n_boot: Bootstrap resamples.
        seed: Bootstrap seed; the same seed gives the same intervals.
        confidence: Confidence level of the intervals.

    Returns:
        The figures as a :class:`TwoRaterStats`.

    Raises:
        ValueError: On sequences of different lengths or invalid options.
    """
    _check_options(ci, weights, confidence, n_boot)
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"the raters have different numbers of units ({len(a)} vs {len(b)})")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not is_missing(x) and not is_missing(y)]
    n = len(pairs)
    cats = resolve_categories([v for pair in pairs for v in pair], categories, ordinal)
    k = len(cats)
    index = {c: i for i, c in enumerate(cats)}
    codes = np.asarray([index[x] * k + index[y] for x, y in pairs], dtype=np.int64)
    table = np.bincount(codes, minlength=k * k).reshape(k, k).astype(float)
    confusion = Confusion(cats, table.astype(int).tolist())

    scores = category_scores(cats)
    statistics: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "percent": percent_table,
        "cohen": cohen_table,
        "ac1": ac1_table,
    }
    if ordinal:
        statistics.update(
            weighted=lambda t: weighted_table(t, weights),
            spearman=spearman_table,
            pearson=lambda t: pearson_table(t, scores),
        )
    values = {name: float(f(table[None])[0]) if n else math.nan for name, f in statistics.items()}
    if ordinal:
        # Point estimates of the correlations straight from scipy.stats; the table versions
        # above (equal to them) serve the bootstrap.
        values["spearman"], values["pearson"] = _scipy_correlations(
            scores[codes // k] if n else scores[:0], scores[codes % k] if n else scores[:0]
        )

    distributions: dict[str, np.ndarray] | None = None
    boot_reason = None
    if ci == "bootstrap":
        if n >= 2:
            names = list(statistics)

            def _stat(w: np.ndarray) -> np.ndarray:
                # Resampled confusion tables: unit multiplicities summed per table cell.
                flat = np.arange(len(w))[:, None] * (k * k) + codes[None, :]
                tables = np.bincount(flat.ravel(), weights=w.ravel(), minlength=len(w) * k * k)
                tables = tables.reshape(-1, k, k)
                return np.stack([statistics[name](tables) for name in names])

            dist = bootstrap_distribution(
                n, _stat, n_boot=n_boot, seed=seed, confidence=confidence, width=n + k * k
            )
            distributions = dict(zip(names, dist, strict=True))
        else:
            boot_reason = "confidence interval needs n >= 2"

    def build(name: str, kind: str, analytic: Callable[[float], Estimate]) -> Estimate:
        value = values[name]
        if math.isnan(value):
            return Estimate.undefined(_undefined_reason(kind, n), n)
        if ci == "bootstrap":
            dist = None if distributions is None else distributions[name]
            return bootstrap_estimate(value, n, dist, confidence, reason=boot_reason)
        if ci == "none":
            return Estimate(value, None, None, n)
        return analytic(value)

    def analytic_normal(se_fn: Callable[[float], float]) -> Callable[[float], Estimate]:
        def make(value: float) -> Estimate:
            se = se_fn(value)
            low, high = normal_interval(value, se, confidence)
            return Estimate(value, low, high, n, method="analytic", se=se)

        return make

    def analytic_percent(value: float) -> Estimate:
        low, high = wilson_interval(value * n, n, confidence)
        return Estimate(value, low, high, n, method="analytic")

    def analytic_fisher(spearman: bool) -> Callable[[float], Estimate]:
        def make(value: float) -> Estimate:
            if n <= 3:
                return Estimate(value, None, None, n, reason="Fisher-z interval needs n > 3")
            low, high = fisher_interval(value, n, confidence, spearman)
            return Estimate(value, low, high, n, method="analytic")

        return make

    percent = (
        build("percent", "percent", analytic_percent) if n else Estimate.undefined(NO_UNITS, 0)
    )
    pe_cohen = None
    if n:
        _, p1, p2 = margins(table)
        pe_cohen = float((p1 * p2).sum())

    weighted = spearman = pearson = None
    if ordinal:
        weighted = build(
            "weighted", "weighted", analytic_normal(lambda v: weighted_se(table, v, weights))
        )
        spearman = build("spearman", "corr", analytic_fisher(True))
        pearson = build("pearson", "corr", analytic_fisher(False))

    return TwoRaterStats(
        n=n,
        n_dropped=len(a) - n,
        percent=percent,
        chance=pe_cohen,
        cohen=build("cohen", "cohen", analytic_normal(lambda v: cohen_se(table, v))),
        gwet_ac1=build("ac1", "ac1", analytic_normal(lambda v: ac1_se(table, v))),
        weighted_kappa=weighted,
        spearman=spearman,
        pearson=pearson,
        confusion=confusion,
        ordinal=ordinal,
        weights=weights if ordinal else None,
    )


def _scipy_correlations(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Spearman and Pearson via :mod:`scipy.stats`; NaN when undefined (no variation, n < 2)."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    return float(stats.spearmanr(x, y).statistic), float(stats.pearsonr(x, y).statistic)
