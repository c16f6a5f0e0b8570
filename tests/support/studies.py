"""Small studies built through the real importers, and analysis records as the report writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from medjudge.store.study import Study

from .kind_rows import pairwise_row, statements_row, write_jsonl


def small_study(path: Path, *, pairwise: int, statements: int, actor: str = "tester") -> Study:
    """A new study at ``path`` with ``pairwise_row`` and ``statements_row`` items, open."""
    from medjudge.store.importing.run import import_file

    s = Study.create(path, actor=actor)
    for kind, rows in (
        ("pairwise", [pairwise_row(i) for i in range(pairwise)]),
        ("statements", [statements_row(i) for i in range(statements)]),
    ):
        if rows:
            import_file(
                s, write_jsonl(path.with_name(f"{path.stem}-{kind}.jsonl"), rows), kind, actor=actor
            )
    return s


def as_json(value: Any) -> Any:
    """A record (or list of records) of the analyses as its JSON: what the report writes."""
    from pydantic import BaseModel

    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value
