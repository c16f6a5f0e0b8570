"""Inter-rater agreement: the figures medjudge reports about its physicians and judges.

This module is the public face; the work lives in small modules:

* :mod:`.estimates` — :class:`Estimate` (value, confidence interval, its method, reason when
  undefined) and the interval machinery (Wilson, normal SE, BCa bootstrap over units);
* :mod:`.two` — :func:`two_rater_stats`: percent agreement, Cohen's κ, Gwet's AC1,
  Bennett's S and, for ordered scales, weighted κ (linear and quadratic), Spearman, Pearson
  and (interval) ICC(2,1);
* :mod:`.multi` — :func:`multi_rater_stats`: Fleiss' κ (overall and per
  category), Krippendorff's α, pooled and per-unit pairwise agreement, Randolph's κ, the
  unanimous share, ICC(2,1), the pairwise table and agreement with the majority of the others;
* :mod:`.classification` — a rater against a reference: accuracy, precision/recall/F1;
* :mod:`.labels` — missing labels, category lists, :func:`without_ties` and
  :class:`LabelMatrix` for label-by-label updates from a live UI.

Labels are hashable values; ``None`` means missing. No public function returns NaN or
infinity: an undefined figure is an :class:`Estimate` with ``value=None`` and a ``reason``.

Example:
    >>> from medjudge.judging.stats.agreement.core import two_rater_stats
    >>> s = two_rater_stats(["y", "y", "n", "n"], ["y", "n", "n", "n"])
    >>> s.cohen.value
    0.5
"""

from medjudge.judging.stats.agreement.labels import (
    SCALES,
    LabelMatrix,
    is_missing,
    resolve_categories,
    without_ties,
)
from medjudge.judging.stats.agreement.multi import (
    MultiRaterStats,
    multi_rater_column_stats,
    multi_rater_stats,
)
from medjudge.judging.stats.agreement.two import Confusion, TwoRaterStats, two_rater_stats
from medjudge.judging.stats.estimates import Estimate

__all__ = [
    "SCALES",
    "Confusion",
    "Estimate",
    "LabelMatrix",
    "MultiRaterStats",
    "TwoRaterStats",
    "is_missing",
    "multi_rater_column_stats",
    "multi_rater_stats",
    "resolve_categories",
    "two_rater_stats",
    "without_ties",
]
