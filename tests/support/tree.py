"""The repository's own Python modules, each once: the product packages and the benchmark and
script folders, walked without following symlinks (medjudge/store, medjudge/tui and the others
are symlinks to the top-level packages, and are not counted twice)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ("kinds", "judging", "store", "tui", "prompts", "medjudge")
"""The folders of the installed package (medjudge/ holds the CLI and symlinks to the rest)."""
TOOLS = ("benchmarks", "scripts")


def python_files(folders: tuple[str, ...]) -> list[Path]:
    """Every ``.py`` file under ``folders`` (relative to the repository), sorted; symlinked
    folders and files are left out, and so are byte-code caches."""
    found: list[Path] = []
    for folder in folders:
        for root, dirs, files in os.walk(REPO / folder, followlinks=False):
            here = Path(root)
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (here / d).is_symlink())
            found += [here / f for f in files if f.endswith(".py") and not (here / f).is_symlink()]
    return sorted(found)
