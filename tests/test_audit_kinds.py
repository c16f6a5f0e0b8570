"""Corrected figures per answer for the rating, match and rubric kinds, end to end through
the real CLI: per kind a study of 160 answers by two models, a lenient judge on every answer
and one physician on a random sample of 60 answers (``assign --sample 60 --seed 11``). Each
model's corrected mean and its interval equal ppi_py's on the same vectors; the difference
between the two models (different answers: independent estimates) is the difference of
ppi_py's estimates with ``√(se_A² + se_B²)``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.kinds.rubric import score as rubric_score

from .support.corrected import corrected
from .support.kind_rows import match_row, rating_row, rubric_row, write_jsonl
from .support.reference import Reference

cli = CliRunner()
N = 160
SAMPLE = 60
RUBRIC_POINTS = (8.0, 5.0, -6.0)


def _invoke(*args: str) -> Any:
    r = cli.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r


def _source(i: int) -> str:
    return "model-x" if i % 2 else "model-y"


def _rating(rng: np.random.Generator) -> tuple[Any, Any]:
    truth = rng.integers(1, 6, size=N) - (np.arange(N) % 2)  # model-x rated a point lower
    truth = np.clip(truth, 1, 5)
    judge = np.clip(truth + rng.choice([0, 1, 2], size=N, p=[0.4, 0.4, 0.2]), 1, 5)
    return truth, judge


def _rating_labels(i: int, rater: str, value: Any, judge: bool) -> list[dict[str, Any]]:
    label: dict[str, Any] = {"rater": rater, "criterion": "correctness_rating", "value": int(value)}
    if judge:
        label["type"] = "judge"
    return [label]


def _rating_row(i: int) -> dict[str, Any]:
    return {**rating_row(i), "source": _source(i)}


def _match(rng: np.random.Generator) -> tuple[Any, Any]:
    truth = rng.choice([0.0, 0.5, 1.0], size=N, p=[0.4, 0.2, 0.4])
    judge = np.where(rng.random(N) < 0.4, 1.0, truth)  # credits too much
    return truth, judge


def _match_labels(i: int, rater: str, value: Any, judge: bool) -> list[dict[str, Any]]:
    label: dict[str, Any] = {"rater": rater, "criterion": "match", "value": f"{value:g}"}
    if judge:
        label["type"] = "judge"
    return [label]


def _match_row(i: int) -> dict[str, Any]:
    return {**match_row(i), "source": _source(i)}


def _rubric(rng: np.random.Generator) -> tuple[Any, Any]:
    truth = rng.random((N, 3)) < [0.6, 0.4, 0.2]
    judge = np.where(rng.random((N, 3)) < 0.3, [True, True, False], truth)
    return truth, judge


def _rubric_labels(i: int, rater: str, value: Any, judge: bool) -> list[dict[str, Any]]:
    out = []
    for pos, met in enumerate(value):
        label: dict[str, Any] = {"rater": rater, "rubric": pos, "value": "met" if met else "no"}
        if judge:
            label["type"] = "judge"
        out.append(label)
    return out


def _rubric_row(i: int) -> dict[str, Any]:
    return {**rubric_row(i), "source": _source(i)}


def _rubric_value(marks: Any) -> float:
    marked = zip(marks, RUBRIC_POINTS, strict=True)
    got = rubric_score([("met" if m else "not_met", p) for m, p in marked])
    assert got is not None
    return got


KINDS: dict[str, tuple[Callable[..., Any], ...]] = {
    # kind: (truth and judge, labels, row, the figure of one answer's labels)
    "rating": (_rating, _rating_labels, _rating_row, float),
    "match": (_match, _match_labels, _match_row, float),
    "rubric": (_rubric, _rubric_labels, _rubric_row, _rubric_value),
}
CRITERION = {"rating": "correctness_rating", "match": "match", "rubric": "rubric"}
METRIC = {"rating": "mean_score", "match": "mean_score", "rubric": "rubric_score"}


def build(tmp_path: Path, kind: str) -> tuple[Path, Any, Any, set[int]]:
    """The study; the truth and the judge per answer; the sampled answers' numbers."""
    make, labels, row, _ = KINDS[kind]
    db = tmp_path / f"{kind}.db"
    _invoke("init", str(db), "--name", f"Audit {kind}")
    truth, judge = make(np.random.default_rng(11))
    rows = [{**row(i), "labels": labels(i, "judge-j", judge[i], True)} for i in range(N)]
    _invoke("import", str(db), str(write_jsonl(tmp_path / "j.jsonl", rows)), "-k", kind)
    _invoke("assign", str(db), "drchen", "--sample", str(SAMPLE), "--seed", "11")
    out = _invoke("export", str(db), "assignments").stdout
    ids = {json.loads(line)["item"] for line in out.splitlines()}
    sampled = {i for i in range(N) if row(i)["id"] in ids}
    assert len(sampled) == SAMPLE
    physician = [
        {**row(i), "labels": labels(i, "drchen", truth[i], False)} for i in sorted(sampled)
    ]
    _invoke("import", str(db), str(write_jsonl(tmp_path / "d.jsonl", physician)), "-k", kind)
    return db, truth, judge, sampled


@pytest.mark.parametrize("kind", ["rating", "match", "rubric"])
def test_corrected_means_per_answer_equal_ppi_py(
    tmp_path: Path, kind: str, reference: Reference
) -> None:
    db, truth, judge, sampled = build(tmp_path, kind)
    of = KINDS[kind][3]
    report = json.loads(_invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    crit = next(c for c in report["audit"]["criteria"] if c["criterion"] == CRITERION[kind])
    assert crit["withheld"] is None and crit["judge"] == "judge-j" and crit["unit"] == "answers"
    assert (crit["population"], crit["sampled"], crit["labelled"]) == (N, SAMPLE, SAMPLE)
    rows = {(r["source"], r["metric"]): r for r in crit["means"]}
    assert set(rows) == {("model-x", METRIC[kind]), ("model-y", METRIC[kind])}
    vectors = {}
    bounds: dict[str, tuple[float, float]] = {}
    wanted = {}
    for source, parity in (("model-x", 1), ("model-y", 0)):
        ids = [i for i in range(N) if i % 2 == parity]
        y = np.array([of(truth[i]) for i in ids if i in sampled])
        yhat = np.array([of(judge[i]) for i in ids if i in sampled])
        unl = np.array([of(judge[i]) for i in ids if i not in sampled])
        vectors[source] = (y, yhat, unl)
        # a rubric score is a share of points; a scale's range is the labels seen
        seen = np.concatenate([y, yhat, unl])
        bounds[source] = (0.0, 1.0) if kind == "rubric" else (seen.min(), seen.max())
        want = corrected(reference, y, yhat, unl, low=bounds[source][0], high=bounds[source][1])
        wanted[source] = want
        got = rows[(source, METRIC[kind])]
        assert got["answers"] == len(ids)
        c = got["figures"]["corrected"]
        assert c["value"] == pytest.approx(want.value, abs=1e-6)
        assert (c["ci_low"], c["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-6)
        assert (c["n_labelled"], c["n_judge_only"]) == (y.size, unl.size)
        assert got["figures"]["physicians_only"]["value"] == pytest.approx(y.mean())
        assert got["figures"]["physicians_only"]["n"] == y.size
        whole = np.concatenate([yhat, unl])
        assert got["figures"]["judge_only"]["value"] == pytest.approx(whole.mean())
        assert got["figures"]["judge_only"]["n"] == len(ids)
    # the lenient judge scores model-x above the physicians
    x = rows[("model-x", METRIC[kind])]["figures"]
    assert x["judge_only"]["value"] > x["physicians_only"]["value"]
    # model-x minus model-y: independent estimates, Newcombe's MOVER interval from the two
    (diff,) = crit["mean_differences"]
    assert (diff["source_a"], diff["source_b"], diff["metric"]) == (
        "model-x",
        "model-y",
        METRIC[kind],
    )
    # both sides on the range of every value seen
    seen = np.concatenate([v for s in ("model-x", "model-y") for v in vectors[s]])
    low, high = (0.0, 1.0) if kind == "rubric" else (seen.min(), seen.max())
    x, y_ = (corrected(reference, *vectors[s], low=low, high=high) for s in ("model-x", "model-y"))
    d = diff["figures"]["corrected"]
    assert d["value"] == pytest.approx(x.value - y_.value, abs=1e-6)
    assert d["ci_low"] == pytest.approx(
        x.value - y_.value - np.hypot(x.value - x.ci_low, y_.ci_high - y_.value), abs=1e-6
    )
    assert d["ci_high"] == pytest.approx(
        x.value - y_.value + np.hypot(x.ci_high - x.value, y_.value - y_.ci_low), abs=1e-6
    )
    assert d["labels_needed"] is not None or d["labels_needed_note"].startswith("not reachable")
    md = _invoke("report", str(db), "--n-boot", "100").stdout
    assert "| Criterion | Models (A − B) | Figure per answer | Answers | Judge only |" in md
    assert f"| {CRITERION[kind]} | model-x − model-y | {METRIC[kind]} |" in md
    assert f"{CRITERION[kind]}: judge judge-j; {N} answers in the sampled frame" in md


def test_labels_needed_for_a_difference_of_two_models(tmp_path: Path) -> None:
    """Labels needed for the difference: the further labels, split between the models in
    proportion to their unlabelled answers, whose planned half-width reaches the target."""
    from medjudge.judging.stats.ppi_bounded import bounded_ppi_mean, planned_halfwidths

    db, truth, judge, sampled = build(tmp_path, "rating")
    vec: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for source, parity in (("model-x", 1), ("model-y", 0)):
        ids = [i for i in range(N) if i % 2 == parity]
        truth_s, judge_s, judge_rest = (
            np.array([float(v[i]) for i in ids if (i in sampled) == lab])
            for v, lab in ((truth, True), (judge, True), (judge, False))
        )
        vec[source] = (truth_s, judge_s, judge_rest)
    seen = np.concatenate([v for s in ("model-x", "model-y") for v in vec[s]])
    low, high = seen.min(), seen.max()
    wx, wy = (
        bounded_ppi_mean(*vec[s], low=low, high=high).halfwidth for s in ("model-x", "model-y")
    )
    now = float(np.hypot(wx, wy))
    hx, hy = (planned_halfwidths(*vec[s], low=low, high=high) for s in ("model-x", "model-y"))
    # a target between the interval now and the plan with every answer labelled
    target = round(float(np.hypot(hx[-1], hy[-1]) + now) / 2, 4)
    assert np.hypot(hx[-1], hy[-1]) < target < now
    args = ("report", str(db), "-f", "json", "--n-boot", "100", "--target-halfwidth", str(target))
    report = json.loads(_invoke(*args).stdout)
    crit = next(c for c in report["audit"]["criteria"] if c["criterion"] == "correctness_rating")
    d = crit["mean_differences"][0]["figures"]["corrected"]
    k = d["labels_needed"]
    assert k is not None and k > 0
    # by hand: with k more labels, k·Nx/(Nx+Ny) fall to model-x; the planned half-widths of
    # the two sides combine as the MOVER interval combines them
    nx, ny = hx.size - 1, hy.size - 1
    kx = round(k * nx / (nx + ny))
    assert np.hypot(hx[kx], hy[k - kx]) <= target
    kx = round((k - 1) * nx / (nx + ny))
    assert k == 1 or np.hypot(hx[kx], hy[k - 1 - kx]) > target


def test_option_sets_are_withheld_with_why(tmp_path: Path) -> None:
    db, *_ = build(tmp_path, "rating")
    labels = [{"rater": "judge-j", "type": "judge", "criterion": "completeness", "value": ["A"]}]
    rows = [{**_rating_row(i), "labels": labels} for i in range(N)]
    _invoke("import", str(db), str(write_jsonl(tmp_path / "c.jsonl", rows)), "-k", "rating")
    report = json.loads(_invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    by_name = {c["criterion"]: c for c in report["audit"]["criteria"]}
    assert by_name["completeness"]["withheld"] == (
        "not computed: its labels are not numbers (an option set)"
    )
    assert by_name["correctness_rating"]["withheld"] is None
