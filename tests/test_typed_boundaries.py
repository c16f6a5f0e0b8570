"""What crosses a package boundary is typed: no public function or method of store/,
judging/ or tui/ takes or returns ``dict[str, Any]`` or plain ``Any``. Records are
dataclasses, ``TypedDict``s or pydantic models; a JSON document kept as it is (a judge's
configuration, a request body, a verdict's trail) is named ``JsonObject``
(``store/json_types.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("store", "judging", "tui")


def _public_signatures() -> list[tuple[str, str, str]]:
    """(module path:line, function, annotation text) for every annotation of a public
    function or method (its name and its class's name without a leading underscore)."""
    out = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            scopes: list[tuple[ast.AST, bool]] = [(tree, True)]
            while scopes:
                node, public = scopes.pop()
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.ClassDef):
                        scopes.append((child, public and not child.name.startswith("_")))
                    elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if not public or child.name.startswith("_"):
                            continue
                        args = child.args
                        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
                        notes = [a.annotation for a in every if a.annotation is not None]
                        notes += [child.returns] if child.returns is not None else []
                        where = f"{path.relative_to(REPO)}:{child.lineno}"
                        out += [(where, child.name, ast.unparse(n)) for n in notes]
    return out


SIGNATURES = _public_signatures()


def test_the_walk_sees_the_packages() -> None:
    assert len(SIGNATURES) > 1000
    assert any(name == "build_report" for _, name, _ in SIGNATURES)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_untyped_dicts_or_any_in_public_signatures(package: str) -> None:
    bad = [
        f"{where} {name}: {text}"
        for where, name, text in SIGNATURES
        if where.startswith(package + "/") and ("dict[str, Any]" in text or text == "Any")
    ]
    assert not bad, "untyped public signatures:\n" + "\n".join(bad)
