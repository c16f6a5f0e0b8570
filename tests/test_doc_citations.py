"""What the code cites exists in the repository: every `docs/design.md §N` names a
section of docs/design.md, and no code cites a design document that is not shipped."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    p
    for folder in ("kinds", "store", "judging", "tui", "medjudge", "tests", "benchmarks", "scripts")
    for p in (ROOT / folder).rglob("*.py")
]


def test_design_citations_resolve() -> None:
    sections = set(re.findall(r"^## (\d)\. ", (ROOT / "docs" / "design.md").read_text(), re.M))
    cited: dict[str, list[str]] = {}
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        old = "DESIGN " + "§"  # (split: this file would cite it otherwise)
        assert old not in text, f"{path}: cites {old}N, which is docs/design.md §N"
        for n in re.findall(r"docs/design\.md §(\d)", text):
            cited.setdefault(n, []).append(path.name)
    assert cited, "the code cites the design card"
    missing = {n: files for n, files in cited.items() if n not in sections}
    assert not missing, f"sections that docs/design.md does not have: {missing}"


def test_no_code_cites_issue_numbers() -> None:
    """An issue number means nothing without the tracker, which is not in the repository: the
    code, its tests and benchmarks explain themselves (the CHANGELOG keeps the numbers for
    users)."""
    code = [p for p in SOURCES if not p.is_symlink()]
    code = [p for p in code if "medjudge" not in p.relative_to(ROOT).parts[1:]]
    cited = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in code
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\(#\d+[,;:)]|[,;:] #\d+\)|\"\"\"(?:Issue )?#\d+[,:]|^\s*# #\d+", line)
    ]
    assert not cited, cited
