"""Dependencies point one way: tui → judging → store; the CLI on top; only tui imports Textual.

The contracts live in pyproject.toml (``[tool.importlinter]``) and are checked here with
import-linter over the installed ``medjudge.*`` modules, so a new module is covered without
editing this file. One rule import-linter cannot express (the root package is every module's
parent) is checked from the source: store/, judging/ and tui/ never import from the
``medjudge`` root module itself (its CLI-level names such as ``__version__``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_import_contracts_hold() -> None:
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is a test dependency")
    status = cli.lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True)
    assert status == 0, "import-linter contracts broken (run `lint-imports` to see which)"


def _root_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "medjudge":
            subpackages = {"store", "judging", "tui", "prompts", "kinds"}
            bad += [f"{node.lineno}: {a.name}" for a in node.names if a.name not in subpackages]
    return bad


@pytest.mark.parametrize("package", ["kinds", "store", "judging", "tui"])
def test_layers_do_not_import_the_root_module(package: str) -> None:
    bad = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in sorted((REPO / package).rglob("*.py"))
        for hit in _root_imports(path)
    ]
    assert not bad, "\n".join(bad)


def _sql_calls(path: Path) -> list[str]:
    """Lines calling ``.execute``/``.executemany``/``.executescript`` on anything."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"{node.lineno}: .{node.func.attr}(...)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("execute", "executemany", "executescript")
    ]


@pytest.mark.parametrize("package", ["judging", "tui", "medjudge/commands"])
def test_only_the_store_speaks_sql(package: str) -> None:
    """every query lives in store/ and returns typed rows; the layers above call it."""
    bad = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in sorted((REPO / package).rglob("*.py"))
        for hit in _sql_calls(path)
    ]
    assert bad == []
