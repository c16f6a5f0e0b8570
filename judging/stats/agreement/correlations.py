"""Spearman's ρ and Pearson's r of two raters with BCa bootstrap intervals over units.

Labels on a rating scale take a few values with many ties, far from the bivariate normal
data Fisher's z interval assumes: on three categories it covered the population Pearson r
82–85 % of the time at n = 30–400 (``tests/test_interval_coverage.py``). The bootstrap needs
no such assumption. A unit is its pair of categories, so the resampled units are counts per
cell of the confusion table (:class:`~.tables.PairTable`), and both figures are computed from
those counts: Pearson from the category scores, Spearman from the mid-ranks each resample's
marginals give (as :func:`scipy.stats.spearmanr` ranks ties).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from medjudge.judging.stats.agreement.tables import PairTable
from medjudge.judging.stats.bootstrap import Jackknife, leave_one_out

NO_SPREAD = "no variation (correlation undefined)"


def _pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weighted Pearson r per row: ``w (b, C)`` units per cell, ``x``/``y`` ``(b, C)`` or
    ``(C,)`` values of each cell."""
    n = w.sum(axis=1)
    with np.errstate(all="ignore"):
        mx = (w * x).sum(axis=1) / n
        my = (w * y).sum(axis=1) / n
        dx = x - mx[:, None]
        dy = y - my[:, None]
        cov = (w * dx * dy).sum(axis=1)
        var = (w * dx**2).sum(axis=1) * (w * dy**2).sum(axis=1)
        r = cov / np.sqrt(var)
    return np.where((n >= 2) & (var > 1e-12), np.clip(r, -1.0, 1.0), np.nan)


@dataclass(frozen=True)
class Correlations:
    """Spearman and Pearson of resampled cell counts: a :class:`~.bootstrap.Resampled`."""

    table: PairTable
    scores: np.ndarray

    def _midranks(self, counts: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Each cell's mid-rank on one side ``(b, C)``: units below its category + (n + 1)/2."""
        t = self.table
        cells = np.arange(len(t.count))
        side = sparse.csr_array((np.ones(len(cells)), (cells, codes)), shape=(len(cells), t.k))
        per_cat = np.asarray((side.T @ counts.T).T, dtype=float)  # (b, k)
        below = np.cumsum(per_cat, axis=1) - per_cat
        ranks: np.ndarray = below + (per_cat + 1.0) / 2.0
        return np.asarray(ranks[:, codes])

    def values(self, counts: np.ndarray) -> np.ndarray:
        """``(2, b)``: Spearman ρ, Pearson r."""
        t = self.table
        rho = _pearson(counts, self._midranks(counts, t.row), self._midranks(counts, t.col))
        r = _pearson(counts, self.scores[t.row], self.scores[t.col])
        return np.vstack([rho, r])

    def jackknife(self) -> Jackknife:
        """Leave one unit of each cell out."""
        return leave_one_out(self.values, self.table.count, 2)
