"""Human labels, their append-only history, notes, reveal state and time spent.

Storage contract: every call that writes a human label is one committed transaction; when
it returns, the label is on disk (``synchronous=FULL``), so a caller may then show it as saved.
``labels`` holds each rater's current value per unit; ``label_history`` keeps every change
(who, when, old, new, note, whether it came after the reveal) and is never updated or deleted.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from medjudge import kinds

from .db import StudyError
from .frames import DISPLAY, FILE, Frame
from .label_reads import Progress as Progress  # these three: read from here by tui/ and
from .label_reads import changes_since as changes_since  # judging/analysis/live.py
from .label_reads import progress as progress
from .settings import StudySettings
from .study import Study, utcnow


class LabelError(StudyError):
    """A label that cannot be stored (unknown unit, value outside the criterion's labels)."""


@dataclass(frozen=True)
class Saved:
    """What a label write stored: the history row that proves it."""

    history_id: int
    unit_id: int
    old_value: str | None
    new_value: str | None
    after_reveal: bool


def validate_value(settings: StudySettings, criterion: str, value: str) -> str:
    """Check a label value against its criterion; returns the canonical value.

    Raises:
        LabelError: the value is not allowed for the criterion.
    """
    try:
        crit = settings.criterion(criterion)
    except KeyError:
        raise LabelError(f"unknown criterion {criterion!r}") from None
    allowed = crit.labels()
    try:
        free = kinds.get(crit.kind).free_value(crit, value) if allowed is None else None
    except ValueError as exc:  # the kind says why (a ranking that ranks an answer twice)
        raise LabelError(f"{criterion}: {exc}") from None
    if free is not None:
        return free
    if allowed is not None:
        if value in allowed:
            return value
        same = _same_number(value, allowed)
        if same is None:
            raise LabelError(f"{criterion}: {value!r} is not one of {', '.join(allowed)}")
        return same
    # An options set (completeness): letters, comma separated, sorted; "-" is the empty set.
    parts = sorted({p.strip() for p in value.split(",") if p.strip() and p.strip() != "-"})
    if any(not p.isalnum() or len(p) > 3 for p in parts):
        raise LabelError(f"{criterion}: {value!r} is not a list of option letters")
    return ",".join(parts) or "-"


def unit_value(conn: sqlite3.Connection, settings: StudySettings, unit_id: int, value: str) -> str:
    """:func:`validate_value` for one unit, and whether the value fits the unit's item (a
    ranking ranks exactly the item's answers); returns the canonical value.

    Raises:
        LabelError: no such unit, or the value is not allowed there.
    """
    unit = _unit_row(conn, unit_id)
    value = validate_value(settings, unit["criterion"], value)
    kind = kinds.get(settings.criterion(unit["criterion"]).kind)
    slots = "".join(
        r[0]
        for r in conn.execute(
            "SELECT position FROM answers WHERE item_id = ? AND length(position) = 1 "
            "ORDER BY position",
            (unit["item_id"],),
        )
    )
    problem = kind.fits_item(value, slots)
    if problem is not None:
        raise LabelError(f"{unit['criterion']}: {problem}")
    return value


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _same_number(value: str, allowed: Sequence[str]) -> str | None:
    """The allowed value that is the same number as ``value`` (``4.0`` on a 1–5 scale is
    ``4``, ``1.0`` of a match score ``1``), when every allowed value is a number; else None."""
    x = _number(value.strip())
    numbers = [_number(a) for a in allowed]
    if x is None or any(n is None for n in numbers):
        return None
    return next((a for a, n in zip(allowed, numbers, strict=True) if n == x), None)


def canonical_value(settings: StudySettings, criterion: str, value: str) -> str:
    """A label value as typed by a person (``answer_b``, ``response_b``, ``b``, ``Entails`` …)
    → the canonical value, with the spellings imports accept (each kind's ``spellings``).
    Pairwise letters stay in the file frame: ``b`` is ``answer_b``.

    Raises:
        LabelError: the value is not allowed for the criterion.
    """
    try:
        kind = kinds.get(settings.criterion(criterion).kind)
    except KeyError:
        raise LabelError(f"unknown criterion {criterion!r}") from None
    return validate_value(settings, criterion, kind.canonical(value))


def _unit_row(conn: sqlite3.Connection, unit_id: int) -> sqlite3.Row:
    row = conn.execute(
        "SELECT id, item_id, criterion FROM units WHERE id = ?", (unit_id,)
    ).fetchone()
    if row is None:
        raise LabelError(f"no unit {unit_id}")
    unit: sqlite3.Row = row
    return unit


def labels_complete(conn: sqlite3.Connection, item_id: int, reviewer: str) -> bool:
    """Whether the reviewer has labelled every unit of the item (an item without units: no)."""
    units, labelled = conn.execute(
        "SELECT count(*), count(l.unit_id) FROM units u LEFT JOIN labels l ON l.unit_id = u.id "
        "AND l.rater_id = (SELECT id FROM raters WHERE name = ?) WHERE u.item_id = ?",
        (reviewer, item_id),
    ).fetchone()
    return bool(units > 0 and units == labelled)


def _revealed(conn: sqlite3.Connection, item_id: int, rater_id: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM reveals WHERE item_id = ? AND rater_id = ?", (item_id, rater_id)
        ).fetchone()
        is not None
    )


def write_label(
    conn: sqlite3.Connection,
    unit_id: int,
    rater_id: int,
    value: str | None,
    *,
    actor: str,
    action: str,
    note: str | None = None,
    note_frame: Frame = FILE,
    after_reveal: bool = False,
    display_order: str | None = None,
) -> Saved:
    """Set (or clear, with None) one rater's label inside an open transaction.

    A note is stored with ``note_frame``, the answer-letter frame it was written in
    (:mod:`store.frames`); without a note the frame is NULL and an earlier note keeps its own.
    ``display_order`` is the order the rater saw the answers in (``AB``/``BA``; None: not
    shown, e.g. imported), kept with the label and its history row.
    """
    frame = note_frame if note is not None else None
    old = conn.execute(
        "SELECT value FROM labels WHERE unit_id = ? AND rater_id = ?", (unit_id, rater_id)
    ).fetchone()
    old_value = old[0] if old else None
    now = utcnow()
    if value is None:
        conn.execute("DELETE FROM labels WHERE unit_id = ? AND rater_id = ?", (unit_id, rater_id))
    else:
        conn.execute(
            "INSERT INTO labels (unit_id, rater_id, value, note, note_frame, display_order, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (unit_id, rater_id) DO UPDATE SET value = excluded.value, "
            "note = coalesce(excluded.note, labels.note), "
            "note_frame = coalesce(excluded.note_frame, labels.note_frame), "
            "display_order = excluded.display_order, updated_at = excluded.updated_at",
            (unit_id, rater_id, value, note, frame, display_order, now),
        )
    row_id = _history(
        conn,
        (unit_id, rater_id, old_value, value, note, frame),
        (action, int(after_reveal), actor, now, display_order),
    )
    return Saved(row_id, unit_id, old_value, value, after_reveal)


def _history(conn: sqlite3.Connection, change: tuple[object, ...], how: tuple[object, ...]) -> int:
    """Append one ``label_history`` row: ``change`` = (unit, rater, old value, new value,
    note, note frame), ``how`` = (action, after the reveal, actor, at, display order)."""
    cur = conn.execute(
        "INSERT INTO label_history (unit_id, rater_id, old_value, new_value, note, note_frame, "
        "action, after_reveal, actor, at, display_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*change, *how),
    )
    return int(cur.lastrowid or 0)


def set_label(
    study: Study,
    unit_id: int,
    reviewer: str,
    value: str,
    *,
    note: str | None = None,
    note_frame: Frame = FILE,
    display_order: str | None = None,
) -> Saved:
    """Store a reviewer's label for one unit as its own committed transaction.

    Args:
        study: the open study.
        unit_id: the unit labelled.
        reviewer: the reviewer's name (login name by default).
        value: the label; checked against the unit's criterion.
        note: optional free text kept with the label and its history row.
        note_frame: the answer-letter frame the note was written in (the value itself is
            always in the file frame).
        display_order: the order the reviewer saw the item's answers in (``AB``/``BA``,
            :func:`store.frames.display_order` of the item as they saw it); None: not shown.

    Returns:
        The history row written; ``after_reveal`` is True when the reviewer had already seen
        the judge's verdict for this item (a change that may be anchored).

    Raises:
        LabelError: unknown unit or a value the criterion does not allow.
    """
    with study.tx() as conn:  # the rater lookup too: every read here is classified on error
        rater_id = study.rater_id(reviewer, "human", conn=conn)
        unit = _unit_row(conn, unit_id)
        value = unit_value(conn, study.settings, unit_id, value)
        revealed = _revealed(conn, unit["item_id"], rater_id)
        return write_label(
            conn,
            unit_id,
            rater_id,
            value,
            actor=reviewer,
            action="label",
            note=note,
            note_frame=note_frame,
            after_reveal=revealed,
            display_order=display_order,
        )


class UndoRefused(StudyError):
    """An undo on an item whose verdicts and others' labels the reviewer has seen."""


def revert(study: Study, saved: Saved, reviewer: str) -> Saved | None:
    """Undo one earlier write: put the label back to what it was before ``saved``.

    Refused (returns None) when the label has changed since, so an undo never clobbers a
    later decision. The undo is itself a history row (action ``undo``).

    Raises:
        UndoRefused: the item is done and was revealed to the reviewer: then a label changes
            only by an explicit change (the app's ``E``), counted as a change after the
            reveal — never by an undo and a new key, which would hide it from the anchoring
            figure.
    """
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        unit = _unit_row(conn, saved.unit_id)
        cur = conn.execute(
            "SELECT value, display_order FROM labels WHERE unit_id = ? AND rater_id = ?",
            (saved.unit_id, rater_id),
        ).fetchone()
        if (cur[0] if cur else None) != saved.new_value:
            return None
        revealed = _revealed(conn, unit["item_id"], rater_id)
        if revealed and labels_complete(conn, unit["item_id"], reviewer):
            raise UndoRefused(
                "this item's verdicts and others' labels were shown to you, so its labels "
                "are not undone; E changes a label (recorded as a change after the reveal)"
            )
        return write_label(
            conn,
            saved.unit_id,
            rater_id,
            saved.old_value,
            actor=reviewer,
            action="undo",
            after_reveal=revealed,
            display_order=cur[1] if cur else None,  # the label put back was seen the same way
        )


def item_labels(study: Study, item_id: int, rater: str) -> dict[int, str]:
    """One rater's current labels on an item: unit id → value.

    Planned from the item's units (``CROSS JOIN`` keeps SQLite from starting at the rater's
    labels, which grow with the study): a few index lookups whatever the study's size.
    """
    return {
        int(r[0]): r[1]
        for r in study.conn.execute(
            "SELECT u.id, l.value FROM units u CROSS JOIN labels l ON l.unit_id = u.id "
            "WHERE u.item_id = ? AND l.rater_id = (SELECT id FROM raters WHERE name = ?)",
            (item_id, rater),
        )
    }


def other_labels(study: Study, item_id: int, rater: str) -> dict[int, dict[str, str]]:
    """Every other rater's current labels on an item: unit id → {rater name: value}."""
    out: dict[int, dict[str, str]] = {}
    for r in study.conn.execute(
        "SELECT l.unit_id, ra.name, l.value FROM labels l JOIN units u ON u.id = l.unit_id "
        "JOIN raters ra ON ra.id = l.rater_id WHERE u.item_id = ? AND ra.name != ?",
        (item_id, rater),
    ):
        out.setdefault(r[0], {})[r[1]] = r[2]
    return out


def mark_revealed(study: Study, item_id: int, reviewer: str) -> bool:
    """Record that the reviewer has now seen the verdicts for this item.

    Returns:
        True when this is the first reveal for the item and reviewer.
    """
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        cur = conn.execute(
            "INSERT OR IGNORE INTO reveals (item_id, rater_id, at) VALUES (?, ?, ?)",
            (item_id, rater_id, utcnow()),
        )
        return cur.rowcount == 1


def is_revealed(study: Study, item_id: int, reviewer: str) -> bool:
    """Whether the reviewer has already seen the verdicts for this item."""
    return (
        study.conn.execute(
            "SELECT 1 FROM reveals v JOIN raters r ON r.id = v.rater_id WHERE v.item_id = ? AND r.name = ?",
            (item_id, reviewer),
        ).fetchone()
        is not None
    )


def set_note(
    study: Study,
    item_id: int,
    reviewer: str,
    note: str,
    *,
    frame: Frame = DISPLAY,
    display_order: str | None = None,
) -> None:
    """Store (or with an empty string, clear) a reviewer's free-text note on an item.

    ``frame`` is the answer-letter frame the note was written in: by default ``display``, as on
    the review screen, where "A" is the answer shown first (:mod:`store.frames`), in the order
    ``display_order`` (``AB``/``BA``) the reviewer saw the answers in.
    """
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        old = conn.execute(
            "SELECT note FROM item_notes WHERE item_id = ? AND rater_id = ?", (item_id, rater_id)
        ).fetchone()
        if note.strip():
            conn.execute(
                "INSERT INTO item_notes (item_id, rater_id, note, note_frame, display_order, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (item_id, rater_id) DO UPDATE SET note = excluded.note, "
                "note_frame = excluded.note_frame, display_order = excluded.display_order, "
                "updated_at = excluded.updated_at",
                (item_id, rater_id, note, frame, display_order, utcnow()),
            )
        else:
            conn.execute(
                "DELETE FROM item_notes WHERE item_id = ? AND rater_id = ?", (item_id, rater_id)
            )
        conn.execute(
            "INSERT INTO audit (at, actor, action, entity, old, new) VALUES (?, ?, 'note', ?, ?, ?)",
            (utcnow(), reviewer, f"item:{item_id}", old[0] if old else None, note or None),
        )


def set_label_note(
    study: Study, unit_id: int, reviewer: str, note: str, *, frame: Frame = DISPLAY
) -> None:
    """Store (or with an empty string, clear) a reviewer's note on one criterion (or
    statement): kept with their label on that unit, and in its history as a row whose value
    does not change (so no figure counts it as a change of mind).

    Raises:
        LabelError: the reviewer has no label on the unit yet (the note is the label's).
    """
    text = note if note.strip() else None
    with study.tx() as conn:
        rater_id = study.rater_id(reviewer, "human", conn=conn)
        row = conn.execute(
            "SELECT value, display_order FROM labels WHERE unit_id = ? AND rater_id = ?",
            (unit_id, rater_id),
        ).fetchone()
        if row is None:
            raise LabelError("label it first: a note on a criterion is kept with its label")
        unit = _unit_row(conn, unit_id)
        shown_frame, now = (frame if text else None), utcnow()
        conn.execute(
            "UPDATE labels SET note = ?, note_frame = ?, updated_at = ? "
            "WHERE unit_id = ? AND rater_id = ?",
            (text, shown_frame, now, unit_id, rater_id),
        )
        revealed = _revealed(conn, unit["item_id"], rater_id)
        _history(  # the order the label was given in: the note's letters are read in it
            conn,
            (unit_id, rater_id, row[0], row[0], text, shown_frame),
            ("label", int(revealed), reviewer, now, row[1]),
        )


def label_notes(study: Study, item_id: int, reviewer: str) -> dict[int, str]:
    """A reviewer's notes on an item's criteria and statements: unit → note.

    Planned from the item's units, as :func:`item_labels` (from the rater's labels it read all
    of them: 4 ms a key at 30,000).
    """
    rows = study.conn.execute(
        "SELECT l.unit_id, l.note FROM units u CROSS JOIN labels l ON l.unit_id = u.id "
        "WHERE u.item_id = ? AND l.rater_id = (SELECT id FROM raters WHERE name = ?) "
        "AND l.note IS NOT NULL AND l.note != ''",
        (item_id, reviewer),
    )
    return {int(u): str(n) for u, n in rows}


def get_note(study: Study, item_id: int, reviewer: str) -> str:
    """A reviewer's note on an item ('' when none)."""
    row = study.conn.execute(
        "SELECT n.note FROM item_notes n JOIN raters r ON r.id = n.rater_id "
        "WHERE n.item_id = ? AND r.name = ?",
        (item_id, reviewer),
    ).fetchone()
    return row[0] if row else ""


def add_time(study: Study, item_id: int, reviewer: str, seconds: float) -> None:
    """Add time a reviewer spent on an item (one visit)."""
    if seconds <= 0:
        return
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        conn.execute(
            "INSERT INTO item_time (item_id, rater_id, seconds, visits) VALUES (?, ?, ?, 1) "
            "ON CONFLICT (item_id, rater_id) DO UPDATE SET seconds = seconds + excluded.seconds, "
            "visits = visits + 1",
            (item_id, rater_id, seconds),
        )
