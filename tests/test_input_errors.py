"""Input errors get one clear message: duplicated criteria at init, a K-QA entry without
its answer (named by entry and line; an empty answer is skipped and said so), an unwritable
folder (said so, not "not found")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.paths import KQA, needs_kqa

cli = CliRunner()


def test_init_with_a_criterion_twice(tmp_path: Path) -> None:
    r = cli.invoke(app, ["init", str(tmp_path / "s.db"), "-c", "correctness", "-c", "correctness"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "--criterion: correctness given more than once" in r.stderr
    assert not (tmp_path / "s.db").exists()
    r = cli.invoke(app, ["init", str(tmp_path / "s.db"), "-c", "relevance:benefit"])
    assert r.exit_code == 1 and "built-in rating or statements criterion" in r.stderr


@needs_kqa()
def test_kqa_entries_without_an_answer(tmp_path: Path) -> None:
    refs = [json.loads(line) for line in KQA.read_text(encoding="utf-8").splitlines()][:4]
    answers = [{"Question": r["Question"], "result": f"Answer {i}."} for i, r in enumerate(refs)]
    answers[2] = {"Question": refs[2]["Question"]}  # no result at all
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers, indent=2), encoding="utf-8")
    study = tmp_path / "k.db"
    args = ["import", str(study), str(KQA), "-k", "kqa", "--answers", str(path)]
    r = cli.invoke(app, [*args, "--source", "m"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "answers.json, line 10, field 'result': entry 3: missing (required)" in r.stderr
    answers[2] = {"Question": refs[2]["Question"], "result": "  "}
    path.write_text(json.dumps(answers, indent=2), encoding="utf-8")
    r = cli.invoke(app, [*args, "--source", "m"])
    assert r.exit_code == 0, r.output
    assert "3 new statements item(s)" in r.stdout
    assert "1 skipped (entry 3, line 10: empty result)" in r.stdout


def test_an_unwritable_folder_is_said(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only mount needs root")
    ro = tmp_path / "ro"
    ro.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)])
    if r.returncode != 0:
        pytest.skip("cannot mount a read-only tmpfs here")
    try:
        for args in (
            ["init", str(ro / "s.db")],
            ["import", str(ro / "s.db"), "x.jsonl", "-k", "pairwise"],
        ):
            res = cli.invoke(app, args)
            assert res.exit_code == 1 and "Traceback" not in res.output
            assert f"folder {ro} is not writable" in res.stderr, res.stderr
    finally:
        subprocess.run(["umount", "-l", str(ro)])
