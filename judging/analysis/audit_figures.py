"""One figure three ways for the judge audit (:mod:`.audit`): the judge alone, the
physicians alone and corrected by PPI++ (:mod:`medjudge.judging.stats.ppi`), with the
further reference labels the corrected figure needs for a target half-width.

Each takes the quantity per unit as three vectors: the reference label's on the labelled
(sampled) units, the judge's on the same units, and the judge's on the other units.
:func:`split_difference_three_ways` takes two such triples: two groups of different units
(two models' answers), whose difference is of independent estimates (not paired).
"""

from __future__ import annotations

import numpy as np

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import Figure, Share, record
from medjudge.judging.analysis.records_audit import AuditMeans, AuditShares, CorrectedFigure
from medjudge.judging.stats.estimates import MIN_STABLE_N, Estimate, z_value
from medjudge.judging.stats.ppi import Floats, labels_needed, labels_needed_split, ppi_mean

Vectors = tuple[Floats, Floats, Floats]
"""One group's reference values (labelled units), judge's values on them, judge's on the rest."""


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


def split_difference_three_ways(
    a: Vectors, b: Vectors, *, confidence: float, target: float
) -> AuditMeans:
    """Group A's mean minus group B's over different units, three ways: each way's two means
    are independent, so the difference has the standard error ``√(se_A² + se_B²)`` and a
    normal interval (judge only, physicians only: ``sd/√n`` per group; corrected: the two
    PPI++ standard errors), and labels needed split between the groups
    (:func:`~medjudge.judging.stats.ppi.labels_needed_split`)."""
    z = z_value(confidence)

    def diff(xa: Floats, xb: Floats, empty: str) -> Estimate:
        if xa.size < 2 or xb.size < 2:
            return Estimate.undefined(f"{empty} (each side needs n >= 2)", int(xa.size + xb.size))
        value = float(xa.mean() - xb.mean())
        se = float(np.sqrt(xa.var(ddof=1) / xa.size + xb.var(ddof=1) / xb.size))
        n = int(xa.size + xb.size)
        return Estimate(value, value - z * se, value + z * se, n, method="normal_se", se=se)

    judge = diff(np.concatenate(a[1:]), np.concatenate(b[1:]), "too few units")
    physicians = diff(a[0], b[0], "too few reference labels")
    n_lab, rest = int(a[0].size + b[0].size), int(a[2].size + b[2].size)
    base = {"n_labelled": n_lab, "n_judge_only": rest, "lam": None}
    if a[0].size == 0 or b[0].size == 0:
        est = Estimate.undefined("a side without a reference label yet", n_lab + rest)
        return AuditMeans(
            judge_only=record(Figure, judge.to_dict()),
            physicians_only=record(Figure, physicians.to_dict()),
            corrected=record(
                CorrectedFigure,
                {
                    **est.to_dict(),
                    **base,
                    "labels_needed": None,
                    "halfwidth_then": None,
                    "labels_needed_note": "no reference label yet on one side",
                },
            ),
        )
    ma, mb = (ppi_mean(*v, confidence=confidence) for v in (a, b))
    value, se = ma.value - mb.value, float(np.hypot(ma.se, mb.se))
    est = Estimate(
        value, value - z * se, value + z * se, n_lab + rest, method="ppi_plus_plus", se=se
    )
    need = labels_needed_split(a, b, target, confidence=confidence)
    note = None
    if need.more is None:
        note = f"not reachable (all {need.units:,} labelled: ±{need.halfwidth_then:.3f})"
    return AuditMeans(
        judge_only=record(Figure, judge.to_dict()),
        physicians_only=record(Figure, physicians.to_dict()),
        corrected=record(
            CorrectedFigure,
            {
                **est.to_dict(),
                **base,
                "unstable": min(a[0].size, b[0].size) < MIN_STABLE_N,
                "labels_needed": need.more,
                "halfwidth_then": need.halfwidth_then,
                "labels_needed_note": note,
            },
        ),
    )
