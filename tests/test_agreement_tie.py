"""``agreement --tie`` and ``--categories`` name labels as the scale reads them.

On a numeric scale the file's labels are numbers; ``--tie 0`` used to stay the text "0", match
no label, and still print a section titled "without ties" holding every unit.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.reference import Reference
from .support.reference_calls import cohen_kappa, krippendorff_alpha

runner = CliRunner()


def _ratings(path: Path, values: list[int], raters: int, seed: int) -> list[list[int]]:
    """Raters who agree 60% of the time on a scale of ``values``; written as CSV."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(120):
        truth = rnd.choice(values)
        rows.append([truth if rnd.random() < 0.6 else rnd.choice(values) for _ in range(raters)])
    names = [f"r{i}" for i in range(raters)]
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        # the same number written three ways: 0, 0.0 and " 0 " are one label on this scale
        w.writerows(
            [
                [(f"{v}.0" if i % 3 == 1 else f" {v} ") if i % 3 else v for v in row]
                for i, row in enumerate(rows)
            ]
        )
    return rows


def _run(path: Path, *args: str) -> dict[str, Any]:
    r = runner.invoke(app, ["agreement", str(path), "--json", "--n-boot", "200", *args])
    assert r.exit_code == 0, r.output
    result: dict[str, Any] = json.loads(r.stdout)
    return result


def test_tie_0_on_an_interval_scale_from_minus_2_to_2(tmp_path: Path, reference: Reference) -> None:
    rows = _ratings(tmp_path / "r.csv", [-2, -1, 0, 1, 2], 3, seed=1)
    out = _run(tmp_path / "r.csv", "-r", "r0,r1,r2", "--scale", "interval", "--tie", "0")
    assert out["tie"] == 0
    every, untied = out["slices"]
    kept = [row for row in rows if 0 not in row]
    assert 0 < len(kept) < len(rows)
    assert (every["n_rows"], untied["n_rows"], untied["without_ties"]) == (120, len(kept), True)
    data = np.array(kept, dtype=float).T
    alpha = reference(krippendorff_alpha, data, "interval")
    assert untied["stats"]["krippendorff_alpha"]["value"] == pytest.approx(alpha, abs=1e-9)
    assert untied["stats"]["n_units"] == len(kept)


def test_tie_3_on_an_ordinal_scale_from_1_to_5(tmp_path: Path, reference: Reference) -> None:
    rows = _ratings(tmp_path / "r.csv", [1, 2, 3, 4, 5], 2, seed=2)
    out = _run(tmp_path / "r.csv", "-r", "r0,r1", "--scale", "ordinal", "--tie", "3.0")
    untied = out["slices"][1]
    kept = [row for row in rows if 3 not in row]
    assert untied["without_ties"] and untied["n_rows"] == untied["stats"]["n"] == len(kept)
    a, b = [x for x, _ in kept], [y for _, y in kept]
    ref = reference(cohen_kappa, a, b, weights="quadratic", labels=[1, 2, 4, 5])
    assert untied["stats"]["weighted_kappa_quadratic"]["value"] == pytest.approx(ref, abs=1e-9)
    text = runner.invoke(
        app, ["agreement", str(tmp_path / "r.csv"), "-r", "r0,r1", "--ordinal", "--tie", "3"]
    ).stdout
    assert f"all rows, without ties ({len(kept)} units)" in text


def test_nominal_tie_is_text_as_before(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    rows = [{"a": x, "b": y} for x, y in [("A", "A"), ("tie", "B"), ("B", "B"), (0, 0)]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert _run(path, "-r", "a,b", "--tie", "tie")["slices"][1]["n_rows"] == 3
    assert _run(path, "-r", "a,b", "--tie", "0")["slices"][1]["n_rows"] == 3  # JSON 0 is "0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "interval", "--tie", "7"], "--tie '7': no rater gave the label 7 (number)"),
        (["--ordinal", "--tie", "x"], "--tie 'x': this scale needs numbers"),
        (["--ordinal", "--tie", "nan"], "--tie 'nan': this scale needs finite numbers"),
        (["--tie", "maybe"], "--tie 'maybe': no rater gave the label 'maybe' (text)"),
        (["--scale", "interval", "--categories", "1,2,inf"], "--categories: an interval scale"),
    ],
)
def test_a_label_option_the_data_cannot_match_is_one_clear_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    _ratings(tmp_path / "r.csv", [1, 2, 3], 2, seed=3)
    r = runner.invoke(app, ["agreement", str(tmp_path / "r.csv"), "-r", "r0,r1", *args])
    assert r.exit_code == 1, r.output
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert "without ties" not in r.output


def test_categories_are_read_as_the_labels_are(tmp_path: Path, reference: Reference) -> None:
    rows = _ratings(tmp_path / "r.csv", [1, 2, 3, 4], 2, seed=4)
    # "1.0" and " 2" declare the labels 1 and 2; 5 is a category nobody used.
    out = _run(tmp_path / "r.csv", "-r", "r0,r1", "--ordinal", "--categories", "1.0, 2,3,4,5")
    stats = out["slices"][0]["stats"]
    assert stats["categories"] == [1, 2, 3, 4, 5]
    a, b = [x for x, _ in rows], [y for _, y in rows]
    ref = reference(cohen_kappa, a, b, weights="linear", labels=[1, 2, 3, 4, 5])
    assert stats["weighted_kappa_linear"]["value"] == pytest.approx(ref, abs=1e-9)
