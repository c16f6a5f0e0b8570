"""One figure three ways for the judge audit (:mod:`.audit`): the judge alone, the
physicians alone and corrected by PPI++ (:mod:`medjudge.judging.stats.ppi`), with the
further reference labels the corrected figure needs for a target half-width.

Each takes the quantity per unit as three vectors: the reference label's on the labelled
(sampled) units, the judge's on the same units, and the judge's on the other units.
"""

from __future__ import annotations

import numpy as np

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import Figure, Share, record
from medjudge.judging.analysis.records_audit import AuditMeans, AuditShares, CorrectedFigure
from medjudge.judging.stats.estimates import MIN_STABLE_N, Estimate, z_value
from medjudge.judging.stats.ppi import Floats, labels_needed, ppi_mean


def shares_three_ways(
    y: Floats, yhat_labelled: Floats, yhat_rest: Floats, *, confidence: float, target: float
) -> AuditShares:
    """A share three ways: judge only, physicians only (Wilson intervals) and corrected."""
    every = np.concatenate([yhat_labelled, yhat_rest])
    return AuditShares(
        judge_only=record(Share, share(int(every.sum()), every.size, confidence)),
        physicians_only=record(
            Share, share(int(y.sum()), y.size, confidence, empty="no reference label")
        ),
        corrected=corrected(y, yhat_labelled, yhat_rest, confidence, target),
    )


def means_three_ways(
    y: Floats, yhat_labelled: Floats, yhat_rest: Floats, *, confidence: float, target: float
) -> AuditMeans:
    """A mean three ways: judge only, physicians only (normal intervals) and corrected."""
    every = np.concatenate([yhat_labelled, yhat_rest])
    return AuditMeans(
        judge_only=record(Figure, normal_mean(every, confidence, "no units").to_dict()),
        physicians_only=record(Figure, normal_mean(y, confidence, "no reference label").to_dict()),
        corrected=corrected(y, yhat_labelled, yhat_rest, confidence, target),
    )


def normal_mean(x: Floats, confidence: float, empty: str) -> Estimate:
    """A mean with the normal interval ``± z·sd/√n`` (sd with ddof 1)."""
    if x.size == 0:
        return Estimate.undefined(empty, 0)
    mean = float(x.mean())
    if x.size < 2:
        return Estimate(mean, None, None, 1, reason="confidence interval needs n >= 2")
    se = float(x.std(ddof=1)) / np.sqrt(x.size)
    z = z_value(confidence)
    return Estimate(mean, mean - z * se, mean + z * se, int(x.size), method="normal_se", se=se)


def corrected(
    y: Floats, yhat_labelled: Floats, yhat_rest: Floats, confidence: float, target: float
) -> CorrectedFigure:
    n, rest = int(y.size), int(yhat_rest.size)
    empty = {
        "n_labelled": n,
        "n_judge_only": rest,
        "lam": None,
        "labels_needed": None,
        "halfwidth_then": None,
    }
    if n == 0:
        est = Estimate.undefined("no sampled unit has a reference label yet", n + rest)
        return record(
            CorrectedFigure,
            {**est.to_dict(), **empty, "labels_needed_note": "no reference label yet"},
        )
    m = ppi_mean(y, yhat_labelled, yhat_rest, confidence=confidence)
    est = Estimate(m.value, m.ci_low, m.ci_high, n + rest, method="ppi_plus_plus", se=m.se)
    need = labels_needed(y, yhat_labelled, yhat_rest, target, confidence=confidence)
    note = None
    if need.more is None:
        note = f"not reachable (all {need.units:,} labelled: ±{need.halfwidth_then:.3f})"
    return record(
        CorrectedFigure,
        {
            **est.to_dict(),
            "unstable": n < MIN_STABLE_N,
            "n_labelled": n,
            "n_judge_only": rest,
            "lam": m.lam,
            "labels_needed": need.more,
            "halfwidth_then": need.halfwidth_then,
            "labels_needed_note": note,
        },
    )
