"""Inter-rater agreement: the figures medjudge reports about its physicians and judges.

This module is the public face; the work lives in small modules:

* :mod:`.estimates` — :class:`Estimate` (value, confidence interval, reason when undefined)
  and the interval machinery (Wilson, normal, percentile bootstrap via scipy);
* :mod:`.agreement_two` — :func:`two_rater_stats`: percent agreement, Cohen's κ, Gwet's AC1
  and, for ordinal scales, weighted κ, Spearman and Pearson;
* :mod:`.agreement_multi` — :func:`multi_rater_stats`: Fleiss' κ, Krippendorff's α, mean
  pairwise agreement, the pairwise table and agreement with the majority of the others;
* :mod:`.agreement_labels` — missing labels, category lists, :func:`without_ties` and
  :class:`LabelMatrix` for label-by-label updates from a live UI.

Labels are hashable values; ``None`` means missing. No public function returns NaN or
infinity: an undefined figure is an :class:`Estimate` with ``value=None`` and a ``reason``.

Example:
    >>> from medjudge.judging.stats.agreement import two_rater_stats
    >>> s = two_rater_stats(["y", "y", "n", "n"], ["y", "n", "n", "n"])
    >>> s.cohen.value
    0.5
"""

from medjudge.judging.stats.agreement_labels import (
    LabelMatrix,
    is_missing,
    resolve_categories,
    without_ties,
)
from medjudge.judging.stats.agreement_multi import MultiRaterStats, multi_rater_stats
from medjudge.judging.stats.agreement_two import Confusion, TwoRaterStats, two_rater_stats
from medjudge.judging.stats.estimates import Estimate

__all__ = [
    "Confusion",
    "Estimate",
    "LabelMatrix",
    "MultiRaterStats",
    "TwoRaterStats",
    "is_missing",
    "multi_rater_stats",
    "resolve_categories",
    "two_rater_stats",
    "without_ties",
]
