"""Labels as integer codes in a growable units × raters array: figures recomputed in numpy.

The review app's live agreement table must follow every label within a few milliseconds on
studies of 100,000 units. :class:`CodeMatrix` keeps one criterion's labels as category codes
(``-1`` = missing) so setting a label is one array write and a recomputation is a handful of
vectorised passes (:func:`pair_point`, :func:`multi_point`, :func:`strict_majority_codes`) —
the same definitions as :mod:`.agreement.two` and :mod:`.agreement.multi`, without intervals.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from medjudge.judging.stats.agreement.labels import is_missing
from medjudge.judging.stats.agreement.patterns import fleiss_from_sums, label_patterns
from medjudge.judging.stats.agreement.tables import PairTable, cohen_table, percent_table
from medjudge.judging.stats.agreement.two import NO_UNITS, ONE_CATEGORY_COHEN, TOO_FEW
from medjudge.judging.stats.estimates import Estimate


class CodeMatrix:
    """One criterion's labels as codes: rows are units, columns raters."""

    def __init__(self, categories: Sequence[Hashable] | None = None) -> None:
        """Start empty; ``categories`` fixes the first codes (a value outside gets a new one)."""
        self.categories: list[Hashable] = list(categories or [])
        self._cat = {c: i for i, c in enumerate(self.categories)}
        self._units: dict[Hashable, int] = {}
        self._raters: dict[Hashable, int] = {}
        self._codes = np.full((256, 4), -1, dtype=np.int16)

    def _row(self, unit: Hashable) -> int:
        row = self._units.get(unit)
        if row is None:
            row = self._units[unit] = len(self._units)
            if row >= self._codes.shape[0]:
                grown = np.full((self._codes.shape[0] * 2, self._codes.shape[1]), -1, np.int16)
                grown[: self._codes.shape[0]] = self._codes
                self._codes = grown
        return row

    def _col(self, rater: Hashable) -> int:
        col = self._raters.get(rater)
        if col is None:
            col = self._raters[rater] = len(self._raters)
            if col >= self._codes.shape[1]:
                grown = np.full((self._codes.shape[0], self._codes.shape[1] * 2), -1, np.int16)
                grown[:, : self._codes.shape[1]] = self._codes
                self._codes = grown
        return col

    def set(self, unit: Hashable, rater: Hashable, value: Hashable | None) -> None:
        """Set (``None``: clear) one rater's label on one unit."""
        if is_missing(value):
            if unit in self._units and rater in self._raters:
                self._codes[self._units[unit], self._raters[rater]] = -1
            return
        code = self._cat.get(value)
        if code is None:
            code = self._cat[value] = len(self.categories)
            self.categories.append(value)
        row, col = self._row(unit), self._col(rater)  # may grow the array: index it after
        self._codes[row, col] = code

    def columns(self, raters: Sequence[Hashable]) -> np.ndarray:
        """Codes of these raters over every unit seen, shape ``(units, len(raters))``."""
        n = len(self._units)
        out = np.full((n, len(raters)), -1, dtype=np.int16)
        for j, r in enumerate(raters):
            col = self._raters.get(r)
            if col is not None:
                out[:, j] = self._codes[:n, col]
        return out


def _table(a: np.ndarray, b: np.ndarray, q: int) -> PairTable:
    both = (a >= 0) & (b >= 0)
    return PairTable.from_pair_codes(a[both].astype(np.int64) * q + b[both], q)


def pair_point(a: np.ndarray, b: np.ndarray, q: int) -> tuple[Estimate, Estimate]:
    """Percent agreement and Cohen's κ of two code columns (point estimates, their n)."""
    t = _table(a, b, q)
    n = int(t.n)
    if n == 0:
        return Estimate.undefined(NO_UNITS, 0), Estimate.undefined(NO_UNITS, 0)
    percent = Estimate(percent_table(t), None, None, n)
    kappa = cohen_table(t)
    if np.isnan(kappa):
        return percent, Estimate.undefined(TOO_FEW if n < 2 else ONE_CATEGORY_COHEN, n)
    return percent, Estimate(kappa, None, None, n)


def strict_majority_codes(codes: np.ndarray, q: int) -> np.ndarray:
    """Per row, the code held by more than half of the row's labels, else ``-1``.

    Found from the row's pairs of labels (``rows × raters × raters``), not per category.
    """
    if codes.shape[0] == 0 or q == 0:
        return np.full(codes.shape[0], -1, dtype=np.int16)
    present = codes >= 0
    same = (codes[:, :, None] == codes[:, None, :]) & present[:, :, None] & present[:, None, :]
    own = same.sum(axis=2)  # labels equal to each rater's (itself too), 0 where missing
    best = own.argmax(axis=1)
    held = own.max(axis=1)
    top = codes[np.arange(codes.shape[0]), best]
    m = present.sum(axis=1)
    return np.where((m > 0) & (2 * held > m), top, -1).astype(np.int16)


def multi_point(codes: np.ndarray, q: int) -> tuple[Estimate, Estimate]:
    """Pooled pairwise agreement and Fleiss' κ of a code table (point estimates, their n)."""
    n_raters = codes.shape[1]
    codes = codes[(codes >= 0).any(axis=1)]
    if codes.shape[0] == 0:
        none = "no unit labelled by at least two raters"
        return Estimate.undefined(none, 0), Estimate.undefined("no units labelled by all raters")
    pats = label_patterns(codes.astype(np.int64), q, np.arange(q, dtype=float))
    total = pats.total()
    b = pats.layout.blocks
    n_pairable = int(total[b["pairable"]][0])
    n_complete = int(total[b["complete"]][0])
    pairs = float(total[b["all_pairs"]][0])
    pooled = (
        Estimate(float(total[b["agree_pairs"]][0]) / pairs, None, None, n_pairable)
        if pairs > 0
        else Estimate.undefined("no unit labelled by at least two raters", n_pairable)
    )
    counts = pats.category_totals(pats.block("complete") > 0)
    value = float(fleiss_from_sums(total[None], b, counts[None], n_raters)[0])
    if np.isnan(value):
        why = (
            "no units labelled by all raters"
            if n_complete == 0
            else "n < 2"
            if n_complete < 2
            else "only one category used (chance agreement is 1)"
        )
        return pooled, Estimate.undefined(why, n_complete)
    return pooled, Estimate(value, None, None, n_complete)
