"""Multi-select agreement: MASI α against krippendorff with MASI as a custom distance,
and the per-option binary units against the same package's nominal α."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from medjudge.judging.stats.agreement.sets import (
    masi,
    masi_alpha,
    option_columns,
    parse_ticks,
)

from .support.checks import some
from .support.reference import Reference, missing
from .support.reference_calls import krippendorff_alpha, krippendorff_alpha_of_counts

pytestmark = pytest.mark.skipif(
    missing("krippendorff") is not None, reason="krippendorff is not installed (the reference)"
)


def test_masi_distance_cases() -> None:
    f = frozenset
    assert masi(f("AB"), f("AB")) == 0.0
    assert masi(f(), f()) == 0.0
    assert masi(f("A"), f("AB")) == pytest.approx(1 - 0.5 * 2 / 3)  # subset
    assert masi(f("AB"), f("BC")) == pytest.approx(1 - (1 / 3) * (1 / 3))  # overlap
    assert masi(f("A"), f("B")) == 1.0  # disjoint
    assert parse_ticks("A,C") == f("AC") and parse_ticks("-") == f() and parse_ticks(None) is None


def _reference_alpha(
    reference: Reference, columns: Sequence[Sequence[frozenset[str] | None]]
) -> float:
    domain = sorted({v for col in columns for v in col if v is not None}, key=sorted)
    index = {v: i for i, v in enumerate(domain)}
    n_units = len(columns[0])
    counts = np.zeros((n_units, len(domain)))
    for col in columns:
        for u, v in enumerate(col):
            if v is not None:
                counts[u, index[v]] += 1
    table = np.array([[masi(a, b) for b in domain] for a in domain])
    return reference(krippendorff_alpha_of_counts, counts, table)


@pytest.mark.parametrize("seed", range(8))
def test_masi_alpha_equals_krippendorff_with_a_masi_distance(
    seed: int, reference: Reference
) -> None:
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
    ref = _reference_alpha(reference, columns)
    assert (math.isnan(ours) and math.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12)


def test_per_option_units_use_the_declared_options_only(reference: Reference) -> None:
    f = frozenset
    columns: dict[str, list[frozenset[str] | None]] = {
        "ann": [f("A"), f("AB"), None],
        "bob": [f("A"), f("B"), f("C")],
    }
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
    alpha_a = reference(krippendorff_alpha, data, "nominal")
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


# -- the estimate with its interval, and every surface of a study -------------------------


@pytest.mark.parametrize("seed", range(4))
def test_masi_alpha_estimate_is_the_point_figure_with_a_bca_interval(
    seed: int, reference: Reference
) -> None:
    from medjudge.judging.stats.agreement.sets import masi_alpha_estimate

    rng = random.Random(seed)
    cols = [
        [
            frozenset(x for x in "ABCD" if rng.random() < 0.4) if rng.random() < 0.9 else None
            for _ in range(40)
        ]
        for _ in range(3)
    ]
    est = masi_alpha_estimate(cols, n_boot=400, seed=1)
    assert est.value == pytest.approx(masi_alpha(cols), abs=1e-12)
    assert est.value == pytest.approx(_reference_alpha(reference, cols), abs=1e-9)
    assert est.method == "bca_bootstrap" and some(est.ci_low) <= some(est.value) <= some(
        est.ci_high
    )


def _rating_study(tmp_path: Path, ticks: dict[str, list[str]]) -> Path:
    """Rating items whose completeness each rater ticked as ``ticks[rater][i]``."""
    from medjudge.store.importing.run import import_file
    from medjudge.store.study import Study

    from .support.kind_rows import rating_row, write_jsonl

    n = len(next(iter(ticks.values())))
    rows = []
    for i in range(n):
        row = rating_row(i)
        row["labels"] = [
            {"rater": r, "criterion": "completeness", "value": t[i].split(",") if t[i] else []}
            for r, t in ticks.items()
        ]
        rows.append(row)
    path = tmp_path / "sets.sqlite"
    with Study.create(path, actor="lead") as s:
        import_file(s, write_jsonl(tmp_path / "sets.jsonl", rows), "rating", actor="lead")
    return path


def _report(path: Path) -> dict[str, Any]:
    import json

    from typer.testing import CliRunner

    from medjudge.cli import app

    r = CliRunner().invoke(app, ["report", str(path), "-f", "json"])
    assert r.exit_code == 0, r.output
    entry: dict[str, Any] = next(
        c for c in json.loads(r.stdout)["criteria"] if c["name"] == "completeness"
    )
    return entry


def test_one_item_with_different_ticks_is_four_binary_units_not_two_categories(
    tmp_path: Path,
) -> None:
    # Before: the two tick combinations were the categories, Bennett's S = -1.00 at n = 1.
    entry = _report(_rating_study(tmp_path, {"ann": ["A,B"], "bob": ["A"]}))
    pair = next(
        c for c in entry["comparisons"] if c["view"] == "human_human" and c["slice"] == "all"
    )
    assert entry["categories"] == ["ticked", "not_ticked"]
    assert pair["n"] == 4  # options A-D of the one item
    assert pair["metrics"]["percent"]["value"] == pytest.approx(3 / 4)
    assert pair["metrics"]["bennett_s"]["value"] == pytest.approx(2 * 3 / 4 - 1)
    assert pair["confusion"]["categories"] == ["ticked", "not_ticked"]


def test_figures_do_not_move_when_a_new_combination_appears_elsewhere(tmp_path: Path) -> None:
    base = {"ann": ["A,B", "C", "A"], "bob": ["A", "C", "A"]}
    more = {"ann": [*base["ann"], "B,C,D"], "bob": [*base["bob"], "B,C,D"]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _report(_rating_study(tmp_path / "a", base))
    b = _report(_rating_study(tmp_path / "b", more))

    def option(entry: dict[str, Any], letter: str) -> dict[str, Any]:
        return next(
            c["metrics"]
            for c in entry["comparisons"]
            if c["view"] == "human_human" and c["slice"] == f"option={letter}"
        )

    # an identical new item adds agreeing units; option A's categories stay ticked/not ticked
    assert option(a, "A")["percent"]["value"] == pytest.approx(1.0)
    assert option(b, "A")["percent"]["value"] == pytest.approx(1.0)
    assert option(a, "B")["percent"]["value"] == pytest.approx(2 / 3)
    assert option(b, "B")["percent"]["value"] == pytest.approx(3 / 4)


def test_study_figures_equal_krippendorff_on_hand_built_binary_units(
    tmp_path: Path, reference: Reference
) -> None:
    rng = random.Random(7)
    raters = ("ann", "bob", "cy")
    n = 25
    ticks = {
        r: [",".join(x for x in "ABCD" if rng.random() < 0.45) for _ in range(n)] for r in raters
    }
    entry = _report(_rating_study(tmp_path, ticks))
    groups = {c["slice"]: c["metrics"] for c in entry["comparisons"] if c["view"] == "reviewers"}
    # binary units by hand: item i, option L → 1 ticked / 0 not ticked
    binary = np.array(
        [
            [1.0 if L in ticks[r][i].split(",") else 0.0 for i in range(n) for L in "ABCD"]
            for r in raters
        ]
    )
    expected = reference(krippendorff_alpha, binary, "nominal")
    assert groups["all"]["krippendorff_alpha"]["value"] == pytest.approx(expected, abs=1e-9)
    for k, letter in enumerate("ABCD"):
        part = binary[:, k::4]
        if len(np.unique(part)) < 2:
            continue
        want = reference(krippendorff_alpha, part, "nominal")
        got = groups[f"option={letter}"]["krippendorff_alpha"]["value"]
        assert got == pytest.approx(want, abs=1e-9), letter
    sets = [[frozenset(t.split(",")) - {""} for t in ticks[r]] for r in raters]
    assert groups["all"]["masi_alpha"]["value"] == pytest.approx(
        _reference_alpha(reference, sets), abs=1e-9
    )


def test_the_app_row_counts_the_same_binary_units_as_the_report(tmp_path: Path) -> None:
    from medjudge.judging.analysis.live import LiveAgreement
    from medjudge.store.study import Study

    ticks = {
        "ann": ["A,B", "C", "A", "D"],
        "bob": ["A", "C", "A,D", "D"],
        "cy": ["A", "", "A", "B"],
    }
    path = _rating_study(tmp_path, ticks)
    entry = _report(path)
    group = next(
        c for c in entry["comparisons"] if c["view"] == "reviewers" and c["slice"] == "all"
    )
    study = Study.open(path)
    try:
        row = next(r for r in LiveAgreement(study).rows() if r.criterion == "completeness")
    finally:
        study.close()
    assert row.n_units == 16
    assert row.human_human.value == pytest.approx(
        group["metrics"]["mean_pairwise_percent"]["value"]
    )
    assert row.human_kappa.value == pytest.approx(group["metrics"]["fleiss"]["value"])
