"""Writing to a full standard output (`> file` on a full disk) ends in one clear line and exit
1, never a traceback. /dev/full fails every write with ENOSPC, as a full disk does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .support.studies import small_study

FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["status", "--json"],
        ["export", "labels", "--wide", "-f", "csv"],
        ["report", "-f", "md", "--n-boot", "100"],
    ],
)
def test_a_full_stdout_is_one_line(args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=3, statements=1).close()
    argv = [args[0], str(path), *args[1:]]
    with FULL.open("w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "medjudge", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "error: cannot write the output (No space left on device)"
    ], r.stderr
