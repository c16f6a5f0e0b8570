"""Adjudications: the final, reference label for a unit, with a required rationale.

Append-only: a revision is a new row; the latest per unit is the reference. Only adjudicators
may write (checked here, not only in the app).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .db import StudyError
from .frames import FILE, Frame
from .labels import unit_value
from .roles import require
from .study import Study, audit, dumps, utcnow


def adjudicate(
    study: Study,
    unit_id: int,
    value: str,
    rationale: str,
    *,
    actor: str,
    settles: Sequence[str] = (),
    frame: Frame = FILE,
) -> int:
    """Record the reference label for a unit.

    Args:
        study: the open study.
        unit_id: the unit.
        value: the final label (checked against the criterion).
        rationale: why; required, not blank.
        actor: the adjudicator's login.
        settles: which disagreement kinds this settles (from the queue).
        frame: the answer-letter frame the rationale was written in; the adjudication screens
            and the CLI speak in the file frame (:mod:`store.frames`), the default.

    Returns:
        The adjudication row id.

    Raises:
        PermissionDenied: the actor is not an adjudicator.
        StudyError: blank rationale, unknown unit or invalid value.
    """
    require(study, actor, "adjudicate")
    if not rationale or not rationale.strip():
        raise StudyError("an adjudication needs a rationale")
    row = study.conn.execute(
        "SELECT u.criterion, i.ext_id || '/' || coalesce(s.position, u.criterion) FROM units u "
        "JOIN items i ON i.id = u.item_id LEFT JOIN statements s ON s.id = u.statement_id WHERE u.id = ?",
        (unit_id,),
    ).fetchone()
    if row is None:
        raise StudyError(f"no unit {unit_id}")
    value = unit_value(study.conn, study.settings, unit_id, value)
    with study.tx() as conn:
        old = conn.execute(
            "SELECT value FROM current_adjudications WHERE unit_id = ?", (unit_id,)
        ).fetchone()
        cur = conn.execute(
            "INSERT INTO adjudications (unit_id, value, rationale, settles, actor, at, "
            "rationale_frame) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (unit_id, value, rationale.strip(), dumps(list(settles)), actor, utcnow(), frame),
        )
        audit(
            conn,
            actor,
            "adjudicate",
            row[1],
            old[0] if old else None,
            dumps({"value": value, "rationale": rationale.strip()}),
        )
        return int(cur.lastrowid or 0)


def reference_labels(study: Study) -> dict[int, str]:
    """unit id → the latest adjudicated value."""
    return dict(study.conn.execute("SELECT unit_id, value FROM current_adjudications").fetchall())


def unit_adjudications(study: Study, unit_id: int) -> list[sqlite3.Row]:
    """Every adjudication of a unit, oldest first (the last is current)."""
    return list(
        study.conn.execute("SELECT * FROM adjudications WHERE unit_id = ? ORDER BY id", (unit_id,))
    )
