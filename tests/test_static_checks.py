"""The typed core stays typed and clean: mypy as configured in pyproject.toml (every
module under its real ``medjudge.*`` name, strict for kinds/, store/ and judging/, and the tests
and benchmarks too), and ruff. Both are test dependencies, so CI's one test command runs
them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_mypy_passes() -> None:
    pytest.importorskip("mypy", reason="mypy is a test dependency")
    # In its own process (mypy.api.run in the worker kept some 730 MB of parsed stubs
    # resident until the worker exited), from the repository: pyproject.toml names the files.
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_is_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is a test dependency")
    for args in (["check", "."], ["format", "--check", "."]):
        r = subprocess.run([ruff, *args], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
