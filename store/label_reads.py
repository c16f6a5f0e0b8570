"""Reads across a study's labels: their history, each rater's progress, the changes a live
view applies, and the labels outside a declared set (the review's own reads of an item's labels
are in :mod:`.labels`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from .study import Study


def history(
    study: Study, *, unit_id: int | None = None, rater: str | None = None
) -> list[sqlite3.Row]:
    """Label history rows (oldest first), optionally for one unit and/or rater."""
    sql = "SELECT h.*, r.name AS rater FROM label_history h JOIN raters r ON r.id = h.rater_id"
    where: list[str] = []
    args: list[object] = []
    if unit_id is not None:
        where.append("h.unit_id = ?")
        args.append(unit_id)
    if rater is not None:
        where.append("r.name = ?")
        args.append(rater)
    if where:
        sql += " WHERE " + " AND ".join(where)
    return list(study.conn.execute(sql + " ORDER BY h.id", args))


@dataclass(frozen=True)
class Progress:
    """How far one rater is."""

    rater: str
    kind: str
    units_labelled: int
    items_done: int


def progress(study: Study) -> list[Progress]:
    """Units labelled and items completed (every unit labelled) per rater."""
    rows = study.conn.execute(
        """
        WITH per_item AS (
            SELECT l.rater_id, u.item_id, count(*) AS n
            FROM labels l JOIN units u ON u.id = l.unit_id GROUP BY l.rater_id, u.item_id
        ), sizes AS (SELECT item_id, count(*) AS n FROM units GROUP BY item_id)
        SELECT r.name, r.kind, coalesce(sum(p.n), 0) AS units,
               coalesce(sum(CASE WHEN p.n = s.n THEN 1 ELSE 0 END), 0) AS done
        FROM raters r LEFT JOIN per_item p ON p.rater_id = r.id
        LEFT JOIN sizes s ON s.item_id = p.item_id
        GROUP BY r.id ORDER BY r.kind DESC, r.name
        """
    )
    return [Progress(r[0], r[1], int(r[2]), int(r[3])) for r in rows]


def changes_since(study: Study, history_id: int) -> list[sqlite3.Row]:
    """Label changes after a history id, for live views: unit, rater, new value, criterion."""
    return list(
        study.conn.execute(
            "SELECT h.id, h.unit_id, r.name AS rater, r.kind AS rater_kind, h.new_value, "
            "u.criterion, u.item_id FROM label_history h JOIN raters r ON r.id = h.rater_id "
            "JOIN units u ON u.id = h.unit_id WHERE h.id > ? ORDER BY h.id",
            (history_id,),
        )
    )


def labels_outside(study: Study, criterion: str, allowed: Sequence[str]) -> list[tuple[str, int]]:
    """The current labels and adjudications of a criterion whose value is not in ``allowed``,
    as (value, count), most frequent first (``settings --categories`` refuses a set that
    leaves stored labels outside it)."""
    marks = ",".join("?" * len(allowed))
    rows = study.conn.execute(
        "SELECT value, count(*) FROM ("
        "  SELECT l.value AS value FROM labels l JOIN units u ON u.id = l.unit_id "
        "  WHERE u.criterion = ? "
        "  UNION ALL SELECT a.value FROM adjudications a JOIN units u ON u.id = a.unit_id "
        "  WHERE u.criterion = ?"
        f") WHERE value NOT IN ({marks}) GROUP BY value ORDER BY count(*) DESC, value",
        (criterion, criterion, *allowed),
    ).fetchall()
    return [(str(v), int(n)) for v, n in rows]
