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


def test_a_study_being_created_is_never_seen_half_made(tmp_path: Path) -> None:
    """Two first imports into a new path at once: the one that starts second while the first
    is still making the study saw a file without its schema or settings ("the study has no
    settings (damaged file?)", "the file is empty") and failed; and a first import that then
    failed deleted the study the other had written to. Now a new study is made beside its
    path and put in place whole: here the second import runs in the middle of the first's
    making (from its fill step), finds nothing at the path, makes its own; the first then
    finds that one there and imports into it. Both imports are in the one study."""
    from typer.testing import CliRunner

    from medjudge.cli import app
    from medjudge.store.importing.run import import_file
    from medjudge.store.study import Study

    path = tmp_path / "new.db"
    a = write_jsonl(tmp_path / "a.jsonl", [pairwise_row(i) for i in range(3)])
    b = write_jsonl(tmp_path / "b.jsonl", [pairwise_row(i) for i in range(3, 5)])
    during: list[tuple[bool, int, str]] = []

    def fill(s: Study) -> None:
        seen = path.exists()
        r = CliRunner().invoke(app, ["import", str(path), str(b), "--kind", "pairwise"])
        during.append((seen, r.exit_code, r.output))
        import_file(s, a, "pairwise", actor="a")

    assert Study.create_complete(path, actor="a", fill=fill) is None  # the other was first
    assert during == [(False, 0, f"{b.name}: 2 new pairwise item(s)\n")]
    with Study.open(path) as s:
        import_file(s, a, "pairwise", actor="a")
        ids = [r[0] for r in s.conn.execute("SELECT ext_id FROM items ORDER BY ext_id")]
    assert ids == [f"p{i}" for i in range(5)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "new.db"]


def test_first_imports_at_once_all_succeed(tmp_path: Path) -> None:
    """The same with real processes, several times: every import exits 0 and the study holds
    every item (bounded: 6 rounds of two processes)."""
    files = [
        write_jsonl(tmp_path / f"{n}.jsonl", [pairwise_row(i) for i in range(3 * n, 3 * n + 3)])
        for n in range(2)
    ]
    for round_ in range(6):
        study = tmp_path / f"r{round_}.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "medjudge", "import", str(study), str(f), "-k", "pairwise"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for f in files
        ]
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        conn = sqlite3.connect(study)
        try:
            assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 6
        finally:
            conn.close()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".new")]
