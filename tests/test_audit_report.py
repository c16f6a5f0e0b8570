"""Corrected figures in the report, end to end through the real CLI: a 300-item pairwise
study with a biased judge's verdict on every item and one physician's labels on a random sample
of 80 drawn by ``assign --sample 80 --seed 7``. The report's corrected win share of a model and
its interval equal ppi_py's on the same vectors; labels needed are in every format."""

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

from .support.audit import N_ITEMS, build, invoke
from .support.corrected import corrected
from .support.kind_rows import pairwise_row, write_jsonl
from .support.reference import Reference

cli = CliRunner()


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[str], set[str]]:
    return build(tmp_path_factory.mktemp("audit"))


def _vectors(
    values_truth: list[str], values_judge: list[str], sampled: set[str], of: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = [f"p{i}" for i in range(N_ITEMS)]
    lab = [i for i, x in enumerate(ids) if x in sampled]
    rest = [i for i, x in enumerate(ids) if x not in sampled]
    y = np.array([of(values_truth[i]) for i in lab], dtype=float)
    yhat = np.array([of(values_judge[i]) for i in lab], dtype=float)
    unl = np.array([of(values_judge[i]) for i in rest], dtype=float)
    return y, yhat, unl


def test_corrected_win_share_equals_ppi_py(study: Any, reference: Reference) -> None:
    db, truth, judge, sampled = study
    report = json.loads(invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    audit = report["audit"]
    assert [s["size"] for s in audit["samples"]] == [80]
    assert audit["samples"][0]["seed"] == 7 and audit["samples"][0]["frame_size"] == N_ITEMS
    (crit,) = audit["criteria"]
    assert crit["withheld"] is None and crit["judge"] == "judge-x"
    assert (crit["population"], crit["sampled"], crit["labelled"]) == (300, 80, 80)
    by_source = {s["source"]: s for s in crit["sources"]}
    # model-x is answer A: it wins where the verdict is A, loses where it is B
    for source, outcome, verdict in (
        ("model-x", "win", "A"),
        ("model-x", "loss", "B"),
        ("model-y", "win", "B"),
        ("model-x", "tie", "tie"),
    ):
        y, yhat, unl = _vectors(truth, judge, sampled, lambda v, w=verdict: v == w)
        got = by_source[source][outcome]
        want = corrected(reference, y, yhat, unl)
        c = got["corrected"]
        assert c["lam"] == pytest.approx(want.lam, abs=1e-9), (source, outcome)
        assert c["value"] == pytest.approx(want.value, abs=1e-6), (source, outcome)
        assert c["ci_low"] == pytest.approx(want.ci_low, abs=1e-6)
        assert c["ci_high"] == pytest.approx(want.ci_high, abs=1e-6)
        assert c["method"] == "ppi_plus_plus"
        assert (c["n_labelled"], c["n_judge_only"], c["n"]) == (80, 220, 300)
        assert got["physicians_only"]["value"] == pytest.approx(y.mean())
        assert got["physicians_only"]["n"] == 80
        assert got["judge_only"]["value"] == pytest.approx(np.concatenate([yhat, unl]).mean())
        assert got["judge_only"]["n"] == 300
        # ±0.05 is out of reach for a share near one half in 300 items: said so, with why
        if c["labels_needed"] is None:
            assert c["labels_needed_note"].startswith("not reachable (all 300 labelled: ±0.0")
        else:
            assert c["labels_needed"] >= 0 and c["labels_needed_note"] is None
    # the judge favours model-x: its judge-only win share is well above the corrected one
    win = by_source["model-x"]["win"]
    assert win["judge_only"]["value"] > win["corrected"]["ci_high"]
    # the paired difference: the corrected mean of the per-item differences, on [-1, 1]
    (diff,) = crit["differences"]
    assert (diff["source_a"], diff["source_b"], diff["units"]) == ("model-x", "model-y", 300)
    y, yhat, unl = _vectors(truth, judge, sampled, lambda v: (v == "A") - (v == "B"))
    want = corrected(reference, y, yhat, unl, low=-1.0, high=1.0)
    d = diff["win_difference"]["corrected"]
    assert d["value"] == pytest.approx(want.value, abs=1e-6)
    assert (d["ci_low"], d["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-6)
    assert audit["target_halfwidth"] == 0.05


def test_labels_needed_in_every_format(study: Any, tmp_path: Path) -> None:
    from medjudge.judging.stats.ppi_bounded import planned_labels

    db, truth, judge, sampled = study
    y, yhat, unl = _vectors(truth, judge, sampled, lambda v: v == "A")
    want = planned_labels(y, yhat, unl, 0.07)
    assert want.more is not None and want.more > 0
    args = ("report", str(db), "--n-boot", "100", "--target-halfwidth", "0.07")
    report = json.loads(invoke(*args, "-f", "json").stdout)
    win = report["audit"]["criteria"][0]["sources"][0]["win"]["corrected"]
    assert win["labels_needed"] == want.more
    assert win["halfwidth_then"] == pytest.approx(want.halfwidth_then)
    md = invoke(*args, "-f", "md").stdout
    assert "## Corrected figures (judge audit)" in md
    assert "Labels needed for ±0.07" in md
    line = next(x for x in md.splitlines() if x.startswith("| overall | model-x | win |"))
    assert line.rstrip(" |").endswith(f"{want.more:,}")
    assert "overall: judge judge-x; 300 units in the sampled frame, 80 sampled, 80 with a " in md
    rows = list(csv.DictReader(io.StringIO(invoke(*args, "-f", "csv").stdout)))
    needed = [
        r
        for r in rows
        if r["section"] == "audit"
        and r["rater_a"] == "labels_needed"
        and r["rater_b"] == "model-x"
        and r["metric"] == "win:halfwidth<=0.07"
    ]
    assert [int(r["value"]) for r in needed] == [want.more]
    corrected = [
        r
        for r in rows
        if r["section"] == "audit" and r["rater_a"] == "corrected" and r["metric"] == "win"
    ]
    assert {r["method"] for r in corrected} == {"ppi_plus_plus"}
    html = invoke(*args, "-f", "html").stdout
    assert 'id="audit"' in html and "Corrected figures (judge audit)" in html


def test_no_sample_no_section(tmp_path: Path) -> None:
    db, *_ = build(tmp_path, sample=False)
    report = json.loads(invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    assert "audit" not in report
    md = invoke("report", str(db), "--n-boot", "100").stdout
    assert "Corrected figures" not in md


def test_samples_from_different_item_sets_are_withheld(tmp_path: Path) -> None:
    db, *_ = build(tmp_path)
    more = [pairwise_row(i, judge_labels={"judge-x": {"overall": "A"}}) for i in range(300, 340)]
    invoke("import", str(db), str(write_jsonl(tmp_path / "more.jsonl", more)), "-k", "pairwise")
    invoke("assign", str(db), "drchen", "--sample", "10", "--seed", "8")
    report = json.loads(invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    (crit,) = report["audit"]["criteria"]
    assert crit["withheld"].startswith("withheld: the reference labels are not a random sample")
    assert crit["sources"] == []
    md = invoke("report", str(db), "--n-boot", "100").stdout
    assert "- overall: withheld: the reference labels are not a random sample" in md


def test_a_bad_target_names_the_option(tmp_path: Path) -> None:
    r = cli.invoke(app, ["report", str(tmp_path / "x.db"), "--target-halfwidth", "0"])
    assert r.exit_code == 2 and "--target-halfwidth" in r.output and "Traceback" not in r.output


def test_model_names_are_shown_literally(tmp_path: Path) -> None:
    """Study text in the section (model names) is escaped like everywhere in the report."""
    db = tmp_path / "h.db"
    invoke("init", str(db), "-c", "overall:benefit:Which is better?")
    hostile = {"source_a": "=HYPERLINK(1)", "source_b": "<script>alert(1)</script>"}
    rows = [
        pairwise_row(
            i,
            **hostile,
            judge_labels={"judge-x": {"overall": "A" if i % 3 else "B"}},
            human_labels={"drchen": {"overall": "A" if i % 2 else "B"}},
        )
        for i in range(40)
    ]
    invoke("import", str(db), str(write_jsonl(tmp_path / "h.jsonl", rows)), "-k", "pairwise")
    invoke("assign", str(db), "drchen", "--sample", "20", "--seed", "1")
    html = invoke("report", str(db), "-f", "html", "--n-boot", "100").stdout
    assert "Corrected figures (judge audit)" in html and "<script>alert" not in html
    out = invoke("report", str(db), "-f", "csv", "--n-boot", "100").stdout
    audit = [r for r in csv.reader(io.StringIO(out)) if r[0] == "audit"]
    assert audit and not any(cell.startswith("=") for r in audit for cell in r)
    assert any(r[4] == "'=HYPERLINK(1)" for r in audit)


def _kqa_study(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """200 statements answers (model-x, model-y), 3 Must_have + 1 Nice_to_have statements each,
    a lenient judge on every statement, a physician on a random sample of 60 answers."""
    from .support.kind_rows import statements_row

    db = tmp_path / "kqa.db"
    invoke("init", str(db), "--name", "K-QA audit")
    rng = np.random.default_rng(5)
    truth = rng.choice(["entailed", "neutral", "contradicted"], size=(200, 4), p=[0.5, 0.35, 0.15])
    lenient = np.where(rng.random((200, 4)) < 0.5, "entailed", truth)  # over-credits answers
    rows = []
    for i in range(200):
        labels = [
            {"rater": "judge-k", "type": "judge", "statement": s, "value": str(lenient[i, s])}
            for s in range(4)
        ]
        rows.append(
            statements_row(
                i,
                source="model-x" if i % 2 else "model-y",
                must_have=[f"Must {i}.{k}" for k in range(3)],
                nice_to_have=[f"Nice {i}"],
                labels=labels,
            )
        )
    invoke("import", str(db), str(write_jsonl(tmp_path / "k.jsonl", rows)), "-k", "statements")
    invoke("assign", str(db), "drlee", "--sample", "60", "--seed", "3")
    out = invoke("export", str(db), "assignments").stdout
    sampled = {json.loads(line)["item"] for line in out.splitlines()}
    physician = []
    for i in range(200):
        if f"s{i}" in sampled:
            row = dict(rows[i])
            row["labels"] = [
                {"rater": "drlee", "statement": s, "value": str(truth[i, s])} for s in range(4)
            ]
            physician.append(row)
    invoke("import", str(db), str(write_jsonl(tmp_path / "d.jsonl", physician)), "-k", "statements")
    return db, {"truth": truth, "judge": lenient, "sampled": sampled}


def test_kqa_figures_are_corrected_too(tmp_path: Path, reference: Reference) -> None:
    db, facts = _kqa_study(tmp_path)
    report = json.loads(invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    (crit,) = report["audit"]["criteria"]
    assert crit["withheld"] is None and crit["unit"] == "answers"
    assert (crit["population"], crit["sampled"], crit["labelled"]) == (200, 60, 60)
    rows = {(r["source"], r["metric"]): r for r in crit["means"]}
    truth, judge, sampled = facts["truth"], facts["judge"], facts["sampled"]

    def comp(v: Any) -> float:
        return float((v[:3] == "entailed").mean())

    def hall(v: Any) -> float:
        return float((v == "contradicted").sum())

    for source, parity in (("model-x", 1), ("model-y", 0)):
        ids = [i for i in range(200) if i % 2 == parity]
        lab = [i for i in ids if f"s{i}" in sampled]
        rest = [i for i in ids if f"s{i}" not in sampled]
        for metric, of in (("comprehensiveness", comp), ("hallucinations", hall)):
            y = np.array([of(truth[i]) for i in lab])
            yhat = np.array([of(judge[i]) for i in lab])
            unl = np.array([of(judge[i]) for i in rest])
            # comprehensiveness is a share; hallucinations a count, from 0 to the most seen
            top = 1.0 if metric == "comprehensiveness" else max(y.max(), yhat.max(), unl.max())
            want = corrected(reference, y, yhat, unl, low=0.0, high=top)
            got = rows[(source, metric)]["figures"]
            assert got["corrected"]["value"] == pytest.approx(want.value, abs=1e-6)
            assert (got["corrected"]["ci_low"], got["corrected"]["ci_high"]) == pytest.approx(
                (want.ci_low, want.ci_high), abs=1e-6
            )
            assert got["physicians_only"]["value"] == pytest.approx(y.mean())
            assert got["judge_only"]["n"] == len(ids)
    # the lenient judge over-credits: its comprehensiveness is above the corrected interval
    x = rows[("model-x", "comprehensiveness")]["figures"]
    assert x["judge_only"]["value"] > x["corrected"]["ci_high"]
    md = invoke("report", str(db), "--n-boot", "100").stdout
    assert "| entailment | model-x | comprehensiveness | 100 |" in md
    assert "entailment: judge judge-k; 200 answers in the sampled frame, 60 sampled" in md
