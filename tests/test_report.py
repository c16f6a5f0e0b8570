"""The study report: one JSON-safe structure, rendered as md, html, json and csv, and the CLI."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.report import kind_sections
from medjudge.judging.report.build import ReportOptions, build_report, render
from medjudge.judging.report.render.csv_rows import COLUMNS
from medjudge.store.study import Study

from .support.rich_study import EVIL, NOW, PANEL, SMALL, build_rich_study
from .support.trails import JUDGE

runner = CliRunner()


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = build_rich_study(tmp_path_factory.mktemp("rich"))
    with Study.open(path) as s:
        report = build_report(s, ReportOptions(n_boot=200), now=NOW)
    # "report" as its JSON (what `report -f json` writes), "model" as the renderers get it
    return {"path": path, "report": report.model_dump(mode="json"), "model": report}


def _criterion(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in report["criteria"] if c["name"] == name)


def test_report_is_json_safe_and_complete(rich: dict[str, Any]) -> None:
    report = rich["report"]
    text = json.dumps(report, allow_nan=False)  # raises on NaN/inf
    assert "NaN" not in text and "Infinity" not in text
    assert report["generated_at"] == "2026-05-01T12:00:00Z"
    assert report["study"]["items"] == {"pairwise": 16, "statements": 6, "rating": 6}
    judges = {j["name"]: j for j in report["protocol"]["judges"]}
    assert list(judges) == [SMALL, JUDGE, PANEL]
    judge = judges[JUDGE]
    assert (judge["model"], judge["samples"], judge["temperature"]) == ("gpt-4o-mini", 3, 0.7)
    assert judges[PANEL]["panel"] and judges[PANEL]["members"] == [SMALL, JUDGE]
    assert {(t["template"], t["hash"], t["calls"]) for t in judge["templates"]} == {
        ("pairwise_v1", "3f2a9c1d", 12),
        ("nli_v1", "77aa01bc", 6),
    }
    assert report["protocol"]["orders"] == ["AB", "BA"] and report["protocol"]["voting_rules"]
    calls = report["effort"]["judge_calls"]
    assert (calls["calls"], calls["failed"], calls["input_tokens"]) == (18, 2, 18 * 900)
    assert calls["cost_usd"] == pytest.approx(18 * 0.0005)
    assert report["effort"]["review_seconds"] == pytest.approx(150.0)
    correctness = _criterion(report, "correctness")
    views = {r["view"] for r in correctness["comparisons"]}
    assert views == {
        "human_human",
        "human_judge",
        "majority_judge",
        "judge_judge",
        "ab_ba",
        "reviewers",
    }
    abba = {
        r["rater_a"]: r
        for r in correctness["comparisons"]
        if r["view"] == "ab_ba" and r["slice"] == "all" and r["ties"] == "with"
    }
    assert set(abba) == {f"{SMALL} [AB]", f"{JUDGE} [AB]"}  # panels have no orders
    assert abba[f"{SMALL} [AB]"]["metrics"]["percent"]["value"] == 0.0  # pure position bias
    for r in correctness["comparisons"]:
        assert isinstance(r["n"], int)
        for est in r["metrics"].values():
            assert "n" in est and (est["value"] is not None or est["reason"])
    slices = {r["slice"] for r in correctness["comparisons"]}
    assert {"all", "batch=b1", "batch=b2", "source=model-x vs model-y"} <= slices
    assert {r["slice"] for r in _criterion(report, "entailment")["comparisons"]} >= {
        "category=must_have",
        "category=nice_to_have",
    }
    assert report["adjudication"]["adjudicated_total"] == 3
    assert report["kqa"]["questions_all"] == 8
    assert {r["criterion"] for r in report["win_rates"]} >= {"correctness", "harmfulness"}
    consistency = {(r["judge"], r["criterion"]): r for r in report["consistency"]}
    small = consistency[(SMALL, "correctness")]
    assert small["position_inconsistent"]["value"] == 1.0
    assert small["position_inconsistent"]["count"] == 16
    panel = consistency[(PANEL, "correctness")]
    assert panel["panel"] and panel["samples_disagreed"] is None
    assert panel["judges_disagreed"]["n"] == 16


def test_same_study_same_report(rich: dict[str, Any]) -> None:
    with Study.open(rich["path"]) as s:
        again = build_report(s, ReportOptions(n_boot=200), now=NOW)
    assert again == rich["model"]


def test_one_category_is_undefined_with_reason_in_json_and_md(rich: dict[str, Any]) -> None:
    report = rich["report"]
    bias = _criterion(report, "bias")
    pair = next(
        r
        for r in bias["comparisons"]
        if r["view"] == "human_human" and r["slice"] == "all" and r["ties"] == "with"
    )
    cohen = pair["metrics"]["cohen"]
    reason = "only one category used by both raters (chance agreement is 1)"
    assert cohen["value"] is None and cohen["reason"] == reason
    assert cohen["ci_low"] is None and cohen["ci_high"] is None
    assert pair["metrics"]["percent"]["value"] == 1.0
    md = render(rich["model"], "md")
    section = md[md.index("### bias") : md.index("### entailment")]
    assert f"undefined ({reason})" in section
    fleiss_row = next(line for line in section.splitlines() if line.startswith("| Fleiss' κ |"))
    assert "undefined (only one category used (chance agreement is 1))" in fleiss_row


def test_markdown_shows_study_text_literally(rich: dict[str, Any]) -> None:
    md = render(rich["model"], "md")
    assert EVIL not in md and r"\<script\>alert(1)\</script\>" in md
    assert "\x1b" not in md
    assert r"=dr\|\`x\`\\x1b\[2J" in md  # pipe and backticks escaped, ESC made visible
    # Every table row has as many cells as its header: no name can add a column.
    tables = re.findall(r"(?:^\|.*\n)+", md, flags=re.M)
    assert len(tables) > 20
    for block in tables:
        counts = {len(re.findall(r"(?<!\\)\|", line)) for line in block.splitlines()}
        assert len(counts) == 1, block


def test_html_is_self_contained_and_escapes(rich: dict[str, Any]) -> None:
    html = render(rich["model"], "html")
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "http://" not in html and "https://" not in html and "//" not in html.replace("<!--", "")
    assert not re.search(r"\b(src|href)=\"(?!#)", html)  # only in-page anchors
    assert "@import" not in html and "url(" not in html
    assert "\x1b" not in html and "\\x1b[2J" in html
    assert html.count("<svg") >= 5
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


def test_csv_is_one_long_table(rich: dict[str, Any]) -> None:
    text = render(rich["model"], "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == COLUMNS
    assert all(len(r) == len(COLUMNS) for r in rows)
    sections = {r[0] for r in rows[1:]}
    assert {
        "human_human",
        "human_human/without_ties",
        "reference",
        "unresolved",
        "consistency",
        "win_rate",
        "kqa",
        "kqa_answer",
        "effort",
    } <= sections
    odd = [r for r in rows if r[3].startswith("'=dr")]
    assert odd, "a name starting with = must not reach a spreadsheet as a formula"
    undefined = [
        r
        for r in rows
        if r[0] == "human_human" and r[1] == "bias" and r[5] == "cohen" and r[2] == "all"
    ]
    assert undefined and all(r[6] == "" and r[10] for r in undefined)


def test_report_command(rich: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    r = runner.invoke(
        app, ["report", str(rich["path"]), "--format", "html", "-o", str(target), "--n-boot", "100"]
    )
    assert r.exit_code == 0, r.output
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not list(tmp_path.glob(".report.html.*")), "a temporary file was left"
    r = runner.invoke(
        app, ["report", str(rich["path"]), "-f", "json", "--n-boot", "100", "--no-slices"]
    )
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert all(c["slice"] == "all" for x in data["criteria"] for c in x["comparisons"])
    r = runner.invoke(app, ["report", str(rich["path"]), "-f", "pdf"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["report", str(tmp_path / "missing.db")])
    assert r.exit_code == 1 and "no such study" in r.output
    r = runner.invoke(app, ["report", str(rich["path"]), "-o", str(tmp_path / "no" / "x.md")])
    assert r.exit_code == 1 and "does not exist" in r.output
    r = runner.invoke(app, ["report", "--help"])
    assert r.exit_code == 0 and "Example:" in r.output


def test_empty_study_reports_without_figures(tmp_path: Path) -> None:
    with Study.create(tmp_path / "empty.db", actor="t") as s:
        report = build_report(s, now=NOW)
    assert report.criteria == [] and kind_sections.record(report, "kqa") is None
    assert "kqa" in json.loads(render(report, "json"))  # null: the key stays
    for fmt in ("md", "html", "json", "csv"):
        assert render(report, fmt)
