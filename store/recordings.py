"""Judge calls as portable records: items named by their file id, statements by position.

A recording (the demo's ``judge_calls.jsonl``) must load into a study built on another machine,
where row ids differ: :func:`portable_calls` writes each call with its item's ``ext_id`` and its
statement's position, and :func:`store_portable_calls` maps them back and stores the calls as
ordinary cached calls, in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from medjudge.store.json_types import JsonObject
from medjudge.store.judgments import CALL_COLUMNS, record_call
from medjudge.store.study import Study

PORTABLE_COLUMNS = tuple(c for c in CALL_COLUMNS if c not in ("item_id", "run_id"))
"""What a recording keeps of each call (items are named by their file id instead)."""


def portable_calls(study: Study, judge: str) -> Iterator[JsonObject]:
    """A judge's stored calls (not the errored ones) with ``item`` and ``statement`` added."""
    cols = ", ".join("c." + c for c in PORTABLE_COLUMNS)
    for r in study.conn.execute(
        f"SELECT {cols}, i.ext_id AS item, s.position AS statement "
        "FROM judge_calls c JOIN items i ON i.id = c.item_id "
        "LEFT JOIN statements s ON s.id = CAST(substr(c.task, instr(c.task, '/') + 1) AS INTEGER) "
        "AND c.task NOT LIKE 'pairwise/%' "
        "WHERE c.judge = ? AND c.status != 'error' ORDER BY i.id, c.task, c.sample",
        (judge,),
    ):
        yield dict(r)


def store_portable_calls(study: Study, rows: Iterable[JsonObject]) -> int:
    """Store portable call records in this study; returns how many.

    Raises:
        KeyError: a record names an item or statement this study does not have.
    """
    items = {r[0]: r[1] for r in study.conn.execute("SELECT ext_id, id FROM items")}
    statements = {
        (r[0], r[1]): r[2]
        for r in study.conn.execute(
            "SELECT i.ext_id, s.position, s.id FROM statements s JOIN items i ON i.id = s.item_id"
        )
    }
    n = 0
    with study.tx() as conn:
        for record in rows:
            row = dict(record)
            ext_id = row.pop("item")
            row["item_id"] = items[ext_id]
            position = row.pop("statement")
            if position is not None:  # statement ids differ between builds; positions do not
                row["task"] = f"{row['task'].split('/')[0]}/{statements[(ext_id, position)]}"
            record_call(conn, row)
            n += 1
    return n
