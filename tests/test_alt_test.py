"""The alt-test (Calderon, Reichart & Dror 2025) against a re-implementation written here from
the paper's definition: loops over dictionaries, scipy's one-sided ``ttest_1samp`` and
statsmodels' ``multipletests(method="fdr_by")``; and the planner against a brute-force loop."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pytest
from scipy import stats

from medjudge.judging.stats.alt_test import (
    AltTestResult,
    advantage_indicators,
    alt_test,
    benjamini_yekutieli,
)
from medjudge.judging.stats.alt_test_plan import label_model, plan_alt_test

from .support.reference import Reference

Label = Hashable | None
PHYSICIANS = ["dr1", "dr2", "dr3", "dr4"]


def fdr_by(p_values: Sequence[Sequence[float]], q: float) -> list[list[bool]]:
    """statsmodels' Benjamini–Yekutieli rejections of each list of p-values (run in the
    reference process, by name)."""
    from statsmodels.stats.multitest import multipletests

    return [
        [bool(x) for x in multipletests(list(p), alpha=q, method="fdr_by")[0]] for p in p_values
    ]


def _sim(x: Any, others: list[Any], scoring: str) -> float:
    """The paper's alignment of one label with the others' labels."""
    if scoring == "accuracy":
        return float(sum(x == o for o in others)) / len(others)
    return -math.sqrt(float(sum((x - o) ** 2 for o in others)) / len(others))


def reference_tests(
    humans: dict[str, dict[int, Any]],
    judge: dict[int, Any],
    scoring: str = "accuracy",
    epsilon: float = 0.2,
    min_raters: int = 2,
    min_items: int = 30,
) -> dict[str, tuple[int, float, float, float]]:
    """Per physician left out: (n items, ρ_f, ρ_h, one-sided p), physicians with enough items."""
    raters_of: dict[int, list[str]] = {}
    for h, labels in humans.items():
        for i in labels:
            raters_of.setdefault(i, []).append(h)
    out = {}
    for left_out, labels in humans.items():
        w_f, w_h = [], []
        for i, own in labels.items():
            if i not in judge or len(raters_of[i]) < min_raters:
                continue
            others = [humans[h][i] for h in raters_of[i] if h != left_out]
            s_f, s_h = _sim(judge[i], others, scoring), _sim(own, others, scoring)
            w_f.append(int(s_f >= s_h))
            w_h.append(int(s_h >= s_f))
        if len(w_f) < min_items:
            continue
        d = np.array(w_h) - np.array(w_f)
        if len(set(d.tolist())) == 1:  # SD 0: scipy's t is undefined; the documented rule
            p = 0.0 if d.mean() < epsilon else 1.0
        else:
            p = float(stats.ttest_1samp(d - epsilon, 0.0, alternative="less").pvalue)
        out[left_out] = (len(w_f), float(np.mean(w_f)), float(np.mean(w_h)), p)
    return out


def _labels(
    seed: int,
    n: int,
    accuracy: float = 0.75,
    judge: str = "noisy",
    missing: float = 0.1,
    judge_accuracy: float = 0.8,
) -> tuple[dict[str, dict[int, Any]], dict[int, Any]]:
    """Physicians who give the true label (one of A, B, C) with chance ``accuracy``, else a
    random one, some labels missing; and a judge: ``noisy`` (``judge_accuracy``), ``majority`` (the
    physicians' majority, ties to the first) or ``random``."""
    rnd = random.Random(seed)
    humans: dict[str, dict[int, Any]] = {h: {} for h in PHYSICIANS}
    judged: dict[int, Any] = {}
    for i in range(n):
        truth = rnd.choice("ABC")
        for h in PHYSICIANS:
            if rnd.random() >= missing:
                humans[h][i] = truth if rnd.random() < accuracy else rnd.choice("ABC")
        given = [humans[h][i] for h in PHYSICIANS if i in humans[h]]
        if judge == "majority":
            judged[i] = max(given, key=given.count) if given else truth
        elif judge == "random":
            judged[i] = rnd.choice("ABC")
        else:
            judged[i] = truth if rnd.random() < judge_accuracy else rnd.choice("ABC")
    return humans, judged


def _rows(humans: dict[str, dict[int, Any]], judge: dict[int, Any], n: int) -> list[list[Label]]:
    return [[humans[h].get(i) for h in PHYSICIANS] + [judge.get(i)] for i in range(n)]


def _check_against_reference(
    reference: Reference, result: AltTestResult, ref: dict[str, tuple[int, float, float, float]]
) -> None:
    tested = [p for p in result.physicians if p.excluded is None]
    assert [p.name for p in tested] == list(ref)
    for p in tested:
        n, rho_f, rho_h, p_value = ref[p.name]
        assert p.n_items == n
        assert p.rho_f == pytest.approx(rho_f) and p.rho_h == pytest.approx(rho_h)
        assert p.p == pytest.approx(p_value, rel=1e-9, abs=1e-300)
    rejected = reference(fdr_by, [[ref[h][3] for h in ref]], result.q)[0]
    assert [p.rejected for p in tested] == rejected
    assert result.winning_rate == pytest.approx(sum(rejected) / len(ref))
    assert result.advantage_probability == pytest.approx(np.mean([v[1] for v in ref.values()]))
    assert result.passed is (sum(rejected) / len(ref) >= 0.5)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("epsilon", [0.1, 0.2])
def test_matches_the_paper_definition(reference: Reference, seed: int, epsilon: float) -> None:
    humans, judge = _labels(seed, n=70, accuracy=0.7, judge_accuracy=0.55)
    result = alt_test(_rows(humans, judge, 70), [*PHYSICIANS, "gpt"], "gpt", epsilon=epsilon)
    _check_against_reference(reference, result, reference_tests(humans, judge, epsilon=epsilon))


def test_a_majority_copying_judge_passes_and_a_random_one_fails(reference: Reference) -> None:
    for kind, passes in (("majority", True), ("random", False)):
        humans, judge = _labels(5, n=100, judge=kind)
        result = alt_test(_rows(humans, judge, 100), [*PHYSICIANS, "gpt"], "gpt")
        _check_against_reference(reference, result, reference_tests(humans, judge))
        assert result.passed is passes, kind
        assert result.winning_rate == (1.0 if passes else 0.0)


def test_min_raters_and_min_items(reference: Reference) -> None:
    """An item counts when at least ``min_raters`` physicians labelled it; a physician with
    fewer than ``min_items`` usable items is excluded, named, and left out of ω."""
    humans, judge = _labels(7, n=60, missing=0.45)
    rows = _rows(humans, judge, 60)
    for min_raters, min_items in ((2, 30), (3, 20), (4, 2)):
        ref = reference_tests(humans, judge, min_raters=min_raters, min_items=min_items)
        result = alt_test(
            rows, [*PHYSICIANS, "gpt"], "gpt", min_raters=min_raters, min_items=min_items
        )
        if len(ref) >= 3:
            _check_against_reference(reference, result, ref)
        else:
            assert result.passed is None and result.reason is not None
            assert result.reason.startswith(f"only {len(ref)} physician")


def test_not_computed_reasons() -> None:
    humans, judge = _labels(8, n=40, missing=0.0)
    rows = _rows(humans, judge, 40)
    two = alt_test([r[2:] for r in rows], ["dr3", "dr4", "gpt"], "gpt")
    assert two.passed is None and two.winning_rate is None and two.advantage_probability is None
    assert two.reason == "needs at least 3 physicians besides the judge (got 2)"
    # dr1 labels only 10 items: excluded with its reason; three remain, so the test runs
    thinned = [
        [None if i >= 10 and k == 0 else x for k, x in enumerate(r)] for i, r in enumerate(rows)
    ]
    result = alt_test(thinned, [*PHYSICIANS, "gpt"], "gpt")
    dr1 = result.physicians[0]
    assert dr1.excluded == "10 usable items, fewer than the minimum of 30"
    assert (dr1.p, dr1.rejected, dr1.rho_f) == (None, None, None)
    assert result.reason is None and result.winning_rate is not None
    assert result.winning_rate * 3 == sum(bool(p.rejected) for p in result.physicians)
    # and dr2 too: two remain, not computed
    thinned = [
        [None if i >= 10 and k < 2 else x for k, x in enumerate(r)] for i, r in enumerate(rows)
    ]
    result = alt_test(thinned, [*PHYSICIANS, "gpt"], "gpt")
    assert result.passed is None and result.winning_rate is None
    assert result.reason == "only 2 physicians with at least 30 usable items (the alt-test needs 3)"
    assert [p.excluded is not None for p in result.physicians] == [True, True, False, False]
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["passed"] is None and data["physicians"][0]["excluded"].startswith("10 usable")


def test_bad_parameters_name_what_is_wrong() -> None:
    rows: list[list[Label]] = [["A", "A", "A", "A"]] * 30
    names = ["a", "b", "c", "gpt"]
    for kwargs, words in (
        ({"judge": "llm"}, "judge 'llm' is not one of the raters (a, b, c, gpt)"),
        ({"epsilon": 1.5}, "epsilon 1.5"),
        ({"q": 0.0}, "q 0.0"),
        ({"min_items": 1}, "min_items 1"),
        ({"min_raters": 1}, "min_raters 1"),
        ({"scoring": "f1"}, "scoring 'f1'"),
    ):
        args: dict[str, Any] = {"judge": "gpt", **kwargs}
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            alt_test(rows, names, **args)
    with pytest.raises(ValueError, match="neg_rmse scoring needs numbers"):
        alt_test(rows, names, "gpt", scoring="neg_rmse")
    with pytest.raises(ValueError, match="each row needs 4 labels"):
        alt_test([["A", "A"]], names, "gpt")


def test_sd_zero_sets_p_by_the_sign() -> None:
    """Every d_i equal: a judge always agreeing with unanimous physicians ties on every item
    (d = 0 < ε: p = 0, rejected); one always disagreeing loses everywhere (d = 1: p = 1)."""
    names = ["a", "b", "c", "gpt"]
    same = alt_test([["A", "A", "A", "A"]] * 30, names, "gpt")
    assert same.passed is True and same.winning_rate == 1.0
    assert all(p.p == 0.0 and p.t is None and p.rejected for p in same.physicians)
    assert same.physicians[0].note == "every d_i equal (SD 0): p = 0 since mean(d) < ε"
    wrong = alt_test([["A", "A", "A", "B"]] * 30, names, "gpt")
    assert wrong.passed is False and all(p.p == 1.0 for p in wrong.physicians)
    assert wrong.advantage_probability == 0.0


def test_neg_rmse_scores_by_root_mean_square(reference: Reference) -> None:
    """Others 0 and 4: a judge saying 2 has RMSE 2 and the physician saying 0 has RMSE 2.83
    (by mean absolute difference both would be 2, a tie): the judge alone is better aligned."""
    humans = np.array([[[0.0, 0.0, 4.0]]])  # one item; physicians j=0 (left out), 1, 2
    usable, w_f, w_h = advantage_indicators(humans, np.array([[2.0]]), "neg_rmse", 2)
    assert usable[0, 0].tolist() == [True, True, True]
    assert (w_f[0, 0, 0], w_h[0, 0, 0]) == (True, False)
    # a 1–5 rating against the reference, with the labels also given as ordered text
    rnd = random.Random(3)
    rated: dict[str, dict[int, Any]] = {h: {} for h in PHYSICIANS}
    judged: dict[int, Any] = {}
    for i in range(60):
        truth = rnd.randint(1, 5)
        for h in PHYSICIANS:
            rated[h][i] = min(5, max(1, truth + rnd.choice([-1, 0, 0, 1])))
        judged[i] = min(5, max(1, truth + rnd.choice([-1, 0, 1])))
    rows = _rows(rated, judged, 60)
    result = alt_test(rows, [*PHYSICIANS, "gpt"], "gpt", scoring="neg_rmse", epsilon=0.15)
    ref = reference_tests(rated, judged, scoring="neg_rmse", epsilon=0.15)
    _check_against_reference(reference, result, ref)
    words = ["poor", "fair", "ok", "good", "great"]
    as_text = [[None if x is None else words[int(str(x)) - 1] for x in r] for r in rows]
    text = alt_test(
        as_text, [*PHYSICIANS, "gpt"], "gpt", scoring="neg_rmse", epsilon=0.15, order=words
    )
    assert text.to_dict() == result.to_dict()


def test_by_matches_statsmodels(reference: Reference) -> None:
    rng = np.random.default_rng(4)
    lists = [rng.uniform(0, 0.05, size=int(rng.integers(1, 9))).tolist() for _ in range(40)]
    lists.append([0.01, 0.01, 0.01])  # ties
    assert [benjamini_yekutieli(p, 0.05) for p in lists] == reference(fdr_by, lists, 0.05)
    assert benjamini_yekutieli([], 0.05) == []


def test_label_model_gives_the_agreements_asked() -> None:
    shares = [0.5, 0.3, 0.2]
    r, g = label_model(shares, 0.7, 0.65)
    rng = np.random.default_rng(0)
    n = 200_000
    truth = rng.choice(3, size=n, p=shares)

    def rater(accuracy: float) -> np.ndarray[Any, np.dtype[np.int64]]:
        return np.where(rng.random(n) < accuracy, truth, rng.choice(3, size=n, p=shares))

    a, b, f = rater(r), rater(r), rater(g)
    assert np.mean(a == b) == pytest.approx(0.7, abs=0.005)
    assert np.mean(f == a) == pytest.approx(0.65, abs=0.005)
    with pytest.raises(ValueError, match="between chance"):
        label_model(shares, 0.2, 0.5)
    with pytest.raises(ValueError, match="judge agreement 0.95: between chance"):
        label_model(shares, 0.7, 0.95)


def _brute_force_pass_rate(
    reference: Reference, n: int, sims: int, r: float, g: float, seed: int
) -> float:
    """Simulated studies by loops (three physicians, three equally likely labels, everyone
    labels every item), tested by the re-implementation above."""
    rnd = random.Random(seed)
    names = PHYSICIANS[:3]
    p_lists = []
    for _ in range(sims):
        humans: dict[str, dict[int, Any]] = {h: {} for h in names}
        judge: dict[int, Any] = {}
        for i in range(n):
            truth = rnd.randrange(3)
            for h in names:
                humans[h][i] = truth if rnd.random() < r else rnd.randrange(3)
            judge[i] = truth if rnd.random() < g else rnd.randrange(3)
        p_lists.append([v[3] for v in reference_tests(humans, judge, min_items=2).values()])
    rejected = reference(fdr_by, p_lists, 0.05)
    return float(np.mean([sum(x) / 3 >= 0.5 for x in rejected]))


def test_planner_matches_a_brute_force_loop(reference: Reference) -> None:
    plan = plan_alt_test(
        physician_agreement=0.6,
        judge_agreement=0.6,
        n_categories=3,
        item_counts=[30, 60],
        n_sims=6000,
        seed=11,
    )
    for point in plan.points:
        brute = _brute_force_pass_rate(
            reference, point.n_items, 1500, plan.physician_accuracy, plan.judge_accuracy, seed=5
        )
        assert 0.2 < brute < 0.9, "a point where the pass rate is informative"
        assert point.pass_probability == pytest.approx(brute, abs=0.05), point
    again = plan_alt_test(
        physician_agreement=0.6, judge_agreement=0.6, n_categories=3, item_counts=[30, 60],
        n_sims=6000, seed=11,
    )  # fmt: skip
    assert again == plan
    data = json.loads(json.dumps(plan.to_dict(), allow_nan=False))
    assert [p["n_items"] for p in data["points"]] == [30, 60]


def test_planner_parameters() -> None:
    with pytest.raises(ValueError, match="one of them"):
        plan_alt_test(physician_agreement=0.6, judge_agreement=0.6)
    with pytest.raises(ValueError, match="at least 3 physicians"):
        plan_alt_test(physician_agreement=0.6, judge_agreement=0.6, n_categories=3, n_physicians=2)
    shares = plan_alt_test(
        physician_agreement=0.8, judge_agreement=0.8, label_shares=[3, 1], item_counts=[30],
        n_sims=50, scoring="neg_rmse",
    )  # fmt: skip
    assert shares.label_shares == (0.75, 0.25)
    assert shares.items_needed(power=1.01) is None
