"""Point estimates with confidence intervals, and the interval machinery behind them.

An :class:`Estimate` is what every agreement figure in :mod:`medjudge.judging.stats.agreement.core`
returns. It never holds NaN or infinity: an undefined figure has ``value=None`` and a
human-readable ``reason``.

Each statistic has exactly one interval method, the same in the command line, the study
report and the app, and named in every output (``Estimate.method``; :data:`METHOD_TEXT`
words it for people):

* ``wilson`` — Wilson score interval, for proportions (percent agreement, agreement with the
  majority, unanimous share, precision, recall, accuracy); valid at any n;
* ``normal_se`` — ``estimate ± z·SE`` with the coefficient's standard large-sample SE
  (Cohen's κ, weighted κ, Gwet's AC1, Fleiss' κ);
* ``f_distribution`` — the F-based interval of McGraw & Wong (1996) for ICC(2,1);
* ``bca_bootstrap`` — bias-corrected and accelerated bootstrap over units (Krippendorff's α,
  pooled and per-unit pairwise agreement, Randolph's κ, Fleiss' κ per category, F1, means,
  Spearman and Pearson);
* ``wilson_transform`` — the Wilson interval of p_o carried through the linear map of
  Bennett's S;
* ``ppi_plus_plus`` — the PPI++ interval of a judge's figure corrected by a random physician
  sample (:mod:`.ppi`).

A zero-width interval is never reported (it is what a normal SE of 0 or a bootstrap whose
resamples all agree gives, and says nothing); an estimate resting on fewer than
:data:`MIN_STABLE_N` units is flagged ``unstable``.

The BCa bootstrap itself lives in :mod:`.bootstrap`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

METHODS = (
    "wilson",
    "normal_se",
    "f_distribution",
    "bca_bootstrap",
    "wilson_transform",
    "student_t",
    "ppi_plus_plus",
    "none",
)

METHOD_SHORT = {
    "wilson": "Wilson",
    "normal_se": "±z·SE",
    "f_distribution": "F",
    "bca_bootstrap": "BCa",
    "wilson_transform": "Wilson→S",
    "student_t": "t",
    "ppi_plus_plus": "PPI++",
    "none": "",
}
"""Interval methods in a few characters, for narrow tables (the app at 80 columns)."""

METHOD_TEXT = {
    "wilson": "Wilson score interval",
    "normal_se": "estimate ± z·SE (large-sample standard error)",
    "f_distribution": "F-distribution interval (McGraw & Wong 1996)",
    "bca_bootstrap": "BCa bootstrap over units",
    "wilson_transform": "Wilson interval of the observed agreement, mapped through the formula",
    "student_t": "Student t interval",
    "ppi_plus_plus": "PPI++ interval (prediction-powered, power-tuned; normal)",
    "none": "no interval",
}
"""How each interval method is named for people (reports, ``--help``)."""

#: Figures from fewer units than this are flagged ``unstable`` everywhere they are shown.
MIN_STABLE_N = 20

#: A bootstrap interval is reported only if at least this share of resamples is defined.
MIN_DEFINED_SHARE = 0.5

#: Default number of bootstrap resamples (BCa wants a couple of thousand).
N_BOOT = 2000

ZERO_WIDTH = "no interval: it would have zero width, which says nothing"
"""A zero-width interval whose cause the caller did not name (see :func:`zero_width_reason`)."""
ALL_AGREE = "no interval: every unit agrees, so it would have zero width"
CONSTANT_RATER = (
    "no interval: one rater gave the same label to every unit, so it would have zero width"
)


def zero_width_reason(*, all_agree: bool, constant_rater: bool) -> str:
    """Why an interval would have zero width, in the words of its true cause.

    Args:
        all_agree: Every unit's labels agree.
        constant_rater: Some rater gave the same label to every unit it labelled (a κ of 0 at
            any percent agreement: the chance agreement equals the observed one).

    Returns:
        :data:`ALL_AGREE`, :data:`CONSTANT_RATER` or, for neither, :data:`ZERO_WIDTH`.
    """
    if all_agree:
        return ALL_AGREE
    if constant_rater:
        return CONSTANT_RATER
    return ZERO_WIDTH


SAME_RESAMPLES = "no interval: every bootstrap resample gives the same value"
MOSTLY_UNDEFINED = "confidence interval unavailable: most bootstrap resamples undefined"


def clean_float(x: object) -> float | None:
    """Return ``x`` as a plain ``float``, or ``None`` if it is missing, NaN or infinite."""
    if x is None:
        return None
    try:
        f = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


@dataclass(frozen=True)
class Estimate:
    """One agreement figure with its confidence interval.

    Attributes:
        value: The point estimate, or ``None`` when it is undefined.
        ci_low: Lower confidence bound, or ``None`` when no interval is available.
        ci_high: Upper confidence bound, or ``None`` when no interval is available.
        n: Number of units the estimate rests on.
        reason: Why the value (or, for a defined value, its interval) is unavailable.
        method: How the interval was obtained (one of :data:`METHODS`; ``"none"`` when
            there is no interval).
        se: Standard error behind a ``normal_se`` interval, when there is one.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    reason: str | None = None
    method: str = "none"
    se: float | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        value = clean_float(self.value)
        low, high = clean_float(self.ci_low), clean_float(self.ci_high)
        se = clean_float(self.se)
        reason = self.reason
        if value is None:
            low = high = se = None
            if reason is None:
                reason = "undefined"
        method = self.method
        if low is not None and high is not None and low == high:
            low = high = None
            reason = reason or ZERO_WIDTH
        if low is None or high is None:
            low = high = None
            method = "none"
        elif low > high:
            low, high = high, low
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "ci_low", low)
        object.__setattr__(self, "ci_high", high)
        object.__setattr__(self, "se", se)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "n", int(self.n))

    @classmethod
    def undefined(cls, reason: str, n: int = 0) -> Estimate:
        """Build an undefined estimate.

        Args:
            reason: Human-readable explanation, e.g. ``"n < 2"``.
            n: Number of units that were available.

        Returns:
            An estimate with ``value=None``.
        """
        return cls(None, None, None, n, reason=reason, method="none")

    @property
    def defined(self) -> bool:
        """Whether the point estimate exists."""
        return self.value is not None

    @property
    def has_ci(self) -> bool:
        """Whether a confidence interval is available."""
        return self.ci_low is not None and self.ci_high is not None

    @property
    def unstable(self) -> bool:
        """A defined figure from fewer than :data:`MIN_STABLE_N` units."""
        return self.value is not None and self.n < MIN_STABLE_N

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-safe dict (no NaN or infinity; undefined parts are ``None``)."""
        return {
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "reason": self.reason,
            "method": self.method,
            "se": self.se,
            "unstable": self.unstable,
        }

    def format(self, digits: int = 2, *, flag: bool = True) -> str:
        """Render for people, e.g. ``"0.61 [0.52, 0.70]"`` or ``"undefined (n < 2)"``.

        Args:
            digits: Decimal places.
            flag: Append ``unstable (n=…)`` to a figure from fewer than 20 units.

        Returns:
            The formatted string.
        """
        if self.value is None:
            return f"undefined ({self.reason})" if self.reason else "undefined"
        text = f"{self.value:.{digits}f}"
        if self.has_ci:
            text = f"{text} [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}]"
        elif self.reason:
            text = f"{text} (no CI: {self.reason})"
        unstable = flag and self.unstable
        return text + (f" unstable (n={self.n} < {MIN_STABLE_N})" if unstable else "")

    def __str__(self) -> str:
        return self.format()


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (1.96 for 0.95)."""
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def check_confidence(confidence: float) -> None:
    """Raise ``ValueError`` unless ``0 < confidence < 1``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")


def wilson_interval(successes: float, n: int, confidence: float) -> tuple[float, float]:
    """Wilson score interval for a proportion.

    Args:
        successes: Number of successes.
        n: Number of trials (must be > 0).
        confidence: Confidence level, e.g. 0.95.

    Returns:
        ``(low, high)`` within [0, 1].
    """
    z = z_value(confidence)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1.0 - p) / n + z * z / (4.0 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion(successes: float, n: int, confidence: float, empty: str) -> Estimate:
    """A proportion with its Wilson interval (undefined with ``empty`` when ``n == 0``)."""
    if n <= 0:
        return Estimate.undefined(empty, 0)
    low, high = wilson_interval(successes, n, confidence)
    return Estimate(successes / n, low, high, n, method="wilson")


def normal_interval(
    value: float, se: float, confidence: float, bounds: tuple[float, float] = (-1.0, 1.0)
) -> tuple[float, float]:
    """``value ± z·se`` clipped to ``bounds`` (the coefficient's possible range).

    Args:
        value: Point estimate.
        se: Standard error.
        confidence: Confidence level.
        bounds: Range to clip the interval to.

    Returns:
        ``(low, high)``.
    """
    z = z_value(confidence)
    return max(bounds[0], value - z * se), min(bounds[1], value + z * se)
