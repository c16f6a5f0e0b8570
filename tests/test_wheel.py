"""The wheel built from a clean checkout carries every module and data file, and the
LICENSE.

The package list is found, not kept by hand; this builds the wheel from the tracked files
(what a clean checkout has, symlinks kept as links) and compares the wheel's members with
the tracked Python and data files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

PACKAGE_DIRS = {"medjudge": "medjudge", "tui": "medjudge/tui", "judging": "medjudge/judging"}
PACKAGE_DIRS |= {"store": "medjudge/store", "prompts": "medjudge/prompts"}
DATA_SUFFIXES = {".txt", ".tcss", ".jsonl", ".json", ".j2", ".css"}


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, text=True
    ).stdout
    return [f for f in out.split("\0") if f]


def expected_members(files: list[str]) -> set[str]:
    """Where each tracked source and data file of the package lands in the wheel."""
    want = set()
    for f in files:
        top, _, rest = f.partition("/")
        if top not in PACKAGE_DIRS or not rest or "/__snapshots__/" in f:
            continue
        if top == "medjudge" and rest.split("/")[0] in PACKAGE_DIRS:
            continue  # the symlinks themselves
        suffix = Path(f).suffix
        if suffix == ".py" or suffix in DATA_SUFFIXES:
            want.add(f"{PACKAGE_DIRS[top]}/{rest}")
    return want


def test_wheel_from_a_clean_checkout_has_every_module_and_data_file(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    files = tracked_files()
    for f in files:  # a clean checkout: tracked files only, symlinks kept as links
        src, dst = REPO / f, clone / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(src.readlink())
        elif src.exists():
            shutil.copy2(src, dst)
    out = tmp_path / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q"] + ["-w", str(out), str(clone)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = out.glob("medjudge-*.whl")
    members = set(zipfile.ZipFile(wheel).namelist())
    want = expected_members(files)
    missing = sorted(want - members)
    assert not missing, f"the wheel lacks {missing}"
    for sub in ("tui", "judging", "store", "prompts"):
        assert f"medjudge/{sub}/__init__.py" in members
    assert any(m.startswith("medjudge/judging/llm/") for m in members)
    # the licence travels with the wheel (PEP 639): the file, and the SPDX expression
    info = next(m.split("/")[0] for m in members if m.endswith(".dist-info/METADATA"))
    assert f"{info}/licenses/LICENSE" in members
    license_text = zipfile.ZipFile(wheel).read(f"{info}/licenses/LICENSE").decode()
    assert license_text == (REPO / "LICENSE").read_text(encoding="utf-8")
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode().splitlines()
    assert "License-Expression: MIT" in metadata
