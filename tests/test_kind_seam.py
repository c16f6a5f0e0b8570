"""The item kinds are one seam: outside ``kinds/`` code asks a kind (``kinds.get(name)``)
what differs instead of comparing an item's kind with a kind's name.

Counted here: every comparison (``==``, ``!=``, ``in``, ``not in``, ``match`` cases) whose one
side is a kind's name as a string literal or an ``ItemKind`` member, in the product's layers.
The ceiling only goes down: it is the number left for later parts of the refactor.
"""

from __future__ import annotations

import ast
from pathlib import Path

from medjudge import kinds

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("store", "judging", "tui", "medjudge/commands", "medjudge/demo")
CEILING = 0
"""Kind branches outside kinds/: none (the judge's plan, voting and panels are the kinds'
judge facet, ``kinds/judged.py``)."""


def _names_a_kind(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value in kinds.NAMES:
        return True
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id == "ItemKind"
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_kind(e) for e in node.elts)
    return False


def kind_branches() -> list[str]:
    """``file:line`` of every comparison with a kind's name in the product's layers."""
    found = []
    files = [p for layer in LAYERS for p in sorted((REPO / layer).rglob("*.py"))] + (
        [REPO / "medjudge" / "cli.py"]
    )
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                _names_a_kind(x) for x in [node.left, *node.comparators]
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
            elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
                if _names_a_kind(node.pattern.value):
                    found.append(f"{path.relative_to(REPO)}:{node.pattern.lineno}")
    return found


def test_outside_kinds_code_does_not_branch_on_a_kinds_name() -> None:
    found = kind_branches()
    assert len(found) <= CEILING, "\n".join(found)


def test_the_counter_finds_a_branch() -> None:
    tree = ast.parse('if item.kind == "pairwise":\n    pass\nif k in (ItemKind.match,): pass')
    hits = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert all(any(_names_a_kind(x) for x in [h.left, *h.comparators]) for h in hits)
    assert len(hits) == 2
