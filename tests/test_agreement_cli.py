"""``medjudge agreement``: statistics for any label file, checked against reference libraries."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.importing.readers import read_csv

from .support.reference import Reference
from .support.reference_calls import cohen_kappa, fleiss, krippendorff_alpha

runner = CliRunner()
RATERS = ["ann", "bob", "cy"]


def _labels(seed: int = 11, n: int = 60) -> list[dict[str, str]]:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        truth = rnd.choice("ABC")
        row = {"id": f"u{i}", "batch": "b1" if i < n // 2 else "b2"}
        for r in RATERS:
            if rnd.random() < 0.08:
                row[r] = ""  # missing label
            else:
                row[r] = truth if rnd.random() < 0.75 else rnd.choice("ABC")
        rows.append(row)
    return rows


def _write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def _reference(reference: Reference, rows: list[dict[str, str]]) -> dict[str, float]:
    """Fleiss (statsmodels), Krippendorff (krippendorff) and Cohen per pair (sklearn)."""
    complete = [[r[x] for x in RATERS] for r in rows if all(r[x] for x in RATERS)]
    codes = {"A": 0.0, "B": 1.0, "C": 2.0}
    data = np.asarray([[codes[r[x]] if r[x] else np.nan for r in rows] for x in RATERS])
    out = {
        "fleiss": reference(fleiss, complete),
        "alpha": reference(krippendorff_alpha, data, "nominal"),
    }
    for i, a in enumerate(RATERS):
        for b in RATERS[i + 1 :]:
            both = [(r[a], r[b]) for r in rows if r[a] and r[b]]
            out[f"{a}-{b}"] = reference(cohen_kappa, [x for x, _ in both], [y for _, y in both])
    return out


def test_three_raters_print_fleiss_alpha_and_the_pairwise_table(
    tmp_path: Path, reference: Reference
) -> None:
    rows = _labels()
    path = _write_csv(tmp_path / "labels.csv", rows)
    ref = _reference(reference, rows)
    r = runner.invoke(app, ["agreement", str(path), "--raters", "ann,bob,cy", "--unit", "id"])
    assert r.exit_code == 0, r.output
    text = r.stdout
    fleiss_line = next(line for line in text.splitlines() if line.strip().startswith("Fleiss' κ "))
    assert f"{ref['fleiss']:.3f}" in fleiss_line
    alpha_line = next(
        line for line in text.splitlines() if line.strip().startswith("Krippendorff's α")
    )
    assert f"{ref['alpha']:.3f}" in alpha_line
    assert "Mean pairwise % agreement" in text
    assert "pairwise:" in text
    for pair in ("ann-bob", "ann-cy", "bob-cy"):
        a, b = pair.split("-")
        line = next(x for x in text.splitlines() if x.split()[:2] == [a, b])
        assert f"{ref[pair]:.3f}" in line, line
    assert "agreement with the majority of the others" in text

    r = runner.invoke(app, ["agreement", str(path), "-r", "ann,bob,cy", "--json"])
    data = json.loads(r.stdout)
    (whole,) = data["slices"]
    assert whole["kind"] == "multi_raters" and whole["slice"] == "all"
    s = whole["stats"]
    assert s["fleiss"]["value"] == pytest.approx(ref["fleiss"])
    assert s["krippendorff_alpha"]["value"] == pytest.approx(ref["alpha"])
    assert s["fleiss"]["ci_low"] < s["fleiss"]["value"] < s["fleiss"]["ci_high"]
    pairs = {(p["rater_a"], p["rater_b"]): p for p in s["pairwise"]}
    assert pairs[("ann", "bob")]["cohen"]["value"] == pytest.approx(ref["ann-bob"])
    assert {v["rater"] for v in s["vs_majority"]} == set(RATERS)


def test_two_raters_ordinal_jsonl_and_slices(tmp_path: Path, reference: Reference) -> None:
    rnd = random.Random(3)
    lines, a, b = [], [], []
    for i in range(40):
        x = rnd.randint(1, 5)
        y = None if i % 10 == 0 else min(5, max(1, x + rnd.choice([-1, 0, 0, 1])))
        lines.append({"item": i, "group": "g1" if i < 20 else "g2", "dr1": x, "dr2": y})
        if y is not None:
            a.append(x)
            b.append(y)
    path = tmp_path / "ratings.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    r = runner.invoke(
        app, ["agreement", str(path), "-r", "dr1,dr2", "--ordinal", "--by", "group", "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [s["slice"] for s in data["slices"]] == ["all", "g1", "g2"]
    s = data["slices"][0]["stats"]
    assert (s["n"], s["n_dropped"]) == (36, 4)
    assert s["cohen"]["value"] == pytest.approx(reference(cohen_kappa, a, b))
    for kind in ("linear", "quadratic"):
        assert s[f"weighted_kappa_{kind}"]["value"] == pytest.approx(
            reference(cohen_kappa, a, b, weights=kind)
        )
    assert s["spearman"]["value"] == pytest.approx(stats.spearmanr(a, b).statistic)
    assert s["pearson"]["value"] == pytest.approx(stats.pearsonr(a, b).statistic)
    r = runner.invoke(app, ["agreement", str(path), "-r", "dr1,dr2", "--ordinal", "--by", "group"])
    assert r.exit_code == 0
    for label in (
        "Cohen's κ",
        "Gwet's AC1",
        "Weighted κ (linear)",
        "Spearman ρ",
        "Pearson r",
        "group = g1",
        "group = g2",
    ):
        assert label in r.stdout


@pytest.mark.parametrize(
    ("content", "name", "args", "message"),
    [
        ("id,ann,bob\n1,A,B\n", "x.csv", ["-r", "ann,zed"], "x.csv: no column 'zed'"),
        ("id,ann,bob\n1,A,B\n2,A\n", "x.csv", ["-r", "ann,bob"], "x.csv, line 3: has 2 fields"),
        (
            '{"ann": "A", "bob": "B"}\n{"ann": \n',
            "x.jsonl",
            ["-r", "ann,bob"],
            "x.jsonl, line 2: not valid JSON",
        ),
        (
            "id,ann,bob\n1,A,B\n1,B,B\n",
            "x.csv",
            ["-r", "ann,bob", "--unit", "id"],
            "x.csv, line 3, field 'id': unit '1' appears twice (first on line 2)",
        ),
        (
            "id,ann,bob\n1,3,x\n",
            "x.csv",
            ["-r", "ann,bob", "--ordinal"],
            "x.csv, line 2, field 'bob': this scale needs numbers",
        ),
        ("id,ann,bob\n1,A,B\n", "x.csv", ["-r", "ann"], "--raters needs at least two columns"),
        ("a\tb\n", "x.txt", ["-r", "a,b"], "x.txt: unknown file type"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, content: str, name: str, args: list[str], message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    r = runner.invoke(app, ["agreement", str(path), *args])
    assert r.exit_code == 1, r.output
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_missing_file(tmp_path: Path) -> None:
    r = runner.invoke(app, ["agreement", str(tmp_path / "nope.csv"), "-r", "a,b"])
    assert r.exit_code == 1 and "nope.csv: no such file" in r.output


def test_help_documents_the_json_keys() -> None:
    r = runner.invoke(app, ["agreement", "--help"])
    assert r.exit_code == 0
    flat = " ".join(r.output.split())
    for key in ("slices", "krippendorff_alpha", "vs_majority", "ci_low", "Example:"):
        assert key in flat


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        # the first problem by line wins, whatever kind it is
        (
            "id,ann,bob\n1,1,2\n2,1,2\n1,1,2\n4,3,x\n",
            ["--unit", "id", "--ordinal"],
            "line 4, field 'id': unit '1' appears twice (first on line 2)",
        ),
        (
            "id,ann,bob\n1,1,2\n2,x,3\n1,1,2\n",
            ["--unit", "id", "--ordinal"],
            "line 3, field 'ann': this scale needs numbers",
        ),
        # a repeated unit whose labels are bad too: the repeat (checked first on a row)
        ("id,ann,bob\n1,1,2\n1,x,2\n", ["--unit", "id", "--ordinal"], "line 3, field 'id'"),
        # a missing column beats any row's problem, even an earlier one
        ("id,ann,bob\n1,3,x\n1,2,2\n", ["--unit", "id", "--ordinal", "--by", "zz"], "no column"),
        # a later broken line is still reported (the file is read to its end)
        ('{"id": 1, "ann": "x", "bob": 2}\n{"id": \n', ["--unit", "id", "--ordinal"], "line 2"),
        # many ids, one repeat far apart
        (
            "id,ann,bob\n" + "".join(f"u{i},A,B\n" for i in range(500)) + "u7,A,A\n",
            ["--unit", "id"],
            "line 502, field 'id': unit 'u7' appears twice (first on line 9)",
        ),
    ],
)
def test_the_first_problem_is_reported(
    tmp_path: Path, content: str, args: list[str], message: str
) -> None:
    """The label file is read in one pass, a row at a time; the message is still the one a
    whole-file read gives: missing columns first, then the first bad row by line."""
    path = tmp_path / ("x.jsonl" if content.startswith("{") else "x.csv")
    path.write_text(content, encoding="utf-8")
    r = runner.invoke(app, ["agreement", str(path), "-r", "ann,bob", *args])
    assert r.exit_code == 1, r.output
    assert message in r.output, r.output


def test_a_label_file_is_read_a_row_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most a couple of the file's records are alive at once while a table is read, and the
    table keeps one shared object per distinct label (no list per row)."""
    import gc
    import weakref

    from medjudge.judging.stats import label_file

    rows = _labels(n=3000)
    path = _write_csv(tmp_path / "l.csv", rows)
    alive: list[weakref.ref[object]] = []
    most = 0
    real = read_csv  # what label_file reads a CSV with

    def counting(p: Path):  # type: ignore[no-untyped-def]
        nonlocal most
        for rec in real(p):
            alive[:] = [*alive[-20:], weakref.ref(rec)]
            most = max(most, sum(r() is not None for r in alive))
            yield rec

    monkeypatch.setattr(label_file, "read_csv", counting)
    gc.collect()
    before = len(gc.get_objects())
    table = label_file.read_label_table(path, RATERS, unit="id", by="batch")
    gc.collect()
    assert table.n_units == 3000 and most <= 2
    assert len(gc.get_objects()) - before < 300
    assert [c[5] for c in table.columns] == [rows[5][r] or None for r in RATERS]
    assert table.groups[0] == "b1" and table.groups[-1] == "b2"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_csv_line_endings_read_alike(tmp_path: Path, newline: str) -> None:
    """LF, CR LF and old CR-only files give the same figures; a quoted cell may hold a newline."""
    text = newline.join(["id,ann,bob", "1,A,B", '2,"A",A', "3,B,B", '4,A,"B"']) + newline
    path = tmp_path / "e.csv"
    path.write_bytes(text.encode())
    r = runner.invoke(app, ["agreement", str(path), "-r", "ann,bob", "--unit", "id", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["slices"][0]["n_rows"] == 4
    bad = tmp_path / "q.csv"
    bad.write_bytes(f'id,ann,bob{newline}1,A,"B{newline}B"{newline}1,A,B{newline}'.encode())
    r = runner.invoke(app, ["agreement", str(bad), "-r", "ann,bob", "--unit", "id"])
    assert r.exit_code == 1 and "q.csv, line 4, field 'id': unit '1' appears twice" in r.output


BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
CHILD_BLAS = """
import sys
from medjudge.cli import main
sys.argv = ["medjudge", "agreement", sys.argv[1], "-r", "ann,bob", "--n-boot", "200"]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
import threadpoolctl
print("BLAS", max(p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"))
"""


@pytest.mark.parametrize(("preset", "expected"), [(None, "1"), ("2", "2")])
def test_the_command_line_gives_numpy_one_blas_thread_unless_told(
    tmp_path: Path, preset: str | None, expected: str
) -> None:
    # A BLAS thread per core only spins on these small matrices (1.3x the CPU at 10,000
    # units); the entry point sets the count before numpy loads, a user's own setting wins.
    import os
    import subprocess
    import sys

    pytest.importorskip("threadpoolctl")
    path = _write_csv(tmp_path / "labels.csv", _labels())
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_BLAS, str(path)], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == f"BLAS {expected}"
