"""`medjudge backup`: a consistent, checked copy while reviewers write; never over the
study; never over an existing file without --force; no half-written copy."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.studies import small_study

cli = CliRunner()


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=40, statements=0).close()
    return path


def test_backup_while_a_reviewer_writes(study: Path, tmp_path: Path) -> None:
    """Labels keep being saved during the backups; each copy opens, passes integrity_check and
    holds a prefix of the labels (every label committed before it started, none half-done)."""
    stop = threading.Event()
    saved: list[int] = []

    def reviewer() -> None:
        s = Study.open(study)
        units = [r[0] for r in s.conn.execute("SELECT id FROM units ORDER BY id")]
        for u in units:
            if stop.is_set():
                break
            set_label(s, u, "ann", "A")
            saved.append(u)
        s.close()

    t = threading.Thread(target=reviewer)
    t.start()
    copies = []
    try:
        for i in range(5):
            before = len(saved)
            dest = tmp_path / f"copy{i}.db"
            r = subprocess.run(
                [sys.executable, "-m", "medjudge", "backup", str(study), str(dest)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert r.returncode == 0, r.stderr
            copies.append((dest, before))
            time.sleep(0.05)
    finally:
        stop.set()
        t.join()
    for dest, before in copies:
        conn = sqlite3.connect(dest)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        n = conn.execute("SELECT count(*) FROM labels").fetchone()[0]
        conn.close()
        assert n >= before, "a label committed before the backup started is missing"
        assert not Path(str(dest) + "-wal").exists()
        assert cli.invoke(app, ["status", str(dest)]).exit_code == 0


def test_backup_refuses_the_study_and_existing_files(study: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.db"
    link.symlink_to(study)
    for dest in (study, link, Path(str(study) + "-wal")):
        r = cli.invoke(app, ["backup", str(study), str(dest)])
        assert r.exit_code == 1 and "is the study itself" in r.stderr, r.output
    existing = tmp_path / "old.db"
    existing.write_text("keep me")
    r = cli.invoke(app, ["backup", str(study), str(existing)])
    assert r.exit_code == 1 and "already exists (use --force" in r.stderr
    assert existing.read_text() == "keep me"
    r = cli.invoke(app, ["backup", str(study), str(existing), "--force"])
    assert r.exit_code == 0, r.output
    assert sqlite3.connect(existing).execute("SELECT count(*) FROM items").fetchone()[0] == 40
    r = cli.invoke(app, ["backup", str(study), str(tmp_path / "nope" / "x.db")])
    assert r.exit_code == 1 and "does not exist" in r.stderr
    assert not list(tmp_path.glob(".*.tmp*")) and not list(tmp_path.glob("*.part"))
