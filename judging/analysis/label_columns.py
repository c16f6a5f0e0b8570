"""One criterion's current labels as columns of small integer codes, one column per rater.

:class:`~medjudge.judging.stats.agreement.core.LabelMatrix` (a dict per unit) suits the live app,
which changes one label at a time; a report reads every label of a study once and then asks
for whole columns. Here each rater has one ``int32`` array over the criterion's units (code 0:
no label, code k: the k-th distinct value), so 100,000 units cost 400 KB a rater instead of a
dict each, and columns, majorities and disagreement counts are computed array-wise.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

from medjudge.judging.analysis.value_codes import code_of

Codes = npt.NDArray[np.int32]


class CriterionLabels:
    """Labels of one criterion keyed by ``(unit, rater)``, over a fixed set of units.

    Args:
        units: the criterion's unit ids, increasing (labels on other units are refused).
    """

    def __init__(self, units: Sequence[int]) -> None:
        self._units = units
        self._ids = np.asarray(units, dtype=np.int64)
        self._codes: dict[str, Codes] = {}
        self._counts: dict[str, int] = {}
        self._values: list[Hashable] = []
        self._code_of: dict[Hashable, int] = {}

    def set(self, unit: int, rater: str, value: Hashable | None) -> None:
        """Record one rater's label on one unit (``None``: no label).

        Raises:
            KeyError: ``unit`` is not one of this criterion's units.
        """
        i = bisect_left(self._units, unit)
        if i == len(self._units) or self._units[i] != unit:
            raise KeyError(unit)
        column = self._codes.get(rater)
        if column is None:
            column = self._codes[rater] = np.zeros(len(self._units), dtype=np.int32)
        had = column[i] != 0
        if value is None:
            if had:
                column[i] = 0
                self._counts[rater] -= 1
            return
        column[i] = code_of(self._values, self._code_of, value) + 1  # 0: no label
        if not had:
            self._counts[rater] = self._counts.get(rater, 0) + 1

    def raters(self) -> list[str]:
        """Raters with at least one label, in first-seen order."""
        return [r for r, n in self._counts.items() if n > 0]

    def count(self, rater: str) -> int:
        """How many units carry a label of ``rater``."""
        return self._counts.get(rater, 0)

    def __len__(self) -> int:
        return sum(self._counts.values())

    def _any(self) -> npt.NDArray[np.bool_]:
        labelled = np.zeros(len(self._ids), dtype=bool)
        for column in self._codes.values():
            labelled |= column != 0
        return labelled

    def units(self) -> array[int]:
        """Units with at least one label, in id order (a compact array)."""
        return _ids(self._ids[self._any()])

    def get(self, unit: int, rater: str) -> Hashable | None:
        """One label, or ``None``."""
        column = self._codes.get(rater)
        i = bisect_left(self._units, unit)
        if column is None or i == len(self._units) or self._units[i] != unit:
            return None
        code = int(column[i])
        return self._values[code - 1] if code else None

    def _codes_at(self, rater: str, units: Sequence[int]) -> Codes:
        """The rater's codes over ``units`` (0 where none, or where a unit is not this
        criterion's)."""
        column = self._codes.get(rater)
        wanted = np.asarray(units, dtype=np.int64)
        if column is None or not len(self._ids):
            return np.zeros(len(wanted), dtype=np.int32)
        pos = np.searchsorted(self._ids, wanted).clip(0, len(self._ids) - 1)
        return np.where(self._ids[pos] == wanted, column[pos], 0).astype(np.int32)

    def _decode(self, codes: Codes) -> list[Hashable | None]:
        lookup = np.empty(len(self._values) + 1, dtype=object)
        for k, value in enumerate(self._values, start=1):
            lookup[k] = value
        decoded: list[Hashable | None] = lookup[codes].tolist()
        return decoded

    def column(self, rater: str, units: Sequence[int]) -> list[Hashable | None]:
        """One rater's labels over ``units`` (``None`` = no label)."""
        return self._decode(self._codes_at(rater, units))

    def majority(self, raters: Sequence[str], units: Sequence[int]) -> list[Hashable | None]:
        """Per unit, the value held by more than half of ``raters`` who labelled it (``None``
        without such a value), over ``units``."""
        columns = [self._codes_at(r, units) for r in raters]
        n = len(units)
        present = np.zeros(n, dtype=np.int32)
        for c in columns:
            present += c != 0
        best = np.zeros(n, dtype=np.int32)
        best_count = np.zeros(n, dtype=np.int32)
        for code in range(1, len(self._values) + 1):
            count = np.zeros(n, dtype=np.int32)
            for c in columns:
                count += c == code
            more = count > best_count
            best[more] = code
            best_count[more] = count[more]
        return self._decode(np.where(best_count * 2 > present, best, 0).astype(np.int32))

    def disagreeing(self) -> array[int]:
        """Units where two or more raters' labels differ, in id order."""
        if not self._codes:
            return array("q")
        top = np.zeros(len(self._ids), dtype=np.int32)
        low = np.full(len(self._ids), np.iinfo(np.int32).max, dtype=np.int32)
        for column in self._codes.values():
            top = np.maximum(top, column)
            low = np.minimum(low, np.where(column == 0, low, column))
        return _ids(self._ids[(top > 0) & (low < top)])


def _ids(values: npt.NDArray[np.int64]) -> array[int]:
    """Unit ids as a compact array (8 bytes each; a list of ints takes 36)."""
    out = array("q")
    out.frombytes(values.astype(np.int64).tobytes())
    return out
