"""An import error says what to do: K-QA's own file given as another kind names ``--kind
kqa``; a JSON array in a ``.jsonl`` file names ``--format json`` (and JSON Lines in a ``.json``
file ``--format jsonl``); a missing field lists the fields found (a CSV without ``id``); a
file of another kind's records names that kind. The study is left unchanged each time."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import ROWS, write_jsonl
from .support.paths import KQA, needs_kqa

cli = CliRunner()


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    assert cli.invoke(app, ["init", str(path)]).exit_code == 0
    return path


def _fails(study: Path, *args: str) -> str:
    before = hashlib.sha256(study.read_bytes()).hexdigest()
    r = cli.invoke(app, ["import", str(study), *args])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert hashlib.sha256(study.read_bytes()).hexdigest() == before  # nothing half-written
    return r.stderr


@needs_kqa()
def test_kqa_s_own_file_as_statements_says_kind_kqa(tmp_path: Path) -> None:
    lines = KQA.read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "kqa.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = _fails(_study(tmp_path), str(path), "--kind", "statements")
    assert "kqa.jsonl, line 1" in err and "--kind kqa --answers" in err


def test_a_json_array_in_a_jsonl_file_says_format_json(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps([ROWS["pairwise"](0), ROWS["pairwise"](1)]), encoding="utf-8")
    study = _study(tmp_path)
    err = _fails(study, str(path), "--kind", "pairwise")
    assert "items.jsonl, line 1: expected a JSON object, got a list" in err
    assert "--format json" in err
    ok = cli.invoke(app, ["import", str(study), str(path), "-k", "pairwise", "--format", "json"])
    assert ok.exit_code == 0, ok.output


def test_json_lines_in_a_json_file_says_format_jsonl(tmp_path: Path) -> None:
    study = _study(tmp_path)
    two = write_jsonl(tmp_path / "items.json", [ROWS["pairwise"](0), ROWS["pairwise"](1)])
    assert "--format jsonl" in _fails(study, str(two), "--kind", "pairwise")
    one = write_jsonl(tmp_path / "one.json", [ROWS["pairwise"](0)])
    err = _fails(study, str(one), "--kind", "pairwise")
    assert "got an object" in err and "--format jsonl" in err


def test_a_csv_without_id_lists_the_columns_found(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("question,answer_a,answer_b,source_a,source_b\nq,a,b,m1,m2\n", encoding="utf-8")
    err = _fails(_study(tmp_path), str(path), "--kind", "pairwise")
    assert (
        "items.csv, line 2, field 'id': missing (required); the fields found: "
        "question, answer_a, answer_b, source_a, source_b"
    ) in err


@pytest.mark.parametrize(("given", "actual"), [("statements", "pairwise"), ("pairwise", "rubric")])
def test_another_kind_s_file_names_that_kind(tmp_path: Path, given: str, actual: str) -> None:
    path = write_jsonl(tmp_path / "items.jsonl", [ROWS[actual](0)])
    err = _fails(_study(tmp_path), str(path), "--kind", given)
    assert f"--kind {actual}" in err, err


def test_a_right_kind_with_a_bad_field_gets_no_hint(tmp_path: Path) -> None:
    row = ROWS["pairwise"](0)
    del row["source_b"]
    err = _fails(_study(tmp_path), str(write_jsonl(tmp_path / "i.jsonl", [row])), "-k", "pairwise")
    assert "field 'source_b': missing (required)" in err and "--kind" not in err
