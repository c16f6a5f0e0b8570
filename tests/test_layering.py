"""Dependencies point one way: tui → judging → store; only tui imports Textual.

(import-linter cannot follow setuptools' package-dir mapping, so the contracts are checked
here from the source with ``ast``.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "store": ("medjudge.judging", "medjudge.tui", "medjudge.cli", "medjudge.commands", "textual"),
    "judging": ("medjudge.tui", "medjudge.cli", "medjudge.commands", "textual"),
    "prompts": ("medjudge", "textual"),
}
RELATIVE_PARENT = {"store": {"judging", "tui"}, "judging": {"tui"}}


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.append((node.lineno, node.module))
            elif node.level >= 2 and node.module:
                found.append((node.lineno, ".." + node.module))
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_forbidden_imports(package: str) -> None:
    bad = []
    for path in sorted((REPO / package).rglob("*.py")):
        for line, name in imports_of(path):
            top = name.lstrip(".").split(".")[0]
            if name.startswith("..") and top in RELATIVE_PARENT.get(package, set()):
                bad.append(f"{path.relative_to(REPO)}:{line} imports {name}")
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package]):
                bad.append(f"{path.relative_to(REPO)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


def test_only_tui_imports_textual() -> None:
    bad = []
    for folder in ("medjudge", "store", "judging"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for line, name in imports_of(path):
                if name == "textual" or name.startswith("textual."):
                    bad.append(f"{path.relative_to(REPO)}:{line}")
    assert not bad, "\n".join(bad)
