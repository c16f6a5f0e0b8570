"""``-`` names standard output and input: ``export … -o -`` and ``report -o -`` write to
standard output (never a file named ``-``), and ``agreement -`` reads its labels from standard
input — so they pipe into each other."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from medjudge.store.labels import set_label

from .support.studies import small_study


def run(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medjudge", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=os.environ.copy(),
        timeout=120,
    )


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    """Four pairwise items labelled by two reviewers."""
    path = tmp_path / "s.db"
    s = small_study(path, pairwise=4, statements=0)
    units = [u for (u,) in s.conn.execute("SELECT id FROM units ORDER BY id")]
    for i, unit in enumerate(units):
        set_label(s, unit, "ann", "A")
        set_label(s, unit, "bob", "A" if i % 3 else "B")
    s.close()
    return path


def test_export_to_standard_output(labelled: Path, tmp_path: Path) -> None:
    r = run(["export", str(labelled), "labels", "-f", "csv", "-o", "-"], tmp_path)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 2 * 24 and {r["rater"] for r in rows} == {"ann", "bob"}
    assert "wrote" not in r.stdout  # the data only: no summary line mixed in
    assert not (tmp_path / "-").exists()


def test_report_to_standard_output(labelled: Path, tmp_path: Path) -> None:
    r = run(["report", str(labelled), "-f", "json", "--n-boot", "200", "-o", "-"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["criteria"]
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_agreement_reads_standard_input(labelled: Path, tmp_path: Path, fmt: str) -> None:
    wide = run(["export", str(labelled), "labels", "--wide", "-f", fmt, "-o", "-"], tmp_path)
    assert wide.returncode == 0, wide.stderr
    args = ["-r", "ann,bob", "--unit", "unit", "--by", "criterion", "--json"]
    from_stdin = run(["agreement", "-", *args], tmp_path, stdin=wide.stdout)
    assert from_stdin.returncode == 0, from_stdin.stderr
    (tmp_path / f"wide.{fmt}").write_text(wide.stdout, encoding="utf-8")
    from_file = run(["agreement", f"wide.{fmt}", *args], tmp_path)
    assert from_file.returncode == 0, from_file.stderr
    got, want = json.loads(from_stdin.stdout), json.loads(from_file.stdout)
    assert got.pop("file") == "-" and want.pop("file") == f"wide.{fmt}"
    assert got == want
