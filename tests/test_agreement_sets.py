"""Multi-select agreement (#24): MASI α against krippendorff with MASI as a custom distance,
and the per-option binary units against the same package's nominal α."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from medjudge.judging.stats.agreement.sets import (
    masi,
    masi_alpha,
    option_columns,
    parse_ticks,
)

krippendorff = pytest.importorskip("krippendorff")


def test_masi_distance_cases() -> None:
    f = frozenset
    assert masi(f("AB"), f("AB")) == 0.0
    assert masi(f(), f()) == 0.0
    assert masi(f("A"), f("AB")) == pytest.approx(1 - 0.5 * 2 / 3)  # subset
    assert masi(f("AB"), f("BC")) == pytest.approx(1 - (1 / 3) * (1 / 3))  # overlap
    assert masi(f("A"), f("B")) == 1.0  # disjoint
    assert parse_ticks("A,C") == f("AC") and parse_ticks("-") == f() and parse_ticks(None) is None


def _reference_alpha(columns: list[list[frozenset[str] | None]]) -> float:
    domain = sorted({v for col in columns for v in col if v is not None}, key=sorted)
    index = {v: i for i, v in enumerate(domain)}
    n_units = len(columns[0])
    counts = np.zeros((n_units, len(domain)))
    for col in columns:
        for u, v in enumerate(col):
            if v is not None:
                counts[u, index[v]] += 1
    table = np.array([[masi(a, b) for b in domain] for a in domain])

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):  # noqa: ANN001, ANN202, ARG001
        return table[i1, i2].astype(dtype)

    return float(
        krippendorff.alpha(
            value_counts=counts,
            value_domain=list(range(len(domain))),
            level_of_measurement=metric,
        )
    )


@pytest.mark.parametrize("seed", range(8))
def test_masi_alpha_equals_krippendorff_with_a_masi_distance(seed: int) -> None:
    rng = random.Random(seed)
    letters = "ABCD"
    n_raters, n_units = rng.choice([2, 3, 4]), rng.choice([5, 12, 40])
    truth = [frozenset(x for x in letters if rng.random() < 0.4) for _ in range(n_units)]
    columns: list[list[frozenset[str] | None]] = []
    for _ in range(n_raters):
        col: list[frozenset[str] | None] = []
        for t in truth:
            if rng.random() < 0.15:
                col.append(None)
            elif rng.random() < 0.6:
                col.append(t)
            else:
                col.append(frozenset(x for x in letters if rng.random() < 0.4))
        columns.append(col)
    ours = masi_alpha(columns)
    ref = _reference_alpha(columns)
    assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12)


def test_per_option_units_use_the_declared_options_only() -> None:
    f = frozenset
    columns = {"ann": [f("A"), f("AB"), None], "bob": [f("A"), f("B"), f("C")]}
    options = [("A", "B"), ("A", "B", "C"), ("A", "B", "C")]
    units = option_columns(columns, options)
    assert sorted(units) == ["A", "B", "C"]
    assert units["A"]["ann"] == ["ticked", "ticked", None]
    assert units["A"]["bob"] == ["ticked", "not_ticked", "not_ticked"]
    assert units["C"]["bob"] == ["not_ticked", "ticked"]  # only the items that declare C
    # A new tick combination changes no option's category set: always the two labels.
    values = {v for per in units.values() for col in per.values() for v in col if v}
    assert values == {"ticked", "not_ticked"}
    # Per option: the nominal α of the binary units (as krippendorff computes it).
    codes = {"ticked": 1.0, "not_ticked": 0.0, None: np.nan}
    data = [[codes[v] for v in units["A"][r]] for r in ("ann", "bob")]
    alpha_a = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert alpha_a == pytest.approx(
        masi_alpha(
            [
                [None if v is None else f("x" if v == "ticked" else "") for v in col]
                for col in (units["A"]["ann"], units["A"]["bob"])
            ]
        ),
        abs=1e-12,
    )
    assert not math.isnan(alpha_a)
