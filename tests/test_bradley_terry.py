"""The Bradley–Terry ranking (ties as half wins) against independent implementations: choix's
maximum-likelihood pairwise fit and statsmodels' logit on the design matrix, to 1e-6; its
undefined cases; its BCa intervals over questions; Kendall's τ-b against scipy's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from medjudge.judging.stats import bradley_terry as bt
from medjudge.judging.stats.bradley_terry import Comparison

choix = pytest.importorskip("choix", reason="choix (test extra) is the reference fit")
sm = pytest.importorskip("statsmodels.api", reason="statsmodels (test extra) is the reference")


def simulate(
    strengths: dict[str, float], questions: int, seed: int, ties: float = 0.2
) -> list[Comparison]:
    """Every pair of candidates on every question, outcomes drawn from the model (a share
    of ties), the first candidate alternating."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(questions):
        for n, (a, b) in enumerate(itertools.combinations(sorted(strengths), 2)):
            first, second = (a, b) if (q + n) % 2 else (b, a)
            if rng.random() < ties:
                score = 0.5
            else:
                p = 1 / (1 + np.exp(strengths[second] - strengths[first]))
                score = 1.0 if rng.random() < p else 0.0
            out.append(Comparison(f"q{q}", first, second, score))
    return out


TRUE = {"alpaca": 0.0, "biomistral": -0.6, "gpt-4o": 0.9, "llama-405b": 0.5}


def _choix(comparisons: list[Comparison], names: list[str]) -> np.ndarray:
    """choix's ML fit: a tie as one win each way, a win counted twice (the same likelihood)."""
    index = {n: k for k, n in enumerate(names)}
    data = []
    for c in comparisons:
        i, j = index[c.first], index[c.second]
        if c.score == 0.5:
            data += [(i, j), (j, i)]
        else:
            data += [(i, j)] * 2 if c.score == 1.0 else [(j, i)] * 2
    params = np.asarray(choix.opt_pairwise(len(names), data, alpha=0.0, tol=1e-12), dtype=float)
    centred: np.ndarray = params - params.mean()
    return centred


def _logit(comparisons: list[Comparison], names: list[str]) -> np.ndarray:
    """A binomial GLM (logit link) on the design matrix: +1 for the first, −1 for the second,
    the first candidate's column dropped (its strength is 0), the score as the response."""
    index = {n: k for k, n in enumerate(names)}
    x = np.zeros((len(comparisons), len(names)))
    y = np.array([c.score for c in comparisons])
    for r, c in enumerate(comparisons):
        x[r, index[c.first]] += 1.0
        x[r, index[c.second]] -= 1.0
    fitted = sm.GLM(y, x[:, 1:], family=sm.families.Binomial()).fit(tol=1e-14)
    theta = np.concatenate([[0.0], np.asarray(fitted.params, dtype=float)])
    centred: np.ndarray = theta - theta.mean()
    return centred


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_strengths_equal_choix_and_a_logit_on_the_design_matrix(seed: int) -> None:
    comparisons = simulate(TRUE, 20, seed)
    names = sorted(TRUE)
    ranking = bt.rank(comparisons, candidates=names, n_boot=200, seed=seed)
    got = {s.candidate: s.strength.value for s in ranking.strengths}
    ours = np.array([got[n] for n in names], dtype=float)
    np.testing.assert_allclose(ours, _choix(comparisons, names), atol=1e-6)
    np.testing.assert_allclose(ours, _logit(comparisons, names), atol=1e-6)
    assert ranking.reason is None and ranking.questions == 20
    assert ranking.comparisons == len(comparisons) == 20 * 6


def test_the_ranking_orders_by_strength_and_counts_wins() -> None:
    comparisons = simulate(TRUE, 60, 7)
    ranking = bt.rank(comparisons, n_boot=300, seed=1)
    values = [s.strength.value for s in ranking.strengths]
    assert values == sorted(values, reverse=True)  # type: ignore[type-var]
    assert [s.rank for s in ranking.strengths] == [1, 2, 3, 4]
    assert ranking.strengths[0].candidate == "gpt-4o"  # 60 questions: the truth shows
    assert ranking.strengths[-1].candidate == "biomistral"
    for s in ranking.strengths:
        mine = [c for c in comparisons if s.candidate in (c.first, c.second)]
        wins = sum(c.score if c.first == s.candidate else 1 - c.score for c in mine)
        assert s.comparisons == len(mine) and s.wins == pytest.approx(wins)
    assert sum(s.strength.value or 0 for s in ranking.strengths) == pytest.approx(0, abs=1e-9)


def test_intervals_are_bca_over_questions_and_hold_the_estimate() -> None:
    comparisons = simulate(TRUE, 40, 11)
    ranking = bt.rank(comparisons, n_boot=500, seed=3)
    for s in ranking.strengths:
        e = s.strength
        assert e.method == "bca_bootstrap" and e.n == 40
        assert e.ci_low is not None and e.ci_high is not None
        assert e.ci_low < (e.value or 0) < e.ci_high
    again = bt.rank(comparisons, n_boot=500, seed=3)
    assert again == ranking  # seeded: the same resamples, the same intervals
    wider = bt.rank(comparisons, n_boot=500, seed=3, confidence=0.99)
    for a, b in zip(ranking.strengths, wider.strengths, strict=True):
        assert (b.strength.ci_low or 0) <= (a.strength.ci_low or 0)
        assert (b.strength.ci_high or 0) >= (a.strength.ci_high or 0)


def test_the_interval_resamples_questions_not_verdicts() -> None:
    """A question's verdicts move together: the same verdicts spread over 4× the questions
    (each on its own question) give narrower intervals than when grouped 4 to a question."""
    base = simulate(TRUE, 40, 5)
    grouped = [Comparison(f"g{int(c.question[1:]) // 4}", c.first, c.second, c.score) for c in base]
    a = bt.rank(base, n_boot=400, seed=2)
    b = bt.rank(grouped, n_boot=400, seed=2)
    assert [s.strength.value for s in a.strengths] == pytest.approx(
        [s.strength.value for s in b.strengths]
    )
    assert b.questions == 10 and a.questions == 40


def test_one_candidate_that_always_wins_is_undefined_with_the_reason() -> None:
    comparisons = [
        Comparison("q1", "a", "b", 1.0),
        Comparison("q2", "a", "c", 1.0),
        Comparison("q3", "b", "c", 0.5),
        Comparison("q4", "c", "a", 0.0),
    ]
    ranking = bt.rank(comparisons, n_boot=50)
    assert ranking.reason == bt.NOT_LINKED
    assert all(s.strength.value is None and s.rank is None for s in ranking.strengths)
    assert [s.candidate for s in ranking.strengths] == ["a", "b", "c"]
    # a tie with the others links it both ways: defined again
    linked = [*comparisons, Comparison("q5", "b", "a", 0.5)]
    assert bt.rank(linked, n_boot=50).reason is None


def test_fewer_than_two_candidates_or_no_verdicts() -> None:
    assert bt.rank([], n_boot=10).reason == bt.TOO_FEW
    with pytest.raises(ValueError, match="itself"):
        Comparison("q", "a", "a", 1.0)
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        Comparison("q", "a", "b", 0.7)


def test_kendall_tau_between_two_rankings_equals_scipy() -> None:
    physicians = simulate(TRUE, 30, 21)
    flipped = dict(TRUE, alpaca=1.5)  # a judge that likes one model more
    judge = simulate(flipped, 30, 22)
    tau = bt.rank_correlation(physicians, judge, n_boot=300, seed=4)
    names = sorted(TRUE)
    a = bt.rank(physicians, candidates=names, n_boot=10)
    b = bt.rank(judge, candidates=names, n_boot=10)
    sa = {s.candidate: s.strength.value for s in a.strengths}
    sb = {s.candidate: s.strength.value for s in b.strengths}
    expected = stats.kendalltau([sa[n] for n in names], [sb[n] for n in names]).statistic
    assert tau.value == pytest.approx(expected, abs=1e-12)
    assert tau.n == 30 and tau.method in ("bca_bootstrap", "none")
    same = bt.rank_correlation(physicians, physicians, n_boot=100, seed=4)
    assert same.value == pytest.approx(1.0)


def test_kendall_tau_needs_three_candidates_and_shared_questions() -> None:
    two = [Comparison("q1", "a", "b", 1.0), Comparison("q2", "b", "a", 1.0)]
    assert bt.rank_correlation(two, two, n_boot=10).value is None
    other = [Comparison("z1", "a", "b", 1.0)]
    three = simulate({"a": 0, "b": 1, "c": 2}, 5, 1)
    got = bt.rank_correlation(
        three,
        [*other, *[Comparison("z" + c.question, c.first, c.second, c.score) for c in three]],
        n_boot=10,
    )
    assert got.value is None and "no question" in (got.reason or "")


def test_equal_strengths_share_a_rank() -> None:
    ties = [
        Comparison(f"q{q}", a, b, 0.5)
        for q in range(3)
        for a, b in [("a", "b"), ("b", "c"), ("a", "c")]
    ]
    ranking = bt.rank(ties, n_boot=20)
    assert [s.rank for s in ranking.strengths] == [1, 1, 1]
    assert [s.candidate for s in ranking.strengths] == ["a", "b", "c"]
    one_better = [*ties, Comparison("q9", "c", "a", 1.0), Comparison("q9", "c", "b", 1.0)]
    assert [s.rank for s in bt.rank(one_better, n_boot=20).strengths] == [1, 2, 2]
