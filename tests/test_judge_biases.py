"""Judge biases beside the physicians', end to end through the real CLI: a 240-item
pairwise study whose answers have random lengths, a judge that prefers longer answers and its
own model family (model-x) far more than the physician does, and one physician's labels on 150
items. The figures equal statsmodels' Wilson intervals and HC1 least-squares slope on the same
vectors; the judge is flagged; ``settings --judge-family`` is stored, shown and used; the
"Judge biases" table is in every format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import pairwise_row, write_jsonl
from .support.reference import Reference
from .support.reference_calls import ols_hc1, wilson

cli = CliRunner()
N = 240
LABELLED = 150


def _invoke(*args: str) -> Any:
    r = cli.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r


def _verdict(rng: np.random.Generator, p_a: float, tie: float) -> str:
    u = rng.random()
    if u < tie:
        return "tie"
    return "A" if rng.random() < min(max(p_a, 0.02), 0.98) else "B"


def _facts(seed: int = 9) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    words_a = rng.integers(20, 400, size=N)
    words_b = rng.integers(20, 400, size=N)
    words_b[:12] = words_a[:12]  # a few answers of equal length
    x_is_a = np.arange(N) % 2 == 0  # model-x answers A on even items, B on odd ones
    physician, judge = [], []
    for i in range(N):
        d = (words_a[i] - words_b[i]) / 100
        own = 0.15 if x_is_a[i] else -0.15
        physician.append(_verdict(rng, 0.5 + 0.03 * d, 0.1))
        judge.append(_verdict(rng, 0.5 + 0.2 * d + own, 0.05))
    return {
        "words_a": words_a,
        "words_b": words_b,
        "x_is_a": x_is_a,
        "physician": physician,
        "judge": judge,
    }


def _row(i: int, f: dict[str, Any], **labels: Any) -> dict[str, Any]:
    a, b = ("model-x", "model-y") if f["x_is_a"][i] else ("model-y", "model-x")
    return pairwise_row(
        i,
        answer_a=" ".join(["word"] * int(f["words_a"][i])),
        answer_b=" ".join(["word"] * int(f["words_b"][i])),
        source_a=a,
        source_b=b,
        **labels,
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("biases")
    db = tmp / "biases.db"
    _invoke("init", str(db), "--name", "Biases", "-c", "overall:benefit:Which is better?")
    f = _facts()
    rows = [_row(i, f, judge_labels={"judge-x": {"overall": f["judge"][i]}}) for i in range(N)]
    _invoke("import", str(db), str(write_jsonl(tmp / "j.jsonl", rows)), "-k", "pairwise")
    rows = [
        _row(i, f, human_labels={"drchen": {"overall": f["physician"][i]}}) for i in range(LABELLED)
    ]
    _invoke("import", str(db), str(write_jsonl(tmp / "d.jsonl", rows)), "-k", "pairwise")
    return db, f


def _length_vectors(f: dict[str, Any], verdicts: list[str]) -> tuple[int, int, Any, Any]:
    """(longer wins, decisive on different lengths), and the slope's x and y, over the
    labelled items."""
    longer = decisive = 0
    xs, ys = [], []
    for i in range(LABELLED):
        v = verdicts[i]
        if v not in ("A", "B"):
            continue
        wa, wb = int(f["words_a"][i]), int(f["words_b"][i])
        xs.append((wa - wb) / 100)
        ys.append(float(v == "A"))
        if wa != wb:
            decisive += 1
            longer += (v == "A") == (wa > wb)
    return longer, decisive, np.array(xs), np.array(ys)


def _biases(db: Path, *extra: str) -> dict[tuple[str, str], Any]:
    report = json.loads(_invoke("report", str(db), "-f", "json", "--n-boot", "100", *extra).stdout)
    return {(b["judge_version"], b["bias"]): b for b in report["judges"]["biases"]}


def test_length_bias_beside_the_physicians(study: Any, reference: Reference) -> None:
    db, f = study
    got = _biases(db)
    row = got[("judge-x", "longer_answer_wins")]
    assert row["criterion"] == "overall" and row["units"] == LABELLED  # the labelled items
    for who, verdicts in (("judge", f["judge"]), ("physicians", f["physician"])):
        longer, decisive, _, _ = _length_vectors(f, verdicts)
        fig = row[who]
        assert (fig["value"], fig["n"]) == (pytest.approx(longer / decisive), decisive)
        assert (fig["ci_low"], fig["ci_high"]) == pytest.approx(reference(wilson, longer, decisive))
    equal = sum(
        1 for i in range(12) if f["judge"][i] in ("A", "B")
    )  # equal lengths among the decisive verdicts
    assert row["note"] == f"{equal} decisive verdict(s) on answers of equal length left out"
    assert row["flagged"] is True
    assert row["judge"]["ci_low"] > row["physicians"]["value"]
    slope = got[("judge-x", "per_100_words")]
    for who, verdicts in (("judge", f["judge"]), ("physicians", f["physician"])):
        _, _, x, y = _length_vectors(f, verdicts)
        fit = reference(ols_hc1, y, x, alpha=0.05)
        fig = slope[who]
        assert fig["value"] == pytest.approx(fit["slope"], abs=1e-9)
        assert fig["se"] == pytest.approx(fit["se"], abs=1e-9)
        assert (fig["ci_low"], fig["ci_high"]) == pytest.approx(
            (fit["ci_low"], fit["ci_high"]), abs=1e-9
        )
        assert fig["n"] == y.size
    assert slope["flagged"] is True
    assert ("judge-x", "self_preference") not in got  # no family declared yet


def test_self_preference_needs_a_declared_family(
    study: Any, tmp_path: Path, reference: Reference
) -> None:
    db, f = study
    mine = tmp_path / "copy.db"
    mine.write_bytes(db.read_bytes())
    out = _invoke("settings", str(mine)).stdout
    assert "judge families: none (settings --judge-family VERSION=SOURCE)" in out
    out = _invoke("settings", str(mine), "--judge-family", "judge-x=model-x").stdout
    assert "judge family: judge-x belongs to model-x" in out
    row = _biases(mine)[("judge-x", "self_preference")]
    assert row["family"] == "model-x" and row["units"] == LABELLED

    def wins(verdicts: list[str]) -> int:
        return sum(
            (verdicts[i] == "A") == bool(f["x_is_a"][i]) and verdicts[i] in ("A", "B")
            for i in range(LABELLED)
        )

    for who, verdicts in (("judge", f["judge"]), ("physicians", f["physician"])):
        fig = row[who]
        assert fig["value"] == pytest.approx(wins(verdicts) / LABELLED)
        assert (fig["ci_low"], fig["ci_high"]) == pytest.approx(
            reference(wilson, wins(verdicts), LABELLED)
        )
    assert row["flagged"] is True
    # every format shows the table
    md = _invoke("report", str(mine), "--n-boot", "100").stdout
    assert "### Judge biases" in md
    line = next(x for x in md.splitlines() if "self-preference: model-x wins" in x)
    assert "biased: favours its own family's source (model-x) more than the physicians" in line
    html = _invoke("report", str(mine), "-f", "html", "--n-boot", "100").stdout
    assert "Judge biases" in html and "longer answer wins" in html
    rows = list(csv.DictReader(io.StringIO(_invoke("report", str(mine), "-f", "csv").stdout)))
    flags = {
        r["metric"]: r["value"]
        for r in rows
        if r["section"] == "judge_bias" and r["metric"].endswith(":flagged")
    }
    assert flags == {
        "longer_answer_wins:flagged": "1",
        "per_100_words:flagged": "1",
        "self_preference:flagged": "1",
    }
    # removing the family removes the figure
    out = _invoke("settings", str(mine), "--judge-family", "judge-x=").stdout
    assert "judge families: none" in out
    assert ("judge-x", "self_preference") not in _biases(mine)


def test_a_bad_family_spec_names_the_option(study: Any) -> None:
    db, _ = study
    r = cli.invoke(app, ["settings", str(db), "--judge-family", "judge-x"])
    assert r.exit_code != 0 and "--judge-family 'judge-x': write VERSION=SOURCE" in r.output


def test_without_reference_labels_the_judge_stands_alone(tmp_path: Path) -> None:
    db = tmp_path / "alone.db"
    _invoke("init", str(db), "-c", "overall:benefit:Which is better?")
    f = _facts(3)
    rows = [_row(i, f, judge_labels={"judge-x": {"overall": f["judge"][i]}}) for i in range(40)]
    _invoke("import", str(db), str(write_jsonl(tmp_path / "j.jsonl", rows)), "-k", "pairwise")
    row = _biases(db)[("judge-x", "longer_answer_wins")]
    assert row["physicians"] is None and row["flagged"] is False and row["units"] == 40
    md = _invoke("report", str(db), "--n-boot", "100").stdout
    line = next(x for x in md.splitlines() if "| longer answer wins |" in x)
    assert "no reference label" in line


def _small_study(tmp_path: Path, n: int, judge: list[str], physician: list[str]) -> Path:
    """n items (lengths from _facts(4)), the judge's and the physician's verdict on each."""
    db = tmp_path / f"small{n}.db"
    _invoke("init", str(db), "-c", "overall:benefit:Which is better?")
    f = _facts(4)
    rows = [
        _row(
            i,
            f,
            judge_labels={"judge-x": {"overall": judge[i]}},
            human_labels={"drchen": {"overall": physician[i]}},
        )
        for i in range(n)
    ]
    _invoke("import", str(db), str(write_jsonl(tmp_path / "s.jsonl", rows)), "-k", "pairwise")
    return db


def _longer(f: dict[str, Any], i: int) -> str:
    return "A" if f["words_a"][i] > f["words_b"][i] else "B"


def test_no_flag_and_no_slope_from_a_few_units(tmp_path: Path) -> None:
    """One decisive verdict used to flag "longer answer wins"; six units gave a slope of
    482 percentage points per 100 words."""
    f = _facts(4)
    n = 6
    judge = [_longer(f, i) if i == 0 else "tie" for i in range(n)]
    physician = ["B" if _longer(f, i) == "A" else "A" for i in range(n)]
    b = _biases(_small_study(tmp_path, n, judge, physician))
    longer = b[("judge-x", "longer_answer_wins")]
    assert longer["flagged"] is False and longer["direction"] is None
    assert "not flagged" in (longer["note"] or "") or longer["judge"]["ci_low"] is None
    slope = b[("judge-x", "per_100_words")]
    assert slope["judge"]["value"] is None
    assert slope["judge"]["reason"].startswith("not computed: 1 decisive verdict(s)")
    assert slope["flagged"] is False


def test_a_flag_says_its_direction_and_needs_both_intervals(tmp_path: Path) -> None:
    """60 items: the judge picks the longer answer every time, the physician the shorter:
    flagged "favours the longer answer more than the physicians"; the reverse says "less"."""
    f = _facts(4)
    n = 60
    decisive = [i for i in range(n) if f["words_a"][i] != f["words_b"][i]]
    longer = [_longer(f, i) for i in range(n)]
    shorter = ["B" if v == "A" else "A" for v in longer]
    b = _biases(_small_study(tmp_path, n, longer, shorter))
    row = b[("judge-x", "longer_answer_wins")]
    assert row["judge"]["value"] == pytest.approx(1.0)
    assert row["physicians"]["value"] == pytest.approx(0.0)
    assert row["flagged"] is True and row["units"] == n
    assert row["direction"] == "favours the longer answer more than the physicians"
    assert len(decisive) >= 20
    other = tmp_path / "reverse"
    other.mkdir()
    b = _biases(_small_study(other, n, shorter, longer))
    assert b[("judge-x", "longer_answer_wins")]["direction"] == (
        "favours the longer answer less than the physicians"
    )


def test_self_preference_is_not_flagged_when_the_judge_favours_its_family_less(
    tmp_path: Path,
) -> None:
    f = _facts(4)
    n = 60
    x_wins = ["A" if f["x_is_a"][i] else "B" for i in range(n)]
    y_wins = ["B" if v == "A" else "A" for v in x_wins]
    db = _small_study(tmp_path, n, y_wins, x_wins)
    _invoke("settings", str(db), "--judge-family", "judge-x=model-x")
    row = _biases(db)[("judge-x", "self_preference")]
    assert row["judge"]["value"] == pytest.approx(0.0)
    assert row["physicians"]["value"] == pytest.approx(1.0)
    assert row["flagged"] is False and row["direction"] is None
    assert row["note"] == (
        "favours its own family's source (model-x) less than the physicians: not self-preference"
    )
