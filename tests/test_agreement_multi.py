"""Multi-rater agreement and LabelMatrix: checked against statsmodels, krippendorff, irrCAC."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations
from typing import Literal

import numpy as np
import pytest

from medjudge.judging.stats.agreement.core import (
    LabelMatrix,
    MultiRaterStats,
    multi_rater_stats,
    two_rater_stats,
)

from .support.checks import some
from .support.reference import Reference, needs
from .support.reference_calls import (
    category_counts,
    fleiss,
    irrcac,
    krippendorff_alpha,
    krippendorff_alphas,
)

TOL = 1e-9

# (seed, units, raters, categories, share of missing labels)
CASES = [
    (0, 5, 3, 2, 0.0),
    (1, 20, 3, 3, 0.1),
    (2, 60, 4, 4, 0.2),
    (3, 150, 5, 5, 0.15),
    (4, 300, 3, 3, 0.3),
    (5, 12, 4, 2, 0.25),
    (6, 90, 5, 4, 0.05),
]


def random_table(seed: int, n: int, r: int, k: int, missing: float) -> np.ndarray:
    """Units with a latent true category; each rater reports it with probability 0.6."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    labels = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r)))
    out = labels.astype(float)
    out[rng.random((n, r)) < missing] = np.nan
    return out


def as_rows(data: np.ndarray) -> list[list[int | None]]:
    return [[None if np.isnan(x) else int(x) for x in row] for row in data]


def assert_json_safe(obj: object) -> None:
    json.dumps(obj, allow_nan=False)


# ------------------------------------------------------------------ reference comparisons


@pytest.mark.parametrize(("seed", "n", "r", "k", "missing"), CASES)
def test_fleiss_matches_statsmodels_and_irrcac(
    seed: int, n: int, r: int, k: int, missing: float, reference: Reference
) -> None:
    data = random_table(seed, n, r, k, missing)
    s = multi_rater_stats(as_rows(data), n_boot=200)
    complete = data[~np.isnan(data).any(axis=1)].astype(int)
    assert s.n_units == n
    assert s.n_complete == len(complete)
    assert s.fleiss.value == pytest.approx(reference(fleiss, complete), abs=TOL)
    assert s.fleiss.n == len(complete)
    assert s.fleiss.method == "normal_se"
    needs("pandas", "irrCAC")
    ref = reference(irrcac, complete, sorted(set(complete.ravel().tolist())), "fleiss")
    assert s.fleiss.value == pytest.approx(ref["coefficient_value"], abs=TOL)
    assert s.fleiss.se == pytest.approx(ref["se"], abs=TOL)


@pytest.mark.parametrize(("seed", "n", "r", "k", "missing"), CASES)
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_krippendorff(
    seed: int,
    n: int,
    r: int,
    k: int,
    missing: float,
    level: Literal["nominal", "ordinal", "interval"],
    reference: Reference,
) -> None:
    data = random_table(seed, n, r, k, missing)
    s = multi_rater_stats(as_rows(data), scale=level, intervals=False)
    expected = reference(krippendorff_alpha, data.T, level)
    assert s.krippendorff_alpha.value == pytest.approx(expected, abs=TOL)
    assert s.krippendorff_alpha.n == int(((~np.isnan(data)).sum(axis=1) >= 2).sum())


def test_ordinal_alpha_with_named_ordered_categories(reference: Reference) -> None:
    scale = ["low", "mid", "high", "top"]
    data = random_table(8, 70, 4, 4, 0.2)
    rows = [[None if x is None else scale[x] for x in row] for row in as_rows(data)]
    s = multi_rater_stats(rows, categories=scale, scale="ordinal", intervals=False)
    expected = reference(krippendorff_alpha, data.T, "ordinal")
    assert s.krippendorff_alpha.value == pytest.approx(expected, abs=TOL)
    assert s.categories == scale


@pytest.mark.parametrize(("seed", "n", "r", "k", "missing"), CASES)
def test_pairwise_mean_and_majority_match_brute_force(
    seed: int, n: int, r: int, k: int, missing: float
) -> None:
    data = random_table(seed, n, r, k, missing)
    rows = as_rows(data)
    names = [f"dr{i}" for i in range(r)]
    s = multi_rater_stats(rows, names, intervals=False)

    percents = []
    agree_total = pairs_total = 0
    for i, j in combinations(range(r), 2):
        both = [(row[i], row[j]) for row in rows if row[i] is not None and row[j] is not None]
        pair = s.pairwise[(names[i], names[j])]
        assert pair.n == len(both)
        assert (
            pair.cohen
            == two_rater_stats(
                [row[i] for row in rows],
                [row[j] for row in rows],
                categories=s.categories,
                intervals=False,
            ).cohen
        )
        if both:
            percents.append(sum(x == y for x, y in both) / len(both))
            assert pair.percent.value == pytest.approx(percents[-1], abs=TOL)
            agree_total += sum(x == y for x, y in both)
            pairs_total += len(both)
    # Pooled: every rater pair weighted by the units it shares.
    assert s.mean_pairwise_percent.value == pytest.approx(agree_total / pairs_total, abs=TOL)
    # Per unit: the mean over units of the share of agreeing label pairs on the unit.
    shares = []
    for row in rows:
        present = [x for x in row if x is not None]
        if len(present) >= 2:
            pairs = list(combinations(present, 2))
            shares.append(sum(x == y for x, y in pairs) / len(pairs))
    assert s.per_unit_pairwise_percent.value == pytest.approx(np.mean(shares), abs=TOL)
    assert s.unanimous_share.value == pytest.approx(np.mean([v == 1 for v in shares]), abs=TOL)

    for i, name in enumerate(names):
        hits = total = 0
        for row in rows:
            others = [x for j, x in enumerate(row) if j != i and x is not None]
            if row[i] is None or len(others) < 2:
                continue
            label, count = Counter(others).most_common(1)[0]
            if count * 2 > len(others):
                total += 1
                hits += row[i] == label
        e = s.vs_majority[name]
        assert e.n == total
        if total:
            assert e.value == pytest.approx(hits / total, abs=TOL)
        else:
            assert e.value is None


# ------------------------------------------------------------------------- hand example


def test_hand_computed_example() -> None:
    # Three raters, four units, categories A/B:
    #   u1: A A A   counts (3,0)  P_i = (9 + 0 - 3) / (3*2) = 1
    #   u2: A A B   counts (2,1)  P_i = (4 + 1 - 3) / 6     = 1/3
    #   u3: B B B   counts (0,3)  P_i = 1
    #   u4: A B B   counts (1,2)  P_i = 1/3
    # Fleiss: P_bar = (1 + 1/3 + 1 + 1/3) / 4 = 2/3; p_A = p_B = 6/12 -> P_e = 1/2
    #         kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    # Krippendorff (nominal): coincidences o_ck = sum_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1)
    #         u1: o_AA = 3; u2: o_AA = 1, o_AB = o_BA = 1; u3: o_BB = 3; u4: o_AB = o_BA = 1,
    #         o_BB = 1  ->  o_AA = 4, o_AB = o_BA = 2, o_BB = 4; n_A = n_B = 6, n = 12
    #         alpha = 1 - (n - 1) * (o_AB + o_BA) / (2 n_A n_B) = 1 - 11 * 4 / 72 = 7/18
    # Pairwise percent: (r0,r1) 3/4, (r0,r2) 2/4, (r1,r2) 3/4 -> mean 2/3
    # Versus majority of the other two (they must agree):
    #   r0: u1 A vs A ok, u3 B vs B ok, u4 A vs B no          -> 2/3
    #   r1: u1 ok, u3 ok (u2, u4: the others split)           -> 2/2
    #   r2: u1 ok, u2 B vs A no, u3 ok                        -> 2/3
    rows = [["A", "A", "A"], ["A", "A", "B"], ["B", "B", "B"], ["A", "B", "B"]]
    s = multi_rater_stats(rows, ["r0", "r1", "r2"])
    assert s.fleiss.value == pytest.approx(1 / 3)
    assert s.krippendorff_alpha.value == pytest.approx(7 / 18)
    assert s.mean_pairwise_percent.value == pytest.approx(2 / 3)
    assert s.per_unit_pairwise_percent.value == pytest.approx(2 / 3)
    assert s.randolph_kappa.value == pytest.approx((2 / 3 - 1 / 2) / (1 - 1 / 2))
    assert s.unanimous_share.value == pytest.approx(0.5)
    # Fleiss per category (Fleiss 1971): κ_A = 1 - Σ n_iA (3 - n_iA) / (N m (m-1) p q)
    #   = 1 - (0 + 2 + 0 + 2) / (4 * 3 * 2 * .5 * .5) = 1 - 4/6 = 1/3 (two categories: both 1/3)
    assert s.fleiss_per_category["A"].value == pytest.approx(1 / 3)
    assert s.fleiss_per_category["B"].value == pytest.approx(1 / 3)
    assert s.vs_majority["r0"].value == pytest.approx(2 / 3)
    assert s.vs_majority["r1"].value == pytest.approx(1.0)
    assert s.vs_majority["r1"].n == 2
    assert s.vs_majority["r2"].value == pytest.approx(2 / 3)
    assert s.pairwise[("r0", "r2")].percent.value == pytest.approx(0.5)
    assert set(s.pairwise) == {("r0", "r1"), ("r0", "r2"), ("r1", "r2")}


# ---------------------------------------------------------------------------- edge cases


EDGE_TABLES: dict[str, list[list[int | str | None]]] = {
    "empty": [],
    "no labels": [[None, None, None], [None, None, None]],
    "one unit": [[1, 1, 2]],
    "one category": [["x", "x", "x"], ["x", "x", None], ["x", "x", "x"]],
    "perfect": [[1, 1, 1], [2, 2, 2], [3, 3, 3], [1, 1, 1]],
    "rater always none": [[1, 2, None], [2, 2, None], [1, 1, None], [3, 1, None]],
    "single rater": [[1], [2], [1]],
    "no complete unit": [[1, None, 2], [None, 1, 1], [2, 2, None]],
}


@pytest.mark.parametrize("name", list(EDGE_TABLES))
@pytest.mark.parametrize("intervals", [True, False])
def test_edge_cases_are_json_safe(name: str, intervals: bool) -> None:
    s = multi_rater_stats(
        EDGE_TABLES[name],
        scale="nominal" if name == "one category" else "ordinal",
        intervals=intervals,
        n_boot=200,
    )
    assert isinstance(s, MultiRaterStats)
    assert_json_safe(s.to_dict())
    for e in (s.fleiss, s.krippendorff_alpha, s.mean_pairwise_percent, *s.vs_majority.values()):
        assert e.defined or e.reason


def test_edge_case_reasons(reference: Reference) -> None:
    empty = multi_rater_stats([], ["a", "b", "c"])
    assert empty.n_units == 0 and empty.n_complete == 0
    assert empty.fleiss.reason == "no units labelled by all raters"
    assert empty.krippendorff_alpha.reason == "no unit labelled by at least two raters"

    one_cat = multi_rater_stats(EDGE_TABLES["one category"])
    assert one_cat.fleiss.value is None
    assert one_cat.fleiss.reason == "only one category used (chance agreement is 1)"
    assert one_cat.krippendorff_alpha.value is None
    assert "expected disagreement is 0" in some(one_cat.krippendorff_alpha.reason)
    assert one_cat.mean_pairwise_percent.value == 1.0

    # Perfect agreement on 4 units: the bootstrap cannot give an honest interval; it says so
    # instead of printing [1, 1].
    perfect = multi_rater_stats(EDGE_TABLES["perfect"])
    for e in (perfect.krippendorff_alpha, perfect.mean_pairwise_percent):
        assert e.value == pytest.approx(1.0)
        assert e.ci_low is None and e.reason and e.unstable
    assert some(perfect.unanimous_share.ci_low) < 0.6  # Wilson, informative at n = 4

    none_rater = multi_rater_stats(EDGE_TABLES["rater always none"], ["a", "b", "c"])
    assert none_rater.n_complete == 0 and none_rater.fleiss.value is None
    assert none_rater.krippendorff_alpha.defined
    assert none_rater.pairwise[("a", "c")].n == 0
    assert none_rater.pairwise[("a", "c")].cohen.reason == "no units labelled by both raters"
    assert none_rater.vs_majority["c"].value is None
    # The other two raters' alpha is the two-rater alpha over all four units.
    two = np.array([[1, 2, 1, 3], [2, 2, 1, 1]], dtype=float)
    expected = reference(krippendorff_alpha, two, "nominal")
    assert none_rater.krippendorff_alpha.value == pytest.approx(expected, abs=TOL)
    assert "4 units with at least two labels" in none_rater.units_note
    assert "0 units labelled by all 3 raters" in none_rater.units_note

    single = multi_rater_stats(EDGE_TABLES["single rater"])
    assert single.fleiss.reason == "needs at least two raters"
    assert single.mean_pairwise_percent.value is None
    assert single.pairwise == {}

    one_unit = multi_rater_stats(EDGE_TABLES["one unit"])
    assert one_unit.fleiss.reason == "n < 2"


def test_invalid_tables() -> None:
    with pytest.raises(ValueError, match="row 1"):
        multi_rater_stats([[1, 2], [1]])
    with pytest.raises(ValueError, match="unique"):
        multi_rater_stats([[1, 2]], ["a", "a"])
    with pytest.raises(ValueError, match="scale"):
        multi_rater_stats([[1, 2]], scale="ratio")


# ------------------------------------------------------------------ new figures, references


@pytest.mark.parametrize(
    ("seed", "n", "r", "k", "missing"), [c for c in CASES if c[4] == 0.0] + [(9, 80, 4, 3, 0.0)]
)
def test_randolph_matches_statsmodels_on_complete_data(
    seed: int, n: int, r: int, k: int, missing: float, reference: Reference
) -> None:
    data = random_table(seed, n, r, k, missing)
    randolph = reference(fleiss, data.astype(int), method="randolph", n_cat=k)
    s = multi_rater_stats(as_rows(data), categories=list(range(k)), intervals=False)
    assert s.randolph_kappa.value == pytest.approx(randolph, abs=TOL)


def test_randolph_counts_declared_categories_not_observed_ones() -> None:
    rows = [["a", "a", "a"], ["a", "a", "b"], ["a", "a", "a"], ["b", "b", "b"]] * 5
    inferred = multi_rater_stats(rows, intervals=False)
    declared = multi_rater_stats(rows, categories=["a", "b", "c", "d"], intervals=False)
    p = np.mean([1, 1 / 3, 1, 1])
    assert inferred.randolph_kappa.value == pytest.approx((p - 1 / 2) / (1 / 2))
    assert declared.randolph_kappa.value == pytest.approx((p - 1 / 4) / (3 / 4))
    assert inferred.categories_inferred and not declared.categories_inferred


@pytest.mark.parametrize(("seed", "n", "r", "k", "missing"), CASES)
def test_fleiss_per_category_recombines_to_fleiss(
    seed: int, n: int, r: int, k: int, missing: float, reference: Reference
) -> None:
    # Fleiss (1971): κ = Σ_j p_j q_j κ_j / Σ_j p_j q_j; κ itself checked against statsmodels.
    data = random_table(seed, n, r, k, missing)
    s = multi_rater_stats(as_rows(data), categories=list(range(k)), intervals=False)
    complete = data[~np.isnan(data).any(axis=1)].astype(int)
    if len(complete) < 2:
        return
    counts = reference(category_counts, complete, n_cat=k)
    p = counts.sum(axis=0) / counts.sum()
    w = p * (1 - p)
    kappas = [s.fleiss_per_category[j].value for j in range(k)]
    used = [j for j in range(k) if w[j] > 0]
    combined = sum(w[j] * kappas[j] for j in used) / w[used].sum()
    assert combined == pytest.approx(reference(fleiss, complete, n_cat=k), abs=1e-9)
    # And each κ_j by the formula, computed here from the counts.
    for j in used:
        m = r
        expected = 1 - (counts[:, j] * (m - counts[:, j])).sum() / (
            len(counts) * m * (m - 1) * w[j]
        )
        assert kappas[j] == pytest.approx(expected, abs=1e-9)


def test_pooled_pairwise_weights_pairs_by_shared_units() -> None:
    # Unequal overlaps: ann & bob share 10 units (all agree), ann & cy share 2 (both differ).
    rows = [["x", "x", None]] * 10 + [["x", None, "y"]] * 2
    s = multi_rater_stats(rows, ["ann", "bob", "cy"], intervals=False)
    assert s.mean_pairwise_percent.value == pytest.approx(10 / 12)  # pooled over 12 pairs
    mean_of_pairs = np.mean([1.0, 0.0])  # the old definition: 0.5
    assert s.mean_pairwise_percent.value != pytest.approx(mean_of_pairs)
    assert s.per_unit_pairwise_percent.value == pytest.approx(10 / 12)


def test_interval_scale_icc_over_complete_units() -> None:
    from medjudge.judging.stats.agreement.icc import icc_2_1

    data = random_table(2, 60, 4, 5, 0.1)
    s = multi_rater_stats(as_rows(data), scale="interval")
    complete = data[~np.isnan(data).any(axis=1)]
    assert some(s.icc).value == pytest.approx(icc_2_1(complete).value, abs=TOL)
    assert some(s.icc).n == len(complete) == s.n_complete
    assert some(s.icc).method == "f_distribution"


def test_bca_intervals_deterministic_and_contain_estimate() -> None:
    rows = as_rows(random_table(12, 150, 4, 3, 0.1))
    s1 = multi_rater_stats(rows, scale="ordinal", n_boot=500, seed=3)
    s2 = multi_rater_stats(rows, scale="ordinal", n_boot=500, seed=3)
    assert s1.to_dict() == s2.to_dict()
    s3 = multi_rater_stats(rows, scale="ordinal", n_boot=500, seed=4)
    assert s3.krippendorff_alpha.ci_low != s1.krippendorff_alpha.ci_low
    for e in (
        s1.krippendorff_alpha,
        s1.mean_pairwise_percent,
        s1.per_unit_pairwise_percent,
        s1.randolph_kappa,
        *s1.fleiss_per_category.values(),
    ):
        assert e.method == "bca_bootstrap"
        assert some(e.ci_low) < some(e.value) < some(e.ci_high)
    assert s1.fleiss.method == "normal_se"
    for e in (s1.unanimous_share, *s1.vs_majority.values()):
        assert e.method == "wilson"
    assert_json_safe(s1.to_dict())


def test_bca_alpha_interval_close_to_a_brute_force_unit_bootstrap(reference: Reference) -> None:
    # An independent percentile-free check: resample units with numpy, recompute α with the
    # krippendorff package, and compare the spread of the two bootstrap distributions.
    data = random_table(5, 120, 3, 3, 0.1)
    s = multi_rater_stats(as_rows(data), n_boot=2000, seed=0)
    rng = np.random.default_rng(1)
    resamples = [data[rng.integers(0, len(data), len(data))].T for _ in range(300)]
    draws = reference(krippendorff_alphas, resamples, "nominal")
    lo, hi = np.percentile(draws, [2.5, 97.5])
    assert s.krippendorff_alpha.ci_low == pytest.approx(lo, abs=0.04)
    assert s.krippendorff_alpha.ci_high == pytest.approx(hi, abs=0.04)


# ---------------------------------------------------------------------------- LabelMatrix


def test_label_matrix_basic_operations() -> None:
    m = LabelMatrix()
    m.set("q1", "ann", "good")
    m.set("q1", "bob", "bad")
    m.set("q2", "bob", "good")
    m.set("q3", "cy", "good")
    assert m.raters() == ["ann", "bob", "cy"]
    assert m.units() == ["q1", "q2", "q3"]
    assert len(m) == 4
    assert m.get("q1", "ann") == "good" and m.get("q2", "ann") is None
    assert m.pair("ann", "bob") == (["good", None], ["bad", "good"])
    assert m.table(["ann", "bob"]) == [["good", "bad"], [None, "good"], [None, None]]
    m.set("q1", "ann", "bad")  # overwrite
    assert m.get("q1", "ann") == "bad" and len(m) == 4
    m.set("q3", "cy", None)  # removal drops the now-empty unit and rater
    assert m.units() == ["q1", "q2"] and m.raters() == ["ann", "bob"]
    m.set("q9", "zed", None)  # removing what is not there is a no-op
    assert len(m) == 3


def test_label_matrix_feeds_live_recomputation() -> None:
    data = random_table(21, 40, 3, 3, 0.2)
    rows = as_rows(data)
    names = ["ann", "bob", "cy"]
    m = LabelMatrix()
    rng = np.random.default_rng(0)
    cells = [(u, r) for u in range(len(rows)) for r in range(3) if rows[u][r] is not None]
    for idx in rng.permutation(len(cells)):  # labels arrive in random order
        u, r = cells[idx]
        m.set(f"unit{u}", names[r], rows[u][r])
    units = sorted(map(str, m.units()), key=lambda s: int(s[4:]))
    live = multi_rater_stats(m.table(names), names, intervals=False)
    direct = multi_rater_stats([rows[int(u[4:])] for u in units], names, intervals=False)
    assert live.krippendorff_alpha.value == pytest.approx(direct.krippendorff_alpha.value)
    assert live.fleiss.value == pytest.approx(direct.fleiss.value)
    a, b = m.pair("ann", "bob")
    assert two_rater_stats(a, b).cohen.value == pytest.approx(
        direct.pairwise[("ann", "bob")].cohen.value
    )
    # One more label changes the figures.
    before = live.krippendorff_alpha.value
    m.set("unit0", "cy", 2 if rows[0][0] != 2 else 0)
    m.set("unit0", "ann", 2 if rows[0][0] != 2 else 0)
    after = multi_rater_stats(m.table(names), names, intervals=False).krippendorff_alpha.value
    assert after != before


def test_column_input_gives_the_row_input_figures() -> None:
    """Labels given rater by rater (as ``medjudge agreement`` reads a file) give exactly the
    figures of the same labels given unit by unit."""
    from medjudge.judging.stats.agreement.core import multi_rater_column_stats

    rnd = random.Random(5)
    rows = [[rnd.choice(["A", "B", "C", None]) for _ in range(4)] for _ in range(150)]
    names = ["ann", "bob", "cy", "dee"]
    columns = [[row[r] for row in rows] for r in range(4)]
    want = multi_rater_stats(rows, names, n_boot=300, seed=3).to_dict()
    assert multi_rater_column_stats(columns, names, n_boot=300, seed=3).to_dict() == want
    with pytest.raises(ValueError, match="rater 'bob' has 149 labels, expected 150"):
        multi_rater_column_stats([columns[0], columns[1][:-1]], names[:2])
    with pytest.raises(ValueError, match="2 columns for 3 rater names"):
        multi_rater_column_stats(columns[:2], names[:3])
