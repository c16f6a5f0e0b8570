"""Retired items: kept in the study, out of every queue and every figure.

``medjudge retire`` takes an item out of the review and adjudication queues, of assignments,
judge runs, status counts and the report's figures — nothing is deleted: its labels, verdicts,
calls and adjudications stay, and ``retire --undo`` brings it back. Each change is a row of
``item_retirements`` (append-only, migration ``014_retirements``) with who, when and why; the
latest row per item holds. Retiring is a lead's action (``store.roles``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .db import StudyError
from .literal import control_character
from .people import person_name
from .roles import require
from .study import Study, audit, utcnow

MAX_REASON_CHARS = 2_000
"""A longer reason is refused (it is one line of a report table)."""

CURRENT = (
    "SELECT r.item_id, r.retired, r.reason, r.by, r.at FROM item_retirements r "
    "WHERE r.id = (SELECT max(b.id) FROM item_retirements b WHERE b.item_id = r.item_id)"
)


class Retirement(NamedTuple):
    """A retired item: its id in the import file and kind, why, by whom, when (UTC)."""

    item_id: int
    ext_id: str
    kind: str
    reason: str
    by: str
    at: str


class RetireResult(NamedTuple):
    """What :func:`retire` changed: the items changed, and those already in the asked state."""

    changed: list[str]
    unchanged: list[str]


def _has_table(study: Study) -> bool:
    return (
        study.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item_retirements'"
        ).fetchone()
        is not None
    )


def retired_ids(study: Study) -> set[int]:
    """The internal ids of the items retired now (empty on a file without the table)."""
    if not _has_table(study):
        return set()
    return {int(r[0]) for r in study.conn.execute(CURRENT) if r[1]}


def changes(study: Study) -> tuple[int, int]:
    """(rows, newest row id) of ``item_retirements``: changes whenever an item is retired or
    brought back (an open review app's queue signature reads it on every poll)."""
    if not _has_table(study):
        return 0, 0
    row = study.conn.execute(
        "SELECT count(*), coalesce(max(id), 0) FROM item_retirements"
    ).fetchone()
    return int(row[0]), int(row[1])


def retirements(study: Study) -> list[Retirement]:
    """The items retired now, each with the reason, login and time of its retirement, in the
    study's item order."""
    if not _has_table(study):
        return []
    rows = study.conn.execute(
        f"SELECT c.item_id, i.ext_id, i.kind, c.reason, c.by, c.at FROM ({CURRENT}) c "
        "JOIN items i ON i.id = c.item_id WHERE c.retired = 1 ORDER BY c.item_id"
    )
    return [Retirement(int(r[0]), *map(str, r[1:])) for r in rows]


def check_reason(reason: str) -> str:
    """A retirement's reason, stripped.

    Raises:
        StudyError: it is empty, too long, or holds a control character (newline included).
    """
    text = reason.strip()
    if not text:
        raise StudyError("--reason is empty: say why the item is retired")
    bad = control_character(text)
    if bad is not None:
        raise StudyError(
            f"--reason contains the control character U+{ord(bad):04X}; "
            "a reason must be one line of printable text"
        )
    if len(text) > MAX_REASON_CHARS:
        raise StudyError(f"--reason is longer than {MAX_REASON_CHARS:,} characters")
    return text


def retire(
    study: Study, ext_ids: Sequence[str], reason: str, *, by: str, undo: bool = False
) -> RetireResult:
    """Retire items (or, with ``undo``, bring them back), recorded with ``reason`` and ``by``.

    All or nothing: an unknown id changes nothing.

    Raises:
        StudyError: no id, an id the study does not have (named), a bad reason.
        PermissionDenied: ``by`` is not a lead of a study that names leads.
    """
    by = person_name(by, "login")
    text = check_reason(reason)
    wanted = list(dict.fromkeys(x.strip() for x in ext_ids if x.strip()))
    if not wanted:
        raise StudyError("no item id given (e.g. pw-01 or pw-01,pw-07)")
    require(study, by, "retire")
    with study.tx() as conn:
        found: dict[str, int] = {}
        for ext in wanted:
            row = conn.execute("SELECT id FROM items WHERE ext_id = ?", (ext,)).fetchone()
            if row is not None:
                found[ext] = int(row[0])
        unknown = [x for x in wanted if x not in found]
        if unknown:
            raise StudyError(f"no item {', '.join(map(repr, unknown))} in this study")
        now = retired_ids(study)
        changed: list[str] = []
        unchanged: list[str] = []
        at = utcnow()
        for ext, item_id in found.items():
            if (item_id in now) != undo:
                unchanged.append(ext)
                continue
            conn.execute(
                "INSERT INTO item_retirements (item_id, retired, reason, by, at) "
                "VALUES (?, ?, ?, ?, ?)",
                (item_id, 0 if undo else 1, text, by, at),
            )
            audit(conn, by, "item:unretire" if undo else "item:retire", f"item:{ext}", None, text)
            changed.append(ext)
    return RetireResult(changed, unchanged)
