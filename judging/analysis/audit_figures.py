"""One figure three ways for the judge audit (:mod:`.audit`): the judge alone, the
physicians alone and corrected by PPI++ (:mod:`medjudge.judging.stats.ppi_bounded`), with the
further reference labels the corrected figure needs for a target half-width.

Each takes the quantity per unit as three vectors: the reference label's on the labelled
(sampled) units, the judge's on the same units, and the judge's on the other units.
:func:`split_difference_three_ways` takes two such triples: two groups of different units
(two models' answers), whose difference is of independent estimates (not paired).
"""

from __future__ import annotations

import numpy as np

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import Figure, figure_fields
from medjudge.judging.analysis.records_audit import AuditMeans, AuditShares, CorrectedFigure
from medjudge.judging.stats.estimates import MIN_STABLE_N, Estimate, clean_float, z_value
from medjudge.judging.stats.ppi import Floats, LabelsNeeded
from medjudge.judging.stats.ppi_bounded import (
    MIN_CORRECTED_N,
    BoundedMean,
    bounded_difference,
    bounded_ppi_mean,
    planned_halfwidths,
    planned_labels,
)

Vectors = tuple[Floats, Floats, Floats]
"""One group's reference values (labelled units), judge's values on them, judge's on the rest."""

Bounds = tuple[float | None, float | None]
"""The range a quantity can take (a share: 0 to 1); an end that is None is taken from the
values seen (the smallest or largest reference or judge value), so the range is never wider
than the quantity's own."""

SHARE: Bounds = (0.0, 1.0)


def too_few(n: int) -> str:
    """The reason a corrected figure from ``n`` reference labels is not given."""
    return f"too few physician labels ({n}; a corrected figure needs {MIN_CORRECTED_N})"


def resolve_bounds(bounds: Bounds, *vectors: Floats) -> tuple[float, float]:
    """``bounds`` with each missing end taken from the values seen; a range of one value is
    widened by 1 on the open side(s) (a scale whose every label is the same)."""
    seen = np.concatenate(vectors) if vectors else np.zeros(0)
    low = bounds[0] if bounds[0] is not None else (float(seen.min()) if seen.size else 0.0)
    high = bounds[1] if bounds[1] is not None else (float(seen.max()) if seen.size else 1.0)
    if high <= low:
        if bounds[1] is None:
            high = low + 1.0
        else:
            low = high - 1.0
    return low, high


def shares_three_ways(
    y: Floats, yhat_labelled: Floats, yhat_rest: Floats, *, confidence: float, target: float
) -> AuditShares:
    """A share three ways: judge only, physicians only (Wilson intervals) and corrected."""
    every = np.concatenate([yhat_labelled, yhat_rest])
    return AuditShares(
        judge_only=share(int(every.sum()), every.size, confidence),
        physicians_only=share(int(y.sum()), y.size, confidence, empty="no reference label"),
        corrected=corrected(y, yhat_labelled, yhat_rest, confidence, target, SHARE),
    )


def means_three_ways(
    y: Floats,
    yhat_labelled: Floats,
    yhat_rest: Floats,
    *,
    confidence: float,
    target: float,
    bounds: Bounds = (None, None),
) -> AuditMeans:
    """A mean three ways: judge only, physicians only (normal intervals) and corrected (on
    the quantity's range ``bounds``)."""
    every = np.concatenate([yhat_labelled, yhat_rest])
    return AuditMeans(
        judge_only=Figure.of(normal_mean(every, confidence, "no units")),
        physicians_only=Figure.of(normal_mean(y, confidence, "no reference label")),
        corrected=corrected(y, yhat_labelled, yhat_rest, confidence, target, bounds),
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


def _figure(
    est: Estimate,
    *,
    n_labelled: int,
    n_judge_only: int,
    lam: float | None,
    need: LabelsNeeded | None,
    note: str | None,
    unstable: bool | None = None,
) -> CorrectedFigure:
    """A corrected figure's record: ``est`` with the labels it rests on and those ``need``
    asks for (``unstable``: in place of the estimate's own)."""
    fields = figure_fields(est)
    if unstable is not None:
        fields["unstable"] = unstable
    return CorrectedFigure(
        **fields,
        n_labelled=n_labelled,
        n_judge_only=n_judge_only,
        lam=clean_float(lam),
        labels_needed=None if need is None or need.more is None else int(need.more),
        halfwidth_then=None if need is None else clean_float(need.halfwidth_then),
        labels_needed_note=note,
    )


def _unreachable(need: LabelsNeeded) -> str:
    return f"not reachable (all {need.units:,} labelled: ±{need.halfwidth_then:.3f})"


def _withheld(
    n: int, rest: int, reason: str, need: LabelsNeeded | None, note: str | None = None
) -> CorrectedFigure:
    """A corrected figure not given (``reason``), with the labels a plan asks for (``note``:
    why there is no plan)."""
    est = Estimate.undefined(reason, n + rest)
    note = note or ("no reference label yet" if need is None else None)
    if need is not None and need.more is None:
        note = _unreachable(need)
    return _figure(est, n_labelled=n, n_judge_only=rest, lam=None, need=need, note=note)


def _at_least_minimum(need: LabelsNeeded, n: int) -> LabelsNeeded:
    """A plan made below the minimum asks for at least the labels that reach it; one that
    finds the target out of reach from so few labels (whose variance the prior dominates)
    asks for those, to plan again from them."""
    short = MIN_CORRECTED_N - n
    if need.more is not None and need.more >= short:
        return need
    return LabelsNeeded(short, need.halfwidth_now, need.halfwidth_then, need.units)


def corrected(
    y: Floats,
    yhat_labelled: Floats,
    yhat_rest: Floats,
    confidence: float,
    target: float,
    bounds: Bounds = SHARE,
) -> CorrectedFigure:
    """The corrected figure (:func:`~medjudge.judging.stats.ppi_bounded.bounded_ppi_mean`), or the
    reason it is withheld, with the labels a calibrated plan asks for
    (:func:`~medjudge.judging.stats.ppi_bounded.planned_labels`)."""
    n, rest = int(y.size), int(yhat_rest.size)
    if n == 0:
        return _withheld(n, rest, "no sampled unit has a reference label yet", None)
    low, high = resolve_bounds(bounds, y, yhat_labelled, yhat_rest)
    need = planned_labels(
        y, yhat_labelled, yhat_rest, target, low=low, high=high, confidence=confidence
    )
    if n < MIN_CORRECTED_N:
        return _withheld(n, rest, too_few(n), _at_least_minimum(need, n))
    m = bounded_ppi_mean(y, yhat_labelled, yhat_rest, low=low, high=high, confidence=confidence)
    est = Estimate(m.value, m.ci_low, m.ci_high, n + rest, method="ppi_plus_plus", se=m.se)
    return _figure(
        est,
        n_labelled=n,
        n_judge_only=rest,
        lam=m.lam,
        need=need,
        note=_unreachable(need) if need.more is None else None,
        unstable=n < MIN_STABLE_N,
    )


def _split_plan(
    a: Vectors, b: Vectors, ma: BoundedMean, mb: BoundedMean, target: float, confidence: float
) -> LabelsNeeded:
    """Further labels for the difference of two independent corrected means: drawn from the
    units not yet labelled, in proportion to the units each side has left, with each side's
    planned half-width (:func:`~medjudge.judging.stats.ppi_bounded.planned_halfwidths`) combined as
    the MOVER interval combines them (√(h_A² + h_B²))."""
    ha, hb = (
        planned_halfwidths(*v, low=m.low, high=m.high, confidence=confidence)
        for v, m in ((a, ma), (b, mb))
    )
    rest_a, rest_b = ha.size - 1, hb.size - 1
    rest = rest_a + rest_b
    units = rest + int(a[0].size + b[0].size)
    now = float(np.hypot(ma.halfwidth, mb.halfwidth))
    tol = target * (1.0 + 1e-12)
    if now <= tol:
        return LabelsNeeded(0, now, now, units)
    k = np.arange(rest + 1)
    ka = np.rint(k * (rest_a / rest)).astype(int) if rest else np.zeros(1, dtype=int)
    ka = np.clip(np.maximum(ka, k - rest_b), 0, rest_a)
    h = np.sqrt(ha[ka] ** 2 + hb[k - ka] ** 2)
    reached = np.flatnonzero(h[1:] <= tol)
    if reached.size == 0:
        return LabelsNeeded(None, now, float(h[-1]), units)
    first = int(reached[0]) + 1
    return LabelsNeeded(first, now, float(h[first]), units)


def split_difference_three_ways(
    a: Vectors, b: Vectors, *, confidence: float, target: float, bounds: Bounds = (None, None)
) -> AuditMeans:
    """Group A's mean minus group B's over different units, three ways: each way's two means
    are independent, so the difference has the standard error ``√(se_A² + se_B²)`` and a
    normal interval (judge only, physicians only: ``sd/√n`` per group); corrected: Newcombe's
    MOVER interval from the two corrected intervals
    (:func:`~medjudge.judging.stats.ppi_bounded.bounded_difference`), with labels needed split between
    the groups."""
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

    def three(c: CorrectedFigure) -> AuditMeans:
        return AuditMeans(
            judge_only=Figure.of(judge),
            physicians_only=Figure.of(physicians),
            corrected=c,
        )

    if a[0].size == 0 or b[0].size == 0:
        reason = "a side without a reference label yet"
        return three(_withheld(n_lab, rest, reason, None, "no reference label yet on one side"))
    low, high = resolve_bounds(bounds, *a, *b)
    ma, mb = (bounded_ppi_mean(*v, low=low, high=high, confidence=confidence) for v in (a, b))
    need = _split_plan(a, b, ma, mb, target, confidence)
    fewest = int(min(a[0].size, b[0].size))
    if fewest < MIN_CORRECTED_N:
        short = 2 * MIN_CORRECTED_N - n_lab
        if need.more is None or need.more < short:
            need = LabelsNeeded(short, need.halfwidth_now, need.halfwidth_then, need.units)
        return three(_withheld(n_lab, rest, too_few(fewest) + " on each side", need))
    value, lo, hi = bounded_difference(ma, mb, low=low - high, high=high - low)
    se = float(np.hypot(ma.se, mb.se))
    est = Estimate(value, lo, hi, n_lab + rest, method="ppi_plus_plus", se=se)
    return three(
        _figure(
            est,
            n_labelled=n_lab,
            n_judge_only=rest,
            lam=None,
            need=need,
            note=_unreachable(need) if need.more is None else None,
            unstable=fewest < MIN_STABLE_N,
        )
    )
