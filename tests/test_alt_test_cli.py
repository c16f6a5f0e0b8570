"""``medjudge agreement --alt-test RATER`` and ``--alt-test-plan``, run as a user would."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.stats.alt_test import alt_test

runner = CliRunner()
COLUMNS = ["dr1", "dr2", "dr3", "gpt"]


def _write(path: Path, n: int = 60, numeric: bool = False, seed: int = 3) -> Path:
    rnd = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", *COLUMNS])
        for i in range(n):
            row: list[object]
            if numeric:
                score = rnd.randint(1, 5)
                row = [min(5, max(1, score + rnd.choice([-1, 0, 0, 1]))) for _ in COLUMNS]
            else:
                truth = rnd.choice("ABC")
                row = [truth if rnd.random() < 0.75 else rnd.choice("ABC") for _ in COLUMNS]
            w.writerow([f"u{i}", *row])
    return path


def _rows(path: Path, numeric: bool = False) -> list[list[object]]:
    with path.open(encoding="utf-8") as fh:
        return [[int(r[c]) if numeric else r[c] for c in COLUMNS] for r in csv.DictReader(fh)]


def test_alt_test_in_text_and_json(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv")
    args = ["agreement", str(path), "-r", ",".join(COLUMNS), "--unit", "id", "--alt-test", "gpt"]
    r = runner.invoke(app, [*args, "--json", "--epsilon", "0.15", "--fdr-q", "0.1"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["alt_test"]
    want = alt_test(_rows(path), COLUMNS, "gpt", epsilon=0.15, q=0.1).to_dict()
    assert got == want
    assert got["scoring"] == "accuracy" and [p["name"] for p in got["physicians"]] == COLUMNS[:3]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    text = r.stdout[r.stdout.index("alternative annotator test") :]
    assert "judge gpt vs physicians dr1, dr2, dr3" in text
    assert "scoring: accuracy, the share of equal labels (nominal scale)" in text
    result = alt_test(_rows(path), COLUMNS, "gpt")
    assert result.winning_rate is not None and result.advantage_probability is not None
    assert f"winning rate ω = {result.winning_rate:.2f}" in text
    assert f"advantage probability ρ = {result.advantage_probability:.3f}" in text
    assert ("the judge passes" if result.passed else "the judge fails") in text
    for p in result.physicians:
        assert p.p is not None and f"{p.p:.4g}" in text


def test_ordinal_scale_scores_by_negative_rmse(tmp_path: Path) -> None:
    path = _write(tmp_path / "ratings.csv", numeric=True)
    args = ["agreement", str(path), "-r", ",".join(COLUMNS), "--alt-test", "gpt"]
    r = runner.invoke(app, [*args, "--scale", "ordinal", "--json", "--min-items", "20"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["alt_test"]
    assert got["scoring"] == "neg_rmse"
    assert (
        got
        == alt_test(_rows(path, True), COLUMNS, "gpt", scoring="neg_rmse", min_items=20).to_dict()
    )
    r = runner.invoke(app, [*args, "--scale", "interval"])
    assert "scoring: −RMSE, minus the root mean squared difference (interval scale)" in r.stdout


def test_not_computed_is_said_never_a_number(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv", n=20)
    args = ["agreement", str(path), "-r", ",".join(COLUMNS), "--alt-test", "gpt"]
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)["alt_test"]
    assert got["passed"] is None and got["winning_rate"] is None
    assert got["reason"] == "only 0 physicians with at least 30 usable items (the alt-test needs 3)"
    r = runner.invoke(app, args)
    assert "excluded: 20 usable items, fewer than the minimum of 30" in r.stdout
    assert "not computed: only 0 physicians" in r.stdout
    r = runner.invoke(app, ["agreement", str(path), "-r", "dr1,dr2,gpt", "--alt-test", "gpt"])
    assert "not computed: needs at least 3 physicians besides the judge (got 2)" in r.stdout


def test_bad_input_is_one_line_naming_the_column(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.csv")
    raters = ",".join(COLUMNS)
    for args, message in (
        (["-r", raters, "--alt-test", "gtp"], "--alt-test 'gtp': not one of --raters (dr1, dr2, dr3, gpt)"),
        (["-r", "dr1,dr2,dr3,llm", "--alt-test", "llm"], "no column 'llm'"),
        (["-r", raters, "--alt-test", "gpt", "--epsilon", "1"], "epsilon 1.0: use a margin in [0, 1)"),
        (["-r", raters, "--alt-test", "gpt", "--sets", "--categories", "A,B"], "--alt-test does not go with --sets"),
        (["-r", raters, "--alt-test-plan"], "--alt-test-plan with a file needs --alt-test RATER"),
    ):  # fmt: skip
        r = runner.invoke(app, ["agreement", str(path), *args])
        assert r.exit_code == 1, (args, r.output)
        assert message in r.output and "Traceback" not in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output
    for args in (["--min-items", "1"], ["--fdr-q", "2"]):
        r = runner.invoke(app, ["agreement", str(path), "-r", raters, "--alt-test", "gpt", *args])
        assert r.exit_code == 2 and args[0] in r.output, r.output
    r = runner.invoke(app, ["agreement", "-r", raters])
    assert r.exit_code == 2 and "FILE" in r.output


def test_plan_before_a_study() -> None:
    args = ["agreement", "--alt-test-plan", "--categories", "A,B,tie", "--physician-agreement"]
    args += ["0.7", "--judge-agreement", "0.7", "--plan-items", "30,60", "--sims", "200"]
    r = runner.invoke(app, [*args, "--json", "--seed", "4"])
    assert r.exit_code == 0, r.output
    plan = json.loads(r.stdout)
    assert plan["source"] == "options" and plan["n_physicians"] == 3 and plan["n_sims"] == 200
    assert [p["n_items"] for p in plan["points"]] == [30, 60]
    assert plan["label_shares"] == [1 / 3, 1 / 3, 1 / 3]
    again = runner.invoke(app, [*args, "--json", "--seed", "4"])
    assert json.loads(again.stdout) == plan, "seeded: the same plan"
    r = runner.invoke(app, [*args, "--seed", "4"])
    assert r.exit_code == 0, r.output
    assert "items  P(pass)  mean ω  mean ρ" in r.stdout
    assert f"{plan['points'][1]['pass_probability']:.3f}" in r.stdout
    r = runner.invoke(app, ["agreement", "--alt-test-plan", "--physician-agreement", "0.7"])
    assert r.exit_code == 1 and "needs --judge-agreement" in r.output
    r = runner.invoke(app, [*args, "--judge-agreement", "0.99"])
    assert r.exit_code == 1 and "judge agreement 0.99: between chance" in r.output


def test_plan_from_a_pilot_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "pilot.csv")
    args = ["agreement", str(path), "-r", ",".join(COLUMNS), "--alt-test", "gpt"]
    args += ["--alt-test-plan", "--plan-items", "40", "--sims", "100", "--json"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    plan = json.loads(r.stdout)
    rows = _rows(path)
    pairs = [(a, b) for row in rows for k, a in enumerate(row[:3]) for b in row[k + 1 : 3]]
    assert plan["physician_agreement"] == sum(a == b for a, b in pairs) / len(pairs)
    judged = [(row[3], x) for row in rows for x in row[:3]]
    assert plan["judge_agreement"] == sum(a == b for a, b in judged) / len(judged)
    assert plan["source"].endswith("(labels A, B, C)") and plan["n_physicians"] == 3
    r = runner.invoke(app, [*args, "--physicians", "5"])
    assert json.loads(r.stdout)["n_physicians"] == 5, "an option wins over the pilot's figure"
