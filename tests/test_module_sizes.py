"""The house stays small: no module of the product, the benchmarks or the scripts is over
``LIMIT`` lines. The modules still over it are listed in ``OVER`` with their length when
recorded: none may grow past that (the ceiling only goes down, so lower it when you shorten
one), and one that is within the limit again leaves the list (so the list only shrinks)."""

from __future__ import annotations

from pathlib import Path

from .support.tree import PRODUCT, REPO, TOOLS, python_files

LIMIT = 500
"""Lines a module may have (as ``wc -l`` counts them)."""

OVER: dict[str, int] = {}
"""Modules over ``LIMIT`` while they are being split: path → its length when recorded."""


def lengths() -> dict[str, int]:
    """Every module (medjudge/'s symlinks to the top-level packages counted once) → lines."""
    return {p.relative_to(REPO).as_posix(): _lines(p) for p in python_files(PRODUCT + TOOLS)}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_modules_are_found_once() -> None:
    found = lengths()
    assert {"medjudge/cli.py", "store/study.py", "tui/app.py", "benchmarks/bench_cli.py"} <= set(
        found
    )
    assert "scripts/gen_docs.py" in found
    assert not [p for p in found if p.startswith(("medjudge/store/", "medjudge/tui/"))]


def test_no_module_is_over_the_limit() -> None:
    over = [
        f"{path}: {n} lines (more than {LIMIT}: split it)"
        for path, n in sorted(lengths().items())
        if n > LIMIT and path not in OVER
    ]
    assert not over, "\n".join(over)


def test_a_module_over_the_limit_grows_no_longer() -> None:
    found = lengths()
    longer = [
        f"{path}: {found[path]} lines, longer than the {ceiling} recorded in OVER (make it "
        "shorter, not longer)"
        for path, ceiling in sorted(OVER.items())
        if path in found and found[path] > ceiling
    ]
    assert not longer, "\n".join(longer)


def test_the_list_of_modules_over_the_limit_shrinks() -> None:
    found = lengths()
    stale = [
        f"{path}: {found[path]} lines, within {LIMIT} now: remove it from OVER"
        if path in found
        else f"{path}: no such module any more: remove it from OVER"
        for path in sorted(OVER)
        if found.get(path, 0) <= LIMIT
    ]
    assert not stale, "\n".join(stale)
