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

from medjudge.judging.stats.agreement.labels import json_label
from medjudge.judging.stats.bootstrap import Jackknife, as_estimates, bca_many
from medjudge.judging.stats.bootstrap_categories import CategoryFigures, CategorySums
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
    macro_precision: Estimate | None = None
    """Mean precision over the labels the reference has (0 for one the rater never gave, as
    scikit-learn's ``zero_division=0``), beside macro-F1; no interval."""
    macro_recall: Estimate | None = None
    """Mean recall over the labels the reference has, beside macro-F1; no interval."""

    def to_dict(self) -> dict[str, object]:
        """JSON-safe record."""
        return {
            "n": self.n,
            "accuracy": self.accuracy.to_dict(),
            "macro_f1": self.macro_f1.to_dict(),
            "macro_precision": None
            if self.macro_precision is None
            else self.macro_precision.to_dict(),
            "macro_recall": None if self.macro_recall is None else self.macro_recall.to_dict(),
            "labels": [s.to_dict() for s in self.labels],
        }


MEAN_OF_LABELS = "no interval: a mean of per-label proportions (each label's carries its own)"


def _macro_mean(labels: Sequence[LabelScores], which: str, n: int) -> Estimate:
    """The mean of one per-label figure over the labels the reference has (undefined: 0)."""
    present = [s for s in labels if s.support > 0]
    if not present:
        return Estimate.undefined("no reference labels", n)
    values = [getattr(s, which).value or 0.0 for s in present]
    return Estimate(float(np.mean(values)), None, None, n, reason=MEAN_OF_LABELS)


def _f1(glob: np.ndarray, chan: np.ndarray) -> np.ndarray:
    """F1 of a label from its channels ``[tp, support, predicted]`` (NaN: never in either)."""
    denom = chan[..., 1] + chan[..., 2]
    with np.errstate(all="ignore"):
        return np.where(denom > 0, 2.0 * chan[..., 0] / denom, np.nan)


def _cell_sums(cells: Sequence[tuple[int, int, int]], k: int) -> CategorySums:
    """The units as the table's non-empty cells (one pattern each, row-major), each adding to
    its row label's ``tp`` and ``support`` and its column label's ``predicted``."""
    rows = np.array([c[0] for c in cells], dtype=np.int64)
    cols = np.array([c[1] for c in cells], dtype=np.int64)
    freq = np.array([c[2] for c in cells], dtype=float)
    pats = np.arange(len(cells))
    diag = rows == cols
    off = ~diag
    return CategorySums(
        freq,
        np.zeros((len(cells), 0)),
        np.concatenate([pats[diag], pats[off], pats[off]]),
        np.concatenate([rows[diag], rows[off], cols[off]]),
        np.vstack(
            [
                np.tile([1.0, 1.0, 1.0], (int(diag.sum()), 1)),
                np.tile([0.0, 1.0, 0.0], (int(off.sum()), 1)),
                np.tile([0.0, 0.0, 1.0], (int(off.sum()), 1)),
            ]
        ),
        k,
    )


def _macro(f1: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Macro-F1 over the labels the reference uses (last axis: labels)."""
    present = support > 0
    with np.errstate(all="ignore"):
        return np.where(
            present.any(axis=-1),
            np.where(present, np.nan_to_num(f1), 0.0).sum(axis=-1) / present.sum(axis=-1),
            np.nan,
        )


@dataclass(frozen=True)
class _F1:
    """F1 of each of the ``k`` labels, then macro-F1: a :class:`~.bootstrap.Resampled`."""

    sums: CategorySums

    def values(self, counts: np.ndarray) -> np.ndarray:
        parts = []
        for glob, chan in self.sums.resampled(counts):
            f1 = _f1(glob, chan)  # (b, k)
            parts.append(np.vstack([f1.T, _macro(f1, chan[..., 1])[None, :]]))
        return np.concatenate(parts, axis=1)

    def jackknife(self) -> Jackknife:
        s = self.sums
        per_label = CategoryFigures(s, _f1).jackknife()
        # Leaving out a unit of a cell moves the F1 of its row and column labels only.
        total = s.channel_totals()
        f1 = np.nan_to_num(_f1(total, total))
        present = total[:, 1] > 0
        moved = total[s.cat] - s.values
        gain = np.nan_to_num(_f1(moved, moved)) * (moved[:, 1] > 0) - f1[s.cat] * present[s.cat]
        lost = present[s.cat].astype(float) - (moved[:, 1] > 0)
        n_pat = len(s.freq)
        kept = present.sum() - np.bincount(s.pat, lost, minlength=n_pat)
        with np.errstate(all="ignore"):
            macro = (f1[present].sum() + np.bincount(s.pat, gain, minlength=n_pat)) / kept
        return Jackknife(
            np.concatenate([per_label.stat, np.full(n_pat, s.q)]),
            np.concatenate([per_label.value, np.where(kept > 0, macro, np.nan)]),
            np.concatenate([per_label.units, s.freq]),
        )


def classification(
    matrix: Sequence[Sequence[int]],
    categories: Sequence[Hashable],
    *,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Classification:
    """Score the column rater against the row reference from their full confusion table.

    Args:
        matrix: Counts, rows = reference label, columns = the rater's label.
        categories: The labels of rows and columns, in order.
        intervals: Compute intervals.
        n_boot: Bootstrap resamples for F1.
        seed: Bootstrap seed.
        confidence: Confidence level.

    Returns:
        See :func:`classification_of_cells`.
    """
    cells = [
        (i, j, int(count))
        for i, row in enumerate(matrix)
        for j, count in enumerate(row)
        if count > 0
    ]
    return classification_of_cells(
        cells, categories, intervals=intervals, n_boot=n_boot, seed=seed, confidence=confidence
    )


def classification_of_cells(
    cells: Sequence[tuple[int, int, int]],
    categories: Sequence[Hashable],
    *,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Classification:
    """Score the column rater against the row reference from their table's non-empty cells.

    Args:
        cells: ``(row, column, count)`` of the non-empty cells, row-major (as
            :attr:`~.agreement.two.Confusion.cells`); rows = reference label.
        categories: The labels of rows and columns, in order.
        intervals: Compute intervals.
        n_boot: Bootstrap resamples for F1 (the units are resampled by cell).
        seed: Bootstrap seed.
        confidence: Confidence level.

    Returns:
        Accuracy, macro-F1 (over labels present in the reference) and per-label figures.
        Precision is undefined for a label the rater never gave, recall for one the
        reference never has (as scikit-learn's ``zero_division`` warnings say). Time and
        memory are linear in the cells and the labels.
    """
    k = len(categories)
    sums = _cell_sums(cells, k)
    n = int(sums.freq.sum())
    totals = sums.channel_totals()  # (k, [tp, support, predicted])
    acc = proportion(float(totals[:, 0].sum()), n, confidence, "no units with both labels")
    if not n:
        f1s = [Estimate.undefined("no units with both labels", 0)] * (k + 1)
    else:
        theta, cis = bca_many(
            [_F1(sums)],
            sums.freq,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
            intervals=intervals and n >= 2,
        )
        reasons = [f"{c!r} neither in the reference nor given" for c in categories]
        f1s = as_estimates(theta, cis, [*reasons, "no reference labels"], [n] * (k + 1))
    labels = []
    for j, c in enumerate(categories):
        tp, support, predicted = float(totals[j, 0]), int(totals[j, 1]), int(totals[j, 2])
        labels.append(
            LabelScores(
                label=c,
                support=support,
                predicted=predicted,
                precision=proportion(tp, predicted, confidence, f"the rater never said {c}"),
                recall=proportion(tp, support, confidence, f"the reference never says {c}"),
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
    return Classification(
        n=n,
        accuracy=acc,
        macro_f1=f1s[k],
        labels=labels,
        macro_precision=_macro_mean(labels, "precision", n),
        macro_recall=_macro_mean(labels, "recall", n),
    )
