"""The generated references are up to date: docs/cli.md is every command's ``--help`` and
the key tables in docs/guide.md are the review app's bindings (``tui/keys.py``). After changing
a command or a key, ``python scripts/gen_docs.py`` (``make docs``) rewrites them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .support.paths import REPO


def test_generated_docs_match_the_code() -> None:
    import importlib.metadata
    import re

    made = re.search(r"<!-- made with typer (\S+) -->", (REPO / "docs" / "cli.md").read_text())
    installed = importlib.metadata.version("typer")
    if made and made.group(1) != installed:  # CI's floors lane
        pytest.skip(f"docs/cli.md is laid out by typer {made.group(1)}; this is typer {installed}")
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_docs.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_check_fails_on_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    stale = tmp_path / "cli.md"
    stale.write_text("# Command reference\n\nout of date\n", encoding="utf-8")
    guide = tmp_path / "guide.md"
    guide.write_text(gen_docs.GUIDE_MD.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(gen_docs, "CLI_MD", stale)
    monkeypatch.setattr(gen_docs, "GUIDE_MD", guide)
    assert gen_docs.main(["--check"]) == 1
    assert stale.read_text(encoding="utf-8").endswith("out of date\n")  # --check writes nothing
    assert gen_docs.main([]) == 0
    assert gen_docs.main(["--check"]) == 0
