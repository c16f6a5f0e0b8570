"""A rating study where reviewers and a judge both labelled a 1–5 criterion and completeness:
the report is written in every format (it crashed on the scale's numeric labels)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import rating_row, write_jsonl

runner = CliRunner()


def rating_study(tmp_path: Path) -> Path:
    db = tmp_path / "rating.db"
    assert runner.invoke(app, ["init", str(db), "--name", "Rating"]).exit_code == 0
    rows = []
    for i in range(6):
        row = rating_row(i)
        row["labels"] = [
            {"rater": "drA", "criterion": "correctness_rating", "value": 1 + i % 5},
            {"rater": "drB", "criterion": "correctness_rating", "value": 1 + (i + 1) % 5},
            {"rater": "drC", "criterion": "correctness_rating", "value": 1 + (i * 2) % 5},
            {
                "rater": "gpt",
                "type": "judge",
                "criterion": "correctness_rating",
                "value": 1 + i % 5,
            },
            {"rater": "drA", "criterion": "completeness", "value": ["A", "B"][: 1 + i % 2]},
            {"rater": "drB", "criterion": "completeness", "value": ["A"]},
            {"rater": "drC", "criterion": "completeness", "value": ["B"]},
            {"rater": "gpt", "type": "judge", "criterion": "completeness", "value": ["A"]},
        ]
        rows.append(row)
    r = runner.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "r.jsonl", rows)), "-k", "rating"]
    )
    assert r.exit_code == 0, r.output
    return db


@pytest.mark.parametrize("fmt", ["md", "html", "json", "csv"])
def test_rating_report_with_reviewer_and_judge_labels(tmp_path: Path, fmt: str) -> None:
    db = rating_study(tmp_path)
    out = tmp_path / f"report.{fmt}"
    r = runner.invoke(app, ["report", str(db), "--format", fmt, "-o", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "correctness_rating" in text
    if fmt == "json":
        report = json.loads(text)
        versions = (
            [v for v in report["judge_versions"] if v["name"] == "gpt"]
            if "judge_versions" in report
            else []
        )
        for v in versions:
            for row in v["vs_majority"]:
                if row["criterion"] == "correctness_rating":
                    assert {p["value"] for p in row["per_value"]} <= {1, 2, 3, 4, 5}
