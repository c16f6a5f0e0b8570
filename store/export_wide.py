"""The labels export in wide form: one row per unit, one column per rater.

This is exactly the input of ``medjudge agreement`` (see
:mod:`medjudge.judging.stats.label_file`): ``unit`` names the unit
(``item/criterion`` or ``item/criterion/statement``), ``criterion`` slices it (``agreement
--by criterion``), and every other column is a rater — each reviewer's current label, then each
judge's current verdict (an empty cell where a rater has none, or where the judge's verdict is
missing). Pairwise values are in the file frame (``A`` = the import file's ``answer_a``), as in
every export; a CSV text cell never starts a spreadsheet formula
(:func:`~medjudge.store.literal.spreadsheet_cell`). Rows stream in item order, so a study of any
size exports in constant memory.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from .literal import json_line, spreadsheet_cell
from .study import Study

KEY_COLUMNS = ("unit", "item", "kind", "criterion", "statement")

_RATERS = """
    SELECT r.id, r.name FROM raters r
    WHERE EXISTS (SELECT 1 FROM labels l WHERE l.rater_id = r.id)
       OR EXISTS (SELECT 1 FROM verdicts v WHERE v.rater_id = r.id)
    ORDER BY r.kind = 'judge', r.name"""

# Humans' labels hold their current value; a judge's current verdict is its latest row.
_CELLS = """
    SELECT u.id, i.ext_id, i.kind, u.criterion, s.position, x.rater_id, x.value
    FROM units u JOIN items i ON i.id = u.item_id
    LEFT JOIN statements s ON s.id = u.statement_id
    JOIN (
        SELECT unit_id, rater_id, value FROM labels
        UNION ALL
        SELECT v.unit_id, v.rater_id, CASE WHEN v.status = 'ok' THEN v.value END
        FROM current_verdicts v
    ) x ON x.unit_id = u.id
    ORDER BY i.id, u.position, u.id"""


@dataclass(frozen=True)
class WideRow:
    """One unit and each rater's value on it (None: no label or no verdict)."""

    unit: str
    item: str
    kind: str
    criterion: str
    statement: int | None
    values: dict[str, str | None]


def rater_columns(study: Study) -> list[str]:
    """The rater columns in export order: reviewers by name, then judges by name."""
    return [name for _, name in study.conn.execute(_RATERS)]


def wide_rows(study: Study) -> Iterator[WideRow]:
    """Every unit that at least one rater labelled, with its values by rater name."""
    names = dict(study.conn.execute(_RATERS).fetchall())
    current: WideRow | None = None
    current_id: int | None = None
    for unit_id, item, kind, criterion, statement, rater_id, value in study.conn.execute(_CELLS):
        if unit_id != current_id:
            if current is not None:
                yield current
            path = f"{item}/{criterion}" + (f"/{statement}" if statement is not None else "")
            current = WideRow(path, item, kind, criterion, statement, {})
            current_id = unit_id
        assert current is not None
        current.values[names[rater_id]] = value
    if current is not None:
        yield current


def write_wide(study: Study, fmt: str, out: IO[str], *, only_rater: str | None = None) -> int:
    """Write the wide labels table as ``csv`` or ``jsonl``; returns the number of rows.
    ``only_rater``: that rater's column only (and the units they labelled).

    Raises:
        ValueError: unknown format.
    """
    if fmt not in ("csv", "jsonl"):
        raise ValueError(f"unknown format {fmt!r}")
    raters = rater_columns(study)
    if only_rater is not None:
        raters = [r for r in raters if r == only_rater]
    clash = sorted(set(raters) & set(KEY_COLUMNS))
    if clash:
        raise ValueError(f"a rater is named like a key column: {', '.join(clash)}")
    writer = csv.writer(out) if fmt == "csv" else None
    if writer is not None:
        writer.writerow([*KEY_COLUMNS, *map(spreadsheet_cell, raters)])
    n = 0
    for row in wide_rows(study):
        if only_rater is not None and row.values.get(only_rater) is None:
            continue
        keys = [row.unit, row.item, row.kind, row.criterion, row.statement]
        cells = [row.values.get(name) for name in raters]
        if writer is not None:
            row_cells = [*("" if k is None else k for k in keys), *(c or "" for c in cells)]
            writer.writerow([spreadsheet_cell(c) for c in row_cells])
        else:
            record = dict(zip(KEY_COLUMNS, keys, strict=True))
            record.update(zip(raters, cells, strict=True))
            out.write(json_line(record))
        n += 1
    return n
