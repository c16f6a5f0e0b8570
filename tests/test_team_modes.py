"""A study is as writable for the team as the umask allows: under ``umask 007`` (the
README's recipe for a shared folder) a new study and its -wal/-shm files are 660, not 640."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import os, sys
os.umask(int(sys.argv[2], 8))
from medjudge.store.study import Study
s = Study.create(sys.argv[1], actor="lead")
s.close()
s = Study.open(sys.argv[1])
s.conn.execute("BEGIN IMMEDIATE"); s.conn.execute("COMMIT")
for suffix in ("", "-wal", "-shm"):
    p = sys.argv[1] + suffix
    if os.path.exists(p):
        print(suffix or "study", oct(os.stat(p).st_mode & 0o777))
s.close()
"""


@pytest.mark.parametrize(("umask", "mode"), [("007", 0o660), ("022", 0o644), ("077", 0o600)])
def test_a_new_study_and_its_side_files_follow_the_umask(
    tmp_path: Path, umask: str, mode: int
) -> None:
    db = tmp_path / "team.db"
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), umask], capture_output=True, text=True, check=True
    )
    modes = dict(line.split() for line in r.stdout.splitlines())
    assert modes["study"] == oct(mode), r.stdout
    assert stat.S_IMODE(db.stat().st_mode) == mode
    for side in ("-wal", "-shm"):
        if side in modes:
            assert modes[side] == oct(mode), (side, r.stdout)
    assert "-wal" in modes or "-shm" in modes, r.stdout  # WAL mode: the side files exist
