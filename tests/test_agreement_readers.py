"""The definitions readers assume, each against an independent implementation: Scott's π
and Fleiss' κ over all units against irrCAC, two-rater α against krippendorff, Light's κ and
the unweighted pair mean against scikit-learn, macro precision / recall against scikit-learn,
the majority including one's own vote by hand."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from medjudge.judging.stats.agreement.core import multi_rater_stats, two_rater_stats
from medjudge.judging.stats.classification import classification_of_cells

from .support.checks import some
from .support.reference import Reference, missing
from .support.reference_calls import (
    Level,
    cohen_kappa,
    irrcac,
    krippendorff_alpha,
    precision_and_recall,
)

_absent = missing("pandas", "irrCAC", "krippendorff")
pytestmark = pytest.mark.skipif(
    _absent is not None, reason=f"{_absent} is not installed (a reference library)"
)

TOL = 1e-9


def _pair(seed: int, n: int, k: int, agree: float = 0.6) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    a = [rng.randrange(k) for _ in range(n)]
    b = [x if rng.random() < agree else rng.randrange(k) for x in a]
    return a, b


def _table(seed: int, n: int, raters: int, k: int, missing: float) -> list[list[int | None]]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        truth = rng.randrange(k)
        rows.append(
            [
                None
                if rng.random() < missing
                else (truth if rng.random() < 0.6 else rng.randrange(k))
                for _ in range(raters)
            ]
        )
    return rows


@pytest.mark.parametrize(("seed", "n", "k"), [(1, 30, 2), (2, 80, 3), (3, 200, 5)])
def test_scott_pi_equals_irrcac_fleiss_on_two_raters(
    seed: int, n: int, k: int, reference: Reference
) -> None:
    a, b = _pair(seed, n, k)
    s = two_rater_stats(a, b, categories=list(range(k)))
    est = reference(irrcac, {"a": a, "b": b}, list(range(k)), "fleiss")
    assert s.scott_pi is not None
    assert s.scott_pi.value == pytest.approx(est["coefficient_value"], abs=TOL)
    assert s.scott_pi.se == pytest.approx(est["se"], abs=TOL)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(3))
def test_two_rater_alpha_equals_krippendorff(level: Level, seed: int, reference: Reference) -> None:
    a, b = _pair(seed, 60, 5, agree=0.5)
    rng = random.Random(seed)
    a2: list[int | None] = [x if rng.random() > 0.1 else None for x in a]  # missing cells
    s = two_rater_stats(a2, b, categories=list(range(5)), scale=level, n_boot=300)
    data = np.array([[np.nan if x is None else x for x in a2], b], dtype=float)
    ref = reference(krippendorff_alpha, data, level)
    assert s.krippendorff_alpha is not None
    assert s.krippendorff_alpha.value == pytest.approx(ref, abs=TOL)
    assert s.krippendorff_alpha.method == "bca_bootstrap"
    lo, hi = s.krippendorff_alpha.ci_low, s.krippendorff_alpha.ci_high
    assert lo is not None and hi is not None and lo <= some(s.krippendorff_alpha.value) <= hi
    # the multi-rater α of the same two columns is the same figure
    m = multi_rater_stats(
        [list(r) for r in zip(a2, b, strict=True)], categories=list(range(5)), scale=level
    )
    assert m.krippendorff_alpha.value == pytest.approx(ref, abs=TOL)


@pytest.mark.parametrize(("seed", "missing"), [(1, 0.0), (2, 0.2), (3, 0.4)])
def test_fleiss_over_all_units_equals_irrcac(
    seed: int, missing: float, reference: Reference
) -> None:
    rows = _table(seed, 70, 4, 3, missing)
    rows = [r for r in rows if any(x is not None for x in r)]
    m = multi_rater_stats(rows, categories=[0, 1, 2])
    frame = [[np.nan if x is None else x for x in r] for r in rows]
    est = reference(irrcac, frame, [0, 1, 2], "fleiss")
    assert m.fleiss_all_units is not None
    assert m.fleiss_all_units.value == pytest.approx(est["coefficient_value"], abs=TOL)
    assert m.fleiss_all_units.se == pytest.approx(est["se"], abs=TOL)
    if missing == 0.0:  # complete data: the same as medjudge's complete-units Fleiss' κ
        assert m.fleiss_all_units.value == pytest.approx(m.fleiss.value, abs=TOL)


def test_light_kappa_and_the_unweighted_pair_mean_equal_sklearn_per_pair(
    reference: Reference,
) -> None:
    rows = _table(5, 90, 3, 3, 0.15)
    m = multi_rater_stats(rows, categories=[0, 1, 2])
    kappas, percents = [], []
    for i, j in combinations(range(3), 2):
        both = [(r[i], r[j]) for r in rows if r[i] is not None and r[j] is not None]
        x, y = [p[0] for p in both], [p[1] for p in both]
        kappas.append(reference(cohen_kappa, x, y))
        percents.append(np.mean([p == q for p, q in both]))
    assert m.light_kappa is not None and m.mean_pair_percent is not None
    assert m.light_kappa.value == pytest.approx(np.mean(kappas), abs=TOL)
    assert m.mean_pair_percent.value == pytest.approx(np.mean(percents), abs=TOL)
    assert m.light_kappa.method == "none" and m.light_kappa.reason


def test_majority_including_the_raters_own_vote_by_hand() -> None:
    rows: list[list[str | None]] = [
        ["a", "a", "b"],  # majority a (2 of 3): rater 3 disagrees
        ["a", "b", None],  # no strict majority
        ["b", "b", "b"],
        ["a", None, None],  # one label: no majority of a panel
    ]
    m = multi_rater_stats(rows, raters=["x", "y", "z"])
    own = {r: (e.value, e.n) for r, e in m.vs_majority_own.items()}
    assert own == {"x": (1.0, 2), "y": (1.0, 2), "z": (0.5, 2)}
    others = {r: e.n for r, e in m.vs_majority.items()}
    assert others["z"] == 2 and m.vs_majority["z"].value == 0.5  # others a,a vs b; b,b vs b


@pytest.mark.parametrize("seed", range(4))
def test_macro_precision_and_recall_equal_sklearn(seed: int, reference: Reference) -> None:
    rng = random.Random(seed)
    cats = ["A", "B", "tie", "neither"]
    ref = [rng.choice(cats[:3]) for _ in range(60)]
    pred = [x if rng.random() < 0.6 else rng.choice(cats) for x in ref]
    s = two_rater_stats(ref, pred, categories=cats)
    cl = classification_of_cells(s.confusion.cells, cats, n_boot=200)
    present = sorted(set(ref))
    kw = {"labels": present, "average": "macro", "zero_division": 0}
    assert cl.macro_precision is not None and cl.macro_recall is not None
    precision, recall = reference(precision_and_recall, ref, pred, **kw)
    assert cl.macro_precision.value == pytest.approx(precision, abs=TOL)
    assert cl.macro_recall.value == pytest.approx(recall, abs=TOL)
