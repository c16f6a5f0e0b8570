"""Studies as an older medjudge left them: the first ``upto`` migrations applied and items
written with that schema's columns (``items.swap``), by SQL as the importer of the time wrote
them — today's importer writes today's columns, which an old schema lacks."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from medjudge import kinds
from medjudge.store import migrations
from medjudge.store.study import Study

from .kind_rows import pairwise_row, statements_row


def old_study(
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
    upto: int,
    *,
    pairwise: int | list[dict[str, Any]],
    statements: int = 0,
    actor: str = "tester",
) -> Study:
    """A study at ``path`` with only the first ``upto`` migrations (all before 017), holding
    ``pairwise_row`` (or the given pairwise records) and ``statements_row`` items, open;
    ``monkeypatch`` is undone on return, so opening the file again applies the rest."""
    assert upto < 17, "items.swap went in migration 017"
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:upto])
    try:
        study = Study.create(path, actor=actor)
    finally:
        monkeypatch.undo()
    pairwise_criteria = [c["name"] for c in kinds.get("pairwise").default_criteria]
    listed = kinds.get("statements").listed_criterion
    with study.tx() as conn:
        rows = [pairwise_row(i) for i in range(pairwise)] if isinstance(pairwise, int) else pairwise
        for row in rows:
            swap = hashlib.sha256(f"{study.settings.seed}:{row['id']}".encode()).digest()[0] & 1
            item_id = _item(conn, row, "pairwise", swap)
            for slot in "AB":
                conn.execute(
                    "INSERT INTO answers (item_id, position, text, source) VALUES (?, ?, ?, ?)",
                    (item_id, slot, row[f"answer_{slot.lower()}"], row[f"source_{slot.lower()}"]),
                )
            for pos, name in enumerate(pairwise_criteria):
                conn.execute(
                    "INSERT INTO units (item_id, criterion, statement_id, position) "
                    "VALUES (?, ?, NULL, ?)",
                    (item_id, name, pos),
                )
        for i in range(statements):
            row = statements_row(i)
            item_id = _item(conn, row, "statements", 0)
            conn.execute(
                "INSERT INTO answers (item_id, position, text, source) VALUES (?, 'answer', ?, ?)",
                (item_id, row["answer"], row["source"]),
            )
            entries = [(t, "must_have") for t in row["must_have"]]
            entries += [(t, "nice_to_have") for t in row["nice_to_have"]]
            for pos, (text, category) in enumerate(entries):
                sid = conn.execute(
                    "INSERT INTO statements (item_id, position, text, category) "
                    "VALUES (?, ?, ?, ?)",
                    (item_id, pos, text, category),
                ).lastrowid
                conn.execute(
                    "INSERT INTO units (item_id, criterion, statement_id, position) "
                    "VALUES (?, ?, ?, ?)",
                    (item_id, listed, sid, pos),
                )
    return study


def _item(conn: sqlite3.Connection, row: dict[str, Any], kind: str, swap: int) -> int:
    cur = conn.execute(
        "INSERT INTO items (ext_id, kind, question, data, context, batch, swap, content_hash, "
        "import_id, created_at) VALUES (?, ?, ?, '{}', NULL, NULL, ?, ?, NULL, 'x')",
        (
            row["id"],
            kind,
            row["question"],
            swap,
            hashlib.sha256(json.dumps(row).encode()).hexdigest(),
        ),
    )
    return int(cur.lastrowid or 0)
