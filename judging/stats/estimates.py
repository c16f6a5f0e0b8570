"""Point estimates with confidence intervals, and the interval machinery behind them.

An :class:`Estimate` is what every agreement figure in :mod:`medjudge.judging.stats.agreement`
returns. It never holds NaN or infinity: an undefined figure has ``value=None`` and a
human-readable ``reason``.

The helpers here build intervals three ways:

* :func:`wilson_interval` for a proportion (Wilson score interval),
* :func:`normal_interval` for ``estimate ± z·SE``,
* :func:`bootstrap_distribution` + :func:`percentile_interval` for a percentile bootstrap over
  units, computed with :func:`scipy.stats.bootstrap`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

METHODS = ("analytic", "bootstrap", "none")

#: A bootstrap interval is reported only if at least this share of resamples is defined.
MIN_DEFINED_SHARE = 0.5


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
        method: How the interval was obtained: ``"analytic"``, ``"bootstrap"`` or ``"none"``
            (always ``"none"`` when there is no interval).
        se: Standard error behind an analytic interval, when there is one.
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
        }

    def format(self, digits: int = 2) -> str:
        """Render for people, e.g. ``"0.61 [0.52, 0.70]"`` or ``"undefined (n < 2)"``.

        Args:
            digits: Decimal places.

        Returns:
            The formatted string.
        """
        if self.value is None:
            return f"undefined ({self.reason})" if self.reason else "undefined"
        text = f"{self.value:.{digits}f}"
        if self.has_ci:
            return f"{text} [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}]"
        if self.reason:
            return f"{text} (no CI: {self.reason})"
        return text

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


def multiplicities(indices: np.ndarray, n_units: int) -> np.ndarray:
    """Turn resampled unit indices of shape ``(B, n)`` into counts per unit ``(B, n_units)``."""
    indices = np.atleast_2d(indices)
    n_batch = indices.shape[0]
    offsets = (np.arange(n_batch)[:, None] * n_units + indices).ravel()
    counts = np.bincount(offsets, minlength=n_batch * n_units)
    return counts.reshape(n_batch, n_units).astype(float)


def bootstrap_distribution(
    n_units: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
    width: int | None = None,
) -> np.ndarray:
    """Bootstrap over units with :func:`scipy.stats.bootstrap` (percentile method).

    Units are resampled with replacement; ``statistic`` receives, for a batch of ``B``
    resamples, the matrix ``w`` of shape ``(B, n_units)`` telling how often each unit was
    drawn, and returns an array of shape ``(m, B)`` (``m`` statistics at once; NaN where a
    statistic is undefined in a resample). Every figure here is a function of per-unit
    sums, so this is exact and fast.

    Args:
        n_units: Number of units (must be >= 2).
        statistic: See above.
        n_boot: Number of resamples.
        seed: Seed for ``numpy.random.default_rng``; the same seed gives the same result.
        confidence: Confidence level (passed through to scipy).
        width: Rough number of values ``statistic`` handles per resample (defaults to
            ``n_units``); only sets the batch size, to bound memory.

    Returns:
        The bootstrap distribution, shape ``(m, n_boot)``.
    """
    if n_units < 2:
        raise ValueError("the bootstrap needs at least two units")
    if n_boot < 1:
        raise ValueError("n_boot must be positive")
    # Keep each batch's (B, n_units) matrices to a few MB.
    batch = max(1, min(n_boot, 400_000 // max(width or n_units, n_units, 1)))

    def _stat(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(statistic(multiplicities(idx, n_units)), dtype=float)

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            (np.arange(n_units),),
            _stat,
            n_resamples=n_boot,
            batch=batch,
            vectorized=True,
            method="percentile",
            confidence_level=confidence,
            random_state=np.random.default_rng(seed),
        )
    return np.asarray(res.bootstrap_distribution, dtype=float).reshape(-1, n_boot)


def percentile_interval(
    distribution: np.ndarray, confidence: float
) -> tuple[tuple[float, float] | None, str | None]:
    """Percentile interval from a bootstrap distribution that may contain NaN.

    Undefined resamples (NaN) are left out. When fewer than :data:`MIN_DEFINED_SHARE` of
    the resamples are defined, no interval is given. A degenerate distribution (all
    resamples equal) gives a zero-width interval.

    Args:
        distribution: One statistic's bootstrap values.
        confidence: Confidence level.

    Returns:
        ``((low, high), None)`` or ``(None, reason)``.
    """
    values = np.asarray(distribution, dtype=float).ravel()
    finite = values[np.isfinite(values)]
    if values.size == 0 or finite.size < MIN_DEFINED_SHARE * values.size or finite.size == 0:
        return None, "confidence interval unavailable: most bootstrap resamples undefined"
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return (float(low), float(high)), None


def bootstrap_estimate(
    value: float | None,
    n: int,
    distribution: np.ndarray | None,
    confidence: float,
    *,
    reason: str | None = None,
) -> Estimate:
    """Combine a point estimate with the percentile interval of its bootstrap distribution.

    Args:
        value: Point estimate (``None``/NaN when undefined).
        n: Number of units.
        distribution: Bootstrap values, or ``None`` when no bootstrap was run.
        confidence: Confidence level.
        reason: Why ``value`` is undefined, or why no bootstrap was run.

    Returns:
        The estimate.
    """
    value = clean_float(value)
    if value is None:
        return Estimate.undefined(reason or "undefined", n)
    if distribution is None:
        return Estimate(value, None, None, n, reason=reason, method="none")
    interval, why = percentile_interval(distribution, confidence)
    if interval is None:
        return Estimate(value, None, None, n, reason=why, method="none")
    return Estimate(value, interval[0], interval[1], n, method="bootstrap")
