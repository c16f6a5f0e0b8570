"""One figure per category (Fleiss' κ of each category, F1 of each label), bootstrapped in
time and memory linear in the units, whatever the number of categories.

Such a figure is a function of a few sums over all units (*globals*, e.g. the number of units
every rater labelled) and a few sums of its own category (*channels*, e.g. how often the
category was given). A unit pattern adds to the channels of the few categories it holds only,
so they are kept as sparse entries ``(pattern, category, values)``: a resample's sums are one
sparse product, and the exact jackknife needs no ``patterns × categories`` array, because
leaving out a unit of a pattern that does not hold a category moves that category's figure
only through the globals (one value per distinct row of globals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import sparse

from medjudge.judging.stats.bootstrap import Jackknife

CategoryFigure = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``figure(globals (..., g), channels (..., h)) -> values (...)``, elementwise over the
leading axes (NaN where undefined)."""

_CELLS_PER_CHUNK = 500_000  # 4 MB per temporary array


@dataclass(frozen=True)
class CategorySums:
    """Unit patterns as the sums of a per-category figure.

    Attributes:
        freq: ``(P,)`` units per pattern.
        globals: ``(P, g)`` each pattern's global sums.
        pat: ``(E,)`` the pattern of each entry (pairs ``(pat, cat)`` are unique).
        cat: ``(E,)`` the category of each entry.
        values: ``(E, h)`` the pattern's channel sums for that category.
        q: Number of categories.
    """

    freq: np.ndarray
    globals: np.ndarray
    pat: np.ndarray
    cat: np.ndarray
    values: np.ndarray
    q: int

    @cached_property
    def channels(self) -> list[Any]:
        """Each channel as a sparse ``(P, q)`` matrix."""
        shape = (len(self.freq), self.q)
        return [
            sparse.csr_array((self.values[:, h], (self.pat, self.cat)), shape=shape)
            for h in range(self.values.shape[1])
        ]

    def resampled(self, counts: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Globals ``(b, 1, g)`` and channels ``(b, q, h)`` summed over resamples given as
        counts ``(b, P)``, a few resamples at a time (about half a million cells)."""
        h = self.values.shape[1]
        step = max(1, _CELLS_PER_CHUNK // max(self.q * max(h, 1), 1))
        for start in range(0, counts.shape[0], step):
            c = counts[start : start + step]
            parts = [np.asarray(c @ m, dtype=float) for m in self.channels]  # h × (b, q)
            chan = np.stack(parts, axis=2) if parts else np.zeros((len(c), self.q, 0))
            yield (c @ self.globals)[:, None, :], chan

    def channel_totals(self) -> np.ndarray:
        """``(q, h)`` channel sums over all units."""
        w = self.freq[self.pat]
        h = self.values.shape[1]
        cols = [np.bincount(self.cat, w * self.values[:, i], minlength=self.q) for i in range(h)]
        return np.column_stack(cols) if cols else np.zeros((self.q, 0))


@dataclass(frozen=True)
class CategoryFigures:
    """A figure of each category as a :class:`~.bootstrap.Resampled` (``m = q``)."""

    sums: CategorySums
    figure: CategoryFigure

    def values(self, counts: np.ndarray) -> np.ndarray:
        """The figure of every category, ``(q, b)``, for resample counts ``(b, P)``."""
        parts = [
            np.asarray(self.figure(g, c), dtype=float).T for g, c in self.sums.resampled(counts)
        ]
        return np.concatenate(parts, axis=1) if parts else np.zeros((self.sums.q, 0))

    def jackknife(self) -> Jackknife:
        """Leave-one-unit-out values: exact for each entry's pattern and category; for the
        patterns without the category, one value per distinct row of globals."""
        s = self.sums
        glob_total = s.freq @ s.globals
        chan_total = s.channel_totals()
        w_entry = s.freq[s.pat]
        # Patterns holding the category: both their globals and the channels move.
        held = self.figure(glob_total - s.globals[s.pat], chan_total[s.cat] - s.values)
        # The others, grouped by their row of globals: only the globals move.
        if s.globals.shape[1]:
            rows, group = np.unique(s.globals, axis=0, return_inverse=True)
            group = group.reshape(-1)
        else:
            rows, group = np.zeros((1, 0)), np.zeros(len(s.freq), dtype=np.int64)
        units = np.bincount(group, s.freq, minlength=len(rows))  # (U,)
        held_units = np.zeros((len(rows), s.q))
        np.add.at(held_units, (group[s.pat], s.cat), w_entry)
        others = self.figure((glob_total - rows)[:, None, :], chan_total[None, :, :])  # (U, q)
        cats = np.broadcast_to(np.arange(s.q), others.shape)
        return Jackknife(
            np.concatenate([s.cat, cats.reshape(-1)]),
            np.concatenate([np.asarray(held, dtype=float), np.asarray(others).reshape(-1)]),
            np.concatenate([w_entry, (units[:, None] - held_units).reshape(-1)]),
        )
