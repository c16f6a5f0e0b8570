"""Every package says what it owns: each ``__init__.py`` of the product (kinds/, judging/,
store/, tui/, prompts/ and medjudge/'s own packages) opens with a docstring."""

from __future__ import annotations

import ast
from pathlib import Path

from .support.tree import PRODUCT, REPO, python_files


def package_inits() -> list[Path]:
    """Every product package's ``__init__.py``, each once."""
    return [p for p in python_files(PRODUCT) if p.name == "__init__.py"]


def test_the_packages_are_found_once() -> None:
    names = [p.parent.relative_to(REPO).as_posix() for p in package_inits()]
    assert {"kinds", "judging/llm", "store", "store/importing", "tui", "medjudge"} <= set(names)
    assert not any(n.startswith(("medjudge/store", "medjudge/tui")) for n in names)
    assert len(names) == len(set(names))


def test_every_package_init_has_a_docstring() -> None:
    missing = [
        p.relative_to(REPO).as_posix()
        for p in package_inits()
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert not missing, f"package __init__.py without a docstring (say what it owns): {missing}"
