"""A study of about a megabyte, new items for it, and the ways a study file gets damaged."""

from __future__ import annotations

import random
from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .kind_rows import pairwise_row, write_jsonl


def megabyte_study(folder: Path, n: int = 60, name: str = "study.db") -> Path:
    """A closed study of about a megabyte: items, labels, history."""
    path = folder / name
    rows = [
        pairwise_row(i, answer_a="A" * 3000, human_labels={"dr": {"correctness": "A"}})
        for i in range(n)
    ]
    with Study.create(path, actor="t") as s:
        import_file(s, write_jsonl(folder / f"{name}.jsonl", rows), "pairwise", actor="t")
    assert not Path(str(path) + "-wal").exists()
    return path


def new_items(folder: Path, n: int = 3, size: int = 10) -> Path:
    return write_jsonl(
        folder / "new.jsonl", [pairwise_row(1000 + i, answer_b="B" * size) for i in range(n)]
    )


PAGE = 4096


def damage(data: bytes, pattern: str) -> bytes:
    rng = random.Random(pattern)
    if pattern == "truncated to half":
        return data[: len(data) // 2]
    if pattern == "truncated to 100 bytes":
        return data[:100]
    if pattern == "empty":
        return b""
    if pattern == "garbage header":
        return rng.randbytes(100) + data[100:]
    if pattern == "garbage in early pages":
        return data[: 2 * PAGE] + rng.randbytes(10 * PAGE) + data[12 * PAGE :]
    if pattern == "garbage in late pages":
        at = (len(data) // PAGE) * 2 // 3 * PAGE
        return data[:at] + rng.randbytes(8 * PAGE) + data[at + 8 * PAGE :]
    if pattern == "zeroed data pages":
        at = (len(data) // PAGE) // 2 * PAGE
        return data[:at] + bytes(20 * PAGE) + data[at + 20 * PAGE :]
    if pattern == "a text file":
        return b"this is not a study\n" * 50
    raise AssertionError(pattern)
