"""No dead names: vulture, with pyproject.toml's ``[tool.vulture]`` and its allow-list
(``scripts/vulture_allow.py``: names used where vulture cannot see), finds no unused function,
class, method, attribute, variable or import in the product, the tests, the benchmarks or the
scripts. Skipped where vulture is not installed (it comes with the ``test`` extra)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from .support.tree import REPO

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("vulture") is None, reason="vulture is not installed"
)


def test_vulture_finds_no_unused_name() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "vulture"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0 and not r.stdout.strip(), (
        "unused names (remove them; or, if something vulture cannot see uses one, add it to "
        f"scripts/vulture_allow.py with the reason):\n{r.stdout}{r.stderr}"
    )
