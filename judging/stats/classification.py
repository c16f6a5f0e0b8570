"""A rater scored against a reference: accuracy, and precision / recall / F1 per label.

What LLM-as-judge papers report for a judge against the human majority. The reference
(e.g. the reviewers' strict majority) is the truth, the other rater (the judge) the
prediction; both come as a confusion table with the reference in rows.

Intervals: accuracy, precision and recall are proportions (Wilson); F1 and macro-F1 are not,
and get a BCa bootstrap over units (the units are the table's cells, resampled by counts).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from medjudge.judging.stats.agreement_labels import json_label
from medjudge.judging.stats.bootstrap import UnitPatterns, bca_estimates
from medjudge.judging.stats.estimates import N_BOOT, Estimate, proportion


@dataclass(frozen=True)
class LabelScores:
    """Precision, recall and F1 of one label."""

    label: Hashable
    support: int
    """Reference units with this label."""
    predicted: int
    """Units the rater gave this label."""
    precision: Estimate
    recall: Estimate
    f1: Estimate

    def to_dict(self) -> dict[str, object]:
        """JSON-safe record."""
        return {
            "label": json_label(self.label),
            "support": self.support,
            "predicted": self.predicted,
            "precision": self.precision.to_dict(),
            "recall": self.recall.to_dict(),
            "f1": self.f1.to_dict(),
        }


@dataclass(frozen=True)
class Classification:
    """A rater against a reference over the units both have."""

    n: int
    accuracy: Estimate
    macro_f1: Estimate
    labels: list[LabelScores]

    def to_dict(self) -> dict[str, object]:
        """JSON-safe record."""
        return {
            "n": self.n,
            "accuracy": self.accuracy.to_dict(),
            "macro_f1": self.macro_f1.to_dict(),
            "labels": [s.to_dict() for s in self.labels],
        }


def _f1(tables: np.ndarray, k: int) -> np.ndarray:
    """F1 per label and macro-F1 from flattened tables (B, k*k) -> (k+1, B)."""
    t = tables.reshape(-1, k, k)
    tp = np.diagonal(t, axis1=1, axis2=2)
    support = t.sum(axis=2)
    predicted = t.sum(axis=1)
    denom = support + predicted
    with np.errstate(all="ignore"):
        f1 = np.where(denom > 0, 2.0 * tp / denom, np.nan)
        present = support > 0
        macro = np.where(
            present.any(axis=1),
            np.where(present, np.nan_to_num(f1), 0.0).sum(axis=1) / present.sum(axis=1),
            np.nan,
        )
    return np.vstack([f1.T, macro])


def classification(
    matrix: Sequence[Sequence[int]],
    categories: Sequence[Hashable],
    *,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Classification:
    """Score the column rater against the row reference from their confusion table.

    Args:
        matrix: Counts, rows = reference label, columns = the rater's label.
        categories: The labels of rows and columns, in order.
        intervals: Compute intervals.
        n_boot: Bootstrap resamples for F1.
        seed: Bootstrap seed.
        confidence: Confidence level.

    Returns:
        Accuracy, macro-F1 (over labels present in the reference) and per-label figures.
        Precision is undefined for a label the rater never gave, recall for one the
        reference never has (as scikit-learn's ``zero_division`` warnings say).
    """
    t = np.asarray(matrix, dtype=float)
    k = len(categories)
    n = int(t.sum())
    acc = proportion(float(np.trace(t)), n, confidence, "no units with both labels")
    patterns = (
        UnitPatterns(np.eye(k * k), t.reshape(-1))
        if k
        else UnitPatterns(np.zeros((0, 0)), np.zeros(0))
    )
    keep = patterns.freq > 0
    patterns = UnitPatterns(patterns.rows[keep], patterns.freq[keep])
    f1s = (
        bca_estimates(
            patterns,
            lambda s: _f1(s, k),
            [f"{c!r} neither in the reference nor given" for c in categories]
            + ["no reference labels"],
            intervals=intervals and n >= 2,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        if n
        else [Estimate.undefined("no units with both labels", 0)] * (k + 1)
    )
    labels = []
    for j, c in enumerate(categories):
        support, predicted = int(t[j].sum()), int(t[:, j].sum())
        labels.append(
            LabelScores(
                label=c,
                support=support,
                predicted=predicted,
                precision=proportion(
                    float(t[j, j]), predicted, confidence, f"the rater never said {c}"
                ),
                recall=proportion(
                    float(t[j, j]), support, confidence, f"the reference never says {c}"
                ),
                f1=f1s[j],
            )
        )
    if not intervals:

        def bare(e: Estimate) -> Estimate:
            return e if e.value is None else Estimate(e.value, None, None, e.n)

        acc = bare(acc)
        labels = [
            LabelScores(s.label, s.support, s.predicted, bare(s.precision), bare(s.recall), s.f1)
            for s in labels
        ]
    return Classification(n=n, accuracy=acc, macro_f1=f1s[k], labels=labels)
