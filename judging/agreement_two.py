"""Agreement between two raters: percent agreement, Cohen's κ, Gwet's AC1, weighted κ.

Every coefficient is a function of the two raters' confusion table, so the point estimate
and each bootstrap resample are computed by the same vectorised table functions below.

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
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .agreement_labels import category_scores, is_missing, json_label, resolve_categories
from .estimates import (
    Estimate,
    bootstrap_distribution,
    bootstrap_estimate,
    check_confidence,
    normal_interval,
    wilson_interval,
    z_value,
)

_EPS = 1e-12
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


# --------------------------------------------------------------------------- table maths
# All functions take tables of shape (..., k, k) and return arrays of shape (...), NaN where
# the coefficient is undefined.


def _margins(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    n, p1, p2 = _margins(t)
    po = percent_table(t)
    pe = (p1 * p2).sum(axis=-1)
    ok = (n >= 2) & (1.0 - pe > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, (po - pe) / (1.0 - pe), np.nan)


def _gwet_pe(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    q = p1.shape[-1]
    pi = (p1 + p2) / 2.0
    return (pi * (1.0 - pi)).sum(axis=-1) / max(q - 1, 1)


def ac1_table(t: np.ndarray) -> np.ndarray:
    """Gwet's AC1 with p_e = 1/(Q−1) Σ π_q(1−π_q), Q = number of categories (table size)."""
    n, p1, p2 = _margins(t)
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
    n, p1, p2 = _margins(t)
    d = disagreement_weights(t.shape[-1], kind)
    safe = np.where(n > 0, n, 1.0)
    observed = (d * t).sum(axis=(-2, -1)) / safe
    expected = (d * p1[..., :, None] * p2[..., None, :]).sum(axis=(-2, -1))
    ok = (n >= 2) & (expected > _EPS)
    with np.errstate(all="ignore"):
        return np.where(ok, 1.0 - observed / expected, np.nan)


def _weighted_corr(
    p: np.ndarray, x: np.ndarray, y: np.ndarray, p1: np.ndarray, p2: np.ndarray
) -> np.ndarray:
    mx = (p1 * x).sum(axis=-1)
    my = (p2 * y).sum(axis=-1)
    dx = x - mx[..., None]
    dy = y - my[..., None]
    cov = (p * dx[..., :, None] * dy[..., None, :]).sum(axis=(-2, -1))
    vx = (p1 * dx**2).sum(axis=-1)
    vy = (p2 * dy**2).sum(axis=-1)
    varied = ((p1 > 0).sum(axis=-1) >= 2) & ((p2 > 0).sum(axis=-1) >= 2)
    with np.errstate(all="ignore"):
        r = cov / np.sqrt(vx * vy)
    return np.where(varied, np.clip(r, -1.0, 1.0), np.nan)


def pearson_table(t: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Pearson correlation of the category scores, weighted by the table."""
    n, p1, p2 = _margins(t)
    p = t / np.where(n > 0, n, 1.0)[..., None, None]
    r = _weighted_corr(p, scores, scores, p1, p2)
    return np.where(n >= 2, r, np.nan)


def _midranks(counts: np.ndarray) -> np.ndarray:
    below = np.cumsum(counts, axis=-1) - counts
    return below + (counts + 1.0) / 2.0


def spearman_table(t: np.ndarray) -> np.ndarray:
    """Spearman correlation (Pearson on mid-ranks) from the table; categories in order."""
    n, p1, p2 = _margins(t)
    p = t / np.where(n > 0, n, 1.0)[..., None, None]
    x = _midranks(t.sum(axis=-1))
    y = _midranks(t.sum(axis=-2))
    r = _weighted_corr(p, x, y, p1, p2)
    return np.where(n >= 2, r, np.nan)


# ------------------------------------------------------------------------ standard errors


def cohen_se(t: np.ndarray, kappa: float) -> float:
    """Large-sample SE of Cohen's κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n, p1, p2 = _margins(t)
    p = t / n
    pe = float((p1 * p2).sum())
    term_a = (np.diag(p) * (1.0 - (p1 + p2) * (1.0 - kappa)) ** 2).sum()
    term_b = p * (p2[None, :] + p1[:, None]) ** 2
    np.fill_diagonal(term_b, 0.0)
    term_b = (1.0 - kappa) ** 2 * term_b.sum()
    term_c = (kappa - pe * (1.0 - kappa)) ** 2
    var = (term_a + term_b - term_c) / (1.0 - pe) ** 2 / n
    return math.sqrt(max(float(var), 0.0))


def weighted_se(t: np.ndarray, kappa: float, kind: str) -> float:
    """Large-sample SE of weighted κ (Fleiss, Cohen & Everitt 1969; statsmodels std_kappa)."""
    n, p1, p2 = _margins(t)
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
    n, p1, p2 = _margins(t)
    q = t.shape[-1]
    pi = (p1 + p2) / 2.0
    pe = float(_gwet_pe(p1, p2))
    agree = np.eye(q)
    ac1_unit = (agree - pe) / (1.0 - pe)
    pe_unit = ((1.0 - pi)[:, None] + (1.0 - pi)[None, :]) / (2.0 * (q - 1))
    x = ac1_unit - 2.0 * (1.0 - ac1) * (pe_unit - pe) / (1.0 - pe)
    var = (t * (x - ac1) ** 2).sum() / (n * (n - 1.0))
    return math.sqrt(max(float(var), 0.0))


def _fisher_interval(r: float, n: int, confidence: float, spearman: bool) -> tuple[float, float]:
    if abs(r) >= 1.0:
        return r, r
    se = math.sqrt((1.06 if spearman else 1.0) / (n - 3))
    z = math.atanh(r)
    half = z_value(confidence) * se
    return math.tanh(z - half), math.tanh(z + half)


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
    statistics = {
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
            onehot = np.zeros((n, k * k))
            onehot[np.arange(n), codes] = 1.0
            names = list(statistics)

            def _stat(w: np.ndarray) -> np.ndarray:
                tables = (w @ onehot).reshape(-1, k, k)
                return np.stack([statistics[name](tables) for name in names])

            dist = bootstrap_distribution(
                n, _stat, n_boot=n_boot, seed=seed, confidence=confidence
            )
            distributions = dict(zip(names, dist, strict=True))
        else:
            boot_reason = "confidence interval needs n >= 2"

    def build(name: str, kind: str, analytic: object) -> Estimate:
        value = values[name]
        if math.isnan(value):
            return Estimate.undefined(_undefined_reason(kind, n), n)
        if ci == "bootstrap":
            dist = None if distributions is None else distributions[name]
            return bootstrap_estimate(value, n, dist, confidence, reason=boot_reason)
        if ci == "none":
            return Estimate(value, None, None, n)
        return analytic(value)  # type: ignore[operator]

    def analytic_normal(se_fn: object) -> object:
        def make(value: float) -> Estimate:
            se = se_fn(value)  # type: ignore[operator]
            low, high = normal_interval(value, se, confidence)
            return Estimate(value, low, high, n, method="analytic", se=se)

        return make

    def analytic_percent(value: float) -> Estimate:
        low, high = wilson_interval(value * n, n, confidence)
        return Estimate(value, low, high, n, method="analytic")

    def analytic_fisher(spearman: bool) -> object:
        def make(value: float) -> Estimate:
            if n <= 3:
                return Estimate(value, None, None, n, reason="Fisher-z interval needs n > 3")
            low, high = _fisher_interval(value, n, confidence, spearman)
            return Estimate(value, low, high, n, method="analytic")

        return make

    percent = (
        build("percent", "percent", analytic_percent) if n else Estimate.undefined(NO_UNITS, 0)
    )
    pe_cohen = None
    if n:
        _, p1, p2 = _margins(table)
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
