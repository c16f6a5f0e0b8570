"""The live table's numpy path gives exactly the figures of the statistics functions."""

from __future__ import annotations

import random

import pytest

from medjudge.judging.analysis.study_data import strict_majority
from medjudge.judging.stats.agreement.core import multi_rater_stats, two_rater_stats
from medjudge.judging.stats.code_matrix import (
    CodeMatrix,
    multi_point,
    pair_point,
    strict_majority_codes,
)

CATS = ["A", "B", "tie", "neither"]


def _labels(seed: int, units: int, raters: int) -> dict[tuple[int, str], str | None]:
    rng = random.Random(seed)
    out: dict[tuple[int, str], str | None] = {}
    for u in range(units):
        truth = rng.choice(CATS)
        for r in range(raters):
            if rng.random() < 0.2:
                continue
            out[(u, f"r{r}")] = truth if rng.random() < 0.7 else rng.choice(CATS + ["odd"])
    return out


@pytest.mark.parametrize(("seed", "units", "raters"), [(0, 700, 2), (1, 300, 3), (2, 1000, 6)])
def test_codes_equal_the_statistics_functions(seed: int, units: int, raters: int) -> None:
    labels = _labels(seed, units, raters)
    names = [f"r{r}" for r in range(raters)]
    m = CodeMatrix(CATS)  # "odd" is outside the declared set: it gets a code of its own
    for (u, r), v in labels.items():
        m.set(u, r, v)
    # A label set and then cleared is missing again.
    m.set(0, "r0", "A")
    m.set(0, "r0", None)
    labels.pop((0, "r0"), None)
    seen = list(dict.fromkeys([u for u, _ in _labels(seed, units, raters)] + [0]))
    rows = [[labels.get((u, r)) for r in names] for u in seen]  # the matrix's row order
    codes = m.columns(names)
    q = len(m.categories)
    assert "odd" in m.categories and codes.shape == (len(seen), raters)

    percent, kappa = pair_point(codes[:, 0], codes[:, 1], q)
    ref = two_rater_stats([x[0] for x in rows], [x[1] for x in rows])
    assert percent.value == pytest.approx(ref.percent.value) and percent.n == ref.percent.n
    assert kappa.value == pytest.approx(ref.cohen.value)

    majority = strict_majority_codes(codes[:, 1:], q)
    expected = [strict_majority(x[1:]) for x in rows]
    got = [None if c < 0 else m.categories[c] for c in majority]
    assert got == expected

    if raters >= 3:
        pooled, fleiss = multi_point(codes, q)
        multi = multi_rater_stats(rows, names, intervals=False, pairwise=False)
        assert pooled.value == pytest.approx(multi.mean_pairwise_percent.value)
        assert pooled.n == multi.mean_pairwise_percent.n
        assert fleiss.value == pytest.approx(multi.fleiss.value)
        assert fleiss.n == multi.fleiss.n


def test_undefined_figures_say_why() -> None:
    m = CodeMatrix(CATS)
    assert pair_point(m.columns(["a"])[:, 0], m.columns(["b"])[:, 0], 4)[1].reason
    m.set(1, "a", "A")
    m.set(1, "b", "A")
    m.set(2, "a", "A")
    m.set(2, "b", "A")
    both = m.columns(["a", "b"])
    percent, kappa = pair_point(both[:, 0], both[:, 1], 4)
    assert percent.value == 1.0 and kappa.value is None
    assert kappa.reason == "only one category used by both raters (chance agreement is 1)"
