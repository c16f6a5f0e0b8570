"""Concurrent label imports: every process either imports all its labels or exits 1 with
a clear message — never exit 0 with labels dropped, never a raw UNIQUE error."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from .support.kind_rows import pairwise_row, write_jsonl


def _labels(path: Path) -> dict[tuple[str, str, str], str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT i.ext_id, u.criterion, r.name, l.value FROM labels l "
            "JOIN units u ON u.id = l.unit_id JOIN items i ON i.id = u.item_id "
            "JOIN raters r ON r.id = l.rater_id"
        )
        return {(a, b, c): d for a, b, c, d in rows}
    finally:
        conn.close()


def test_racing_importers_import_all_or_fail_clearly(tmp_path: Path) -> None:
    study = tmp_path / "race.db"
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", "init", str(study)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    base = [pairwise_row(i) for i in range(6)]
    write_jsonl(tmp_path / "base.jsonl", base)
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", "import", str(study), str(tmp_path / "base.jsonl")]
        + ["--kind", "pairwise"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    for rnd in range(3):
        files = {}
        # Two importers give the same reviewer's label on the same unit different values (one
        # must lose, loudly); two add the same new item with different content; the rest bring
        # labels of their own reviewers (all must land).
        for k in range(8):
            if k < 2:
                rows = [
                    pairwise_row(
                        0, labels=[{"rater": f"clash{rnd}", "criterion": "bias", "value": "AB"[k]}]
                    )
                ]
            elif k < 4:
                rows = [pairwise_row(100 + rnd, question=f"new question, version {k}")]
            else:
                rows = [
                    pairwise_row(
                        i,
                        labels=[
                            {"rater": f"dr{rnd}_{k}", "criterion": "correctness", "value": "A"}
                        ],
                    )
                    for i in range(6)
                ]
            files[k] = write_jsonl(tmp_path / f"r{rnd}_{k}.jsonl", rows)
        procs = {
            k: subprocess.Popen(
                [sys.executable, "-m", "medjudge", "import", str(study), str(f), "--kind"]
                + ["pairwise", "--json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for k, f in files.items()
        }
        results = {}
        for k, p in procs.items():
            out, err = p.communicate(timeout=120)
            results[k] = (p.returncode, out, err)
        labels = _labels(study)
        for k, (code, _out, err) in results.items():
            assert "Traceback" not in err and "UNIQUE" not in err, err
            assert code in (0, 1), (k, code, err)
            if code == 1:
                assert err.startswith("error: ") and "line 1" in err, err
        clash = [results[k][0] for k in (0, 1)]
        assert sorted(clash) == [0, 1], f"exactly one of two clashing imports wins: {results}"
        winner = clash.index(0)
        assert labels[("p0", "bias", f"clash{rnd}")] == "AB"[winner]
        assert "labels are not overwritten" in results[1 - winner][2]
        assert sorted(results[k][0] for k in (2, 3)) == [0, 1]
        loser = 2 if results[2][0] else 3
        assert "already exists in the study with different content" in results[loser][2]
        for k in range(4, 8):
            code, out, err = results[k]
            assert code == 0, err
            assert json.loads(out)["labels_added"] == 6
            assert all(labels[(f"p{i}", "correctness", f"dr{rnd}_{k}")] == "A" for i in range(6))
