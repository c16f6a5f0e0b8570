"""Krippendorff's α and the pairwise figures of several raters, from label patterns, for the
bootstrap.

α = 1 − D_o / D_e (as ``krippendorff.alpha`` computes it), without the categories ×
categories coincidence matrix:

* nominal: D_o is a sum over units (their pairs of different labels) and
  D_e = (N² − Σ_c n_c²) / (N − 1) needs only the label counts n_c;
* interval: D_o and D_e = 2 (N Σ s² − (Σ s)²) / (N − 1) are sums over units of the (centred)
  scores and their squares;
* ordinal: the distance of categories c < k is (T_k − T_c)², T_c = Σ_{g<c} n_g + n_c / 2 the
  mid-rank, so D_o is a sum over the pairs of categories that meet in a unit (sparse) and
  D_e = 2 N Σ_c n_c (T_c − N/2)² / (N − 1).

N and n_c count the labels on units with at least two. The nominal and interval jackknife is
closed-form (a unit's labels move a few n_c); the ordinal one moves every mid-rank above a
left-out label, so it is computed in chunks of patterns: time patterns × (categories + pairs of
categories), memory bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import sparse

from medjudge.judging.stats.agreement.patterns import LabelPatterns
from medjudge.judging.stats.bootstrap import Jackknife

_EPS = 1e-12
_CELLS_PER_CHUNK = 500_000  # 4 MB per temporary array


@dataclass(frozen=True)
class PairFigures:
    """α, pooled and per-unit pairwise agreement and Randolph's κ of label patterns: a
    :class:`~.bootstrap.Resampled` with ``m = 4`` figures, in that order."""

    pats: LabelPatterns
    scale: str

    @cached_property
    def _labels(self) -> Any:
        """``(P, q)`` sparse label counts of the patterns with at least two labels."""
        p = self.pats
        keep = p.block("pairable")[p.pat] > 0
        shape = (len(p.freq), p.q)
        return sparse.csr_array((p.count[keep], (p.pat[keep], p.cat[keep])), shape=shape)

    @cached_property
    def _pairs(self) -> tuple[Any, np.ndarray, np.ndarray]:
        """Ordinal α's coincidences: ``(P, K)`` sparse ``Σ 1/(m−1)`` over each pattern's rater
        pairs with categories ``lo < hi``, and ``lo``, ``hi`` of the K category pairs."""
        p = self.pats
        q = max(p.q, 1)
        s, t = np.triu_indices(p.n_raters, 1)
        a, b = p.codes[:, s], p.codes[:, t]
        ok = (a >= 0) & (b >= 0) & (a != b)
        rows = np.nonzero(ok)[0]
        keys = np.minimum(a, b)[ok] * q + np.maximum(a, b)[ok]
        unique, column = np.unique(keys, return_inverse=True)
        m = p.block("labels")[rows]
        shape = (len(p.freq), len(unique))
        matrix = sparse.csr_array((1.0 / (m - 1.0), (rows, column.reshape(-1))), shape=shape)
        return matrix, unique // q, unique % q

    def _alpha(
        self,
        s: np.ndarray,
        square: np.ndarray | None = None,
        nv: np.ndarray | None = None,
        pv: np.ndarray | None = None,
    ) -> np.ndarray:
        """α from scalar sums ``s (b, d)``; nominal also needs ``square`` (Σ_c n_c², ``(b,)``),
        ordinal ``nv`` (label counts, ``(b, q)``) and ``pv`` (coincidences of the category
        pairs, ``(b, K)``)."""
        b = self.pats.layout.blocks
        n = s[:, b["labels"]][:, 0]
        with np.errstate(all="ignore"):
            if self.scale == "interval":
                observed = s[:, b["do_interval"]][:, 0]
                s1, s2 = s[:, b["score_sum"]][:, 0], s[:, b["score_sq"]][:, 0]
                expected = 2.0 * (n * s2 - s1**2) / (n - 1.0)
            elif self.scale == "ordinal":
                assert nv is not None and pv is not None
                _, lo, hi = self._pairs
                mid = np.cumsum(nv, axis=1) - nv / 2.0
                observed = 2.0 * (pv * (mid[:, hi] - mid[:, lo]) ** 2).sum(axis=1)
                spread = (nv * (mid - n[:, None] / 2.0) ** 2).sum(axis=1)
                expected = 2.0 * n * spread / (n - 1.0)
            else:
                assert square is not None
                observed = s[:, b["do_nominal"]][:, 0]
                expected = (n**2 - square) / (n - 1.0)
            ok = (n >= 2) & (expected > _EPS)
            return np.where(ok, 1.0 - observed / expected, np.nan)

    def _figures(self, s: np.ndarray, alpha: np.ndarray) -> np.ndarray:
        """The four figures ``(4, b)`` from scalar sums and α."""
        b, q = self.pats.layout.blocks, self.pats.q
        pairable = s[:, b["pairable"]][:, 0]
        all_pairs = s[:, b["all_pairs"]][:, 0]
        with np.errstate(all="ignore"):
            per_unit = np.where(pairable > 0, s[:, b["p_unit"]][:, 0] / pairable, np.nan)
            pooled = np.where(all_pairs > 0, s[:, b["agree_pairs"]][:, 0] / all_pairs, np.nan)
            randolph = (per_unit - 1.0 / q) / (1.0 - 1.0 / q) if q >= 2 else np.nan * per_unit
        if not q:
            alpha = np.full(len(s), np.nan)
        return np.vstack([alpha, pooled, per_unit, randolph])

    def values(self, counts: np.ndarray) -> np.ndarray:
        """See :meth:`~.bootstrap.Resampled.values`."""
        s = counts @ self.pats.rows
        if self.scale == "interval":
            return self._figures(s, self._alpha(s))
        width = self.pats.q + (self._pairs[0].shape[1] if self.scale == "ordinal" else 0)
        step = max(1, _CELLS_PER_CHUNK // max(width, 1))
        alpha = []
        for start in range(0, len(counts), step):
            c = counts[start : start + step]
            part = s[start : start + step]
            nv = np.asarray(c @ self._labels, dtype=float)
            if self.scale == "ordinal":
                pv = np.asarray(c @ self._pairs[0], dtype=float)
                alpha.append(self._alpha(part, nv=nv, pv=pv))
            else:
                alpha.append(self._alpha(part, square=(nv**2).sum(axis=1)))
        return self._figures(s, np.concatenate(alpha) if alpha else np.zeros(0))

    def jackknife(self) -> Jackknife:
        """See :meth:`~.bootstrap.Resampled.jackknife`."""
        p = self.pats
        s = p.total()[None, :] - p.rows
        if self.scale == "interval":
            alpha = self._alpha(s)
        elif self.scale == "ordinal":
            alpha = self._ordinal_jackknife(s)
        else:
            alpha = self._nominal_jackknife(s)
        return Jackknife.dense(self._figures(s, alpha), p.freq)

    def _nominal_jackknife(self, s: np.ndarray) -> np.ndarray:
        """Nominal α leaving out one unit of each pattern: Σ n_c² moves by the unit's labels."""
        p = self.pats
        labels = self._labels.tocoo()
        rows, cols, v = labels.row, labels.col, labels.data
        nv = p.freq @ self._labels
        square = float((nv**2).sum())
        drop = np.bincount(rows, v * (2.0 * nv[cols] - v), minlength=len(p.freq))
        return self._alpha(s, square=square - drop)

    def _ordinal_jackknife(self, s: np.ndarray) -> np.ndarray:
        """Ordinal α leaving out one unit of each pattern, in chunks of patterns."""
        p = self.pats
        pairs = self._pairs[0]
        nv_total = p.freq @ self._labels
        pv_total = p.freq @ pairs
        step = max(1, _CELLS_PER_CHUNK // max(p.q + pairs.shape[1], 1))
        out = []
        for start in range(0, len(p.freq), step):
            idx = np.arange(start, min(start + step, len(p.freq)))
            nv = nv_total[None, :] - self._labels[idx].toarray()
            pv = pv_total[None, :] - pairs[idx].toarray()
            out.append(self._alpha(s[idx], nv=nv, pv=pv))
        return np.concatenate(out) if out else np.zeros(0)
