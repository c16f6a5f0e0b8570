"""PPI++ mean estimation (``judging.stats.ppi``): equal to ppi_py on the same vectors, the
paired difference, labels needed, and the corrected interval's coverage in simulated studies."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from medjudge.judging.stats.ppi import (
    labels_needed,
    power_tuned_lambda,
    ppi_mean,
    ppi_mean_difference,
    ppi_means,
    projected_halfwidths,
)

from .support.reference import Reference
from .support.reference_calls import ppi_mean as ppi_py_mean


def _binary(rng: np.random.Generator, n: int, big_n: int, p: float, right: float) -> Any:
    """Reference labels and a judge that is right with probability ``right``."""
    y = (rng.random(n) < p).astype(float)
    flip = rng.random(n) > right
    yhat = np.where(flip, 1 - y, y)
    truth_u = (rng.random(big_n) < p).astype(float)
    unl = np.where(rng.random(big_n) > right, 1 - truth_u, truth_u)
    return y, yhat, unl


def _continuous(
    rng: np.random.Generator, n: int, big_n: int, slope: float, noise: float = 0.7
) -> Any:
    y = rng.normal(2.0, 1.0, n)
    yhat = slope * y + rng.normal(0.5, noise, n)
    unl = slope * rng.normal(2.0, 1.0, big_n) + rng.normal(0.5, noise, big_n)
    return y, yhat, unl


CASES = [
    ("binary, good judge", lambda r: _binary(r, 80, 220, 0.45, 0.85)),
    ("binary, weak judge", lambda r: _binary(r, 40, 500, 0.3, 0.6)),
    ("binary, contrary judge (λ clipped to 0)", lambda r: _binary(r, 60, 240, 0.5, 0.2)),
    ("binary, small sample", lambda r: _binary(r, 12, 50, 0.6, 0.9)),
    ("continuous", lambda r: _continuous(r, 100, 900, 1.0)),
    ("continuous, shrunk judge (λ clipped to 1)", lambda r: _continuous(r, 200, 300, 0.4, 0.1)),
    ("continuous, more labels than not", lambda r: _continuous(r, 300, 100, 0.9)),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("name", "make"), CASES, ids=[c[0] for c in CASES])
def test_equals_ppi_py(reference: Reference, name: str, make: Any, seed: int) -> None:
    y, yhat, unl = make(np.random.default_rng(seed))
    ours = ppi_mean(y, yhat, unl, confidence=0.95)
    point, low, high = reference(ppi_py_mean, y, yhat, unl, alpha=0.05, lam=None)
    assert ours.value == pytest.approx(point, abs=1e-6)
    assert ours.ci_low == pytest.approx(low, abs=1e-6)
    assert ours.ci_high == pytest.approx(high, abs=1e-6)
    assert 0.0 <= ours.lam <= 1.0
    assert (ours.n, ours.n_unlabelled) == (len(y), len(unl))


def test_the_clipped_cases_are_clipped() -> None:
    """The named cases really reach both ends of λ's range (so the test above covers them)."""
    contrary = _binary(np.random.default_rng(0), 60, 240, 0.5, 0.2)
    shrunk = _continuous(np.random.default_rng(0), 200, 300, 0.4, 0.1)
    assert power_tuned_lambda(*contrary)[0] == 0.0
    assert power_tuned_lambda(*shrunk)[0] == 1.0
    # λ = 0 is the physicians-only mean with its normal interval (ddof 0, as ppi_py's classical)
    y = contrary[0]
    est = ppi_mean(*contrary)
    assert est.value == pytest.approx(y.mean())
    assert est.se == pytest.approx(y.std() / np.sqrt(len(y)))


def test_a_fixed_lambda_equals_ppi_py(reference: Reference) -> None:
    y, yhat, unl = _binary(np.random.default_rng(5), 50, 150, 0.4, 0.8)
    for lam in (0.0, 0.5, 1.0):
        ours = ppi_mean(y, yhat, unl, lam=lam)
        _, low, high = reference(ppi_py_mean, y, yhat, unl, alpha=0.05, lam=lam)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((low, high), abs=1e-9)


def test_a_batch_of_studies_equals_each_study_alone() -> None:
    rng = np.random.default_rng(3)
    studies = [_binary(rng, 30, 70, 0.5, 0.75) for _ in range(5)]
    batch = ppi_means(*(np.stack([s[k] for s in studies]) for k in range(3)))
    for i, s in enumerate(studies):
        one = ppi_mean(*s)
        assert batch.value[i] == pytest.approx(one.value)
        assert batch.ci_low[i] == pytest.approx(one.ci_low)
        assert batch.lam[i] == pytest.approx(one.lam)


def test_edge_cases_are_decided_not_nan() -> None:
    y = np.array([1.0, 0.0, 1.0, 1.0])
    # every unit labelled: the labelled mean
    est = ppi_mean(y, y, np.array([]))
    assert est.lam == 0.0 and est.value == pytest.approx(0.75)
    # a judge that always says the same: λ = 0, the labelled mean, not NaN
    est = ppi_mean(y, np.ones(4), np.ones(10))
    assert est.lam == 0.0 and est.value == pytest.approx(0.75)
    with pytest.raises(ValueError, match="no labelled unit"):
        ppi_mean(np.array([]), np.array([]), np.ones(3))
    with pytest.raises(ValueError, match="differ in shape"):
        ppi_mean(y, y[:3], np.ones(3))


def test_paired_difference_is_ppi_on_the_differences(reference: Reference) -> None:
    rng = np.random.default_rng(11)
    n, big_n = 70, 230
    # source A wins, B wins, or neither (a tie): the outcomes on a unit are dependent
    outcome = rng.choice(3, size=n + big_n, p=[0.5, 0.3, 0.2])
    judge = np.where(rng.random(n + big_n) < 0.8, outcome, rng.choice(3, size=n + big_n))
    a_ref, b_ref = (outcome == 0).astype(float), (outcome == 1).astype(float)
    a_j, b_j = (judge == 0).astype(float), (judge == 1).astype(float)
    ours = ppi_mean_difference(a_ref[:n], a_j[:n], a_j[n:], b_ref[:n], b_j[:n], b_j[n:])
    d, dh, du = a_ref[:n] - b_ref[:n], a_j[:n] - b_j[:n], a_j[n:] - b_j[n:]
    point, low, high = reference(ppi_py_mean, d, dh, du, alpha=0.05)
    assert ours.value == pytest.approx(point, abs=1e-6)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((low, high), abs=1e-6)
    # and it is the difference of the two corrected means when both use the same λ
    a = ppi_mean(a_ref[:n], a_j[:n], a_j[n:], lam=ours.lam)
    b = ppi_mean(b_ref[:n], b_j[:n], b_j[n:], lam=ours.lam)
    assert ours.value == pytest.approx(a.value - b.value)


def test_labels_needed_reaches_the_target_and_no_fewer_do() -> None:
    y, yhat, unl = _binary(np.random.default_rng(2), 80, 920, 0.45, 0.8)
    now = ppi_mean(y, yhat, unl)
    h = projected_halfwidths(y, yhat, unl)
    assert h[0] == pytest.approx(now.halfwidth)  # the projection starts where the data are
    assert labels_needed(y, yhat, unl, now.halfwidth).more == 0
    need = labels_needed(y, yhat, unl, 0.04)
    assert need.more is not None and need.more > 0
    assert need.halfwidth_then <= 0.04 < h[need.more - 1]
    assert need.halfwidth_now == pytest.approx(now.halfwidth)
    # unreachable within the units there are: None, with the best the study could do
    impossible = labels_needed(y, yhat, unl, 0.001)
    assert impossible.more is None and impossible.units == 1000
    assert impossible.halfwidth_then == pytest.approx(h[-1])
    with pytest.raises(ValueError, match="positive"):
        labels_needed(y, yhat, unl, 0.0)


def test_labels_needed_predicts_the_width_that_more_labels_give() -> None:
    """Label the number it asks for (more random units), and the new interval is near the
    target (the variances are estimates: within 15%)."""
    rng = np.random.default_rng(8)
    y_all = (rng.random(3000) < 0.4).astype(float)
    judge = np.where(rng.random(3000) < 0.85, y_all, 1 - y_all)
    n = 100
    need = labels_needed(y_all[:n], judge[:n], judge[n:], 0.03)
    assert need.more is not None
    m = n + need.more
    after = ppi_mean(y_all[:m], judge[:m], judge[m:])
    assert after.halfwidth == pytest.approx(0.03, rel=0.15)


@pytest.mark.slow
def test_coverage_of_the_corrected_interval_with_a_biased_judge() -> None:
    """5,000 simulated studies of 300 units, a true win share of 0.45, a judge that says "win"
    for 85% of true wins and 30% of the rest (judge-only mean 0.5475: biased by +0.0975),
    physicians' labels on 80 random units: the corrected 95% interval covers the truth 93–97%
    of the time; the judge-only normal interval far less."""
    rng = np.random.default_rng(20231104)
    studies, units, n, truth = 5000, 300, 80, 0.45
    y = (rng.random((studies, units)) < truth).astype(float)
    says_win = np.where(y == 1, 0.85, 0.30)
    yhat = (rng.random((studies, units)) < says_win).astype(float)
    # the units are exchangeable: the first n of each study are a uniform random sample
    corrected = ppi_means(y[:, :n], yhat[:, :n], yhat[:, n:])
    covered = (corrected.ci_low <= truth) & (truth <= corrected.ci_high)
    judge_mean = yhat.mean(axis=1)
    judge_se = yhat.std(axis=1, ddof=1) / np.sqrt(units)
    judge_covered = np.abs(judge_mean - truth) <= 1.959964 * judge_se
    assert 0.93 <= covered.mean() <= 0.97, covered.mean()
    assert judge_covered.mean() < 0.80, judge_covered.mean()
    # and the correction pays: narrower than the physicians' 80 labels alone
    alone = 1.959964 * y[:, :n].std(axis=1) / np.sqrt(n)
    assert np.median(corrected.ci_high - corrected.value) < np.median(alone)
