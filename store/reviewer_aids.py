"""Reviewer aids: "come back to this" flags on items, the study's guidelines seen or not, and
marks on the context documents a match answer wrongly relied on.

Flags are per reviewer and item; each change is a new row of ``item_flags`` (append-only, the
latest row holds), so when an item was flagged and unflagged stays on record. Guidelines are
Markdown text in the study settings (set by a lead); ``guideline_reads`` remembers which
version (its hash) each reviewer was shown, so the app shows them on a reviewer's first launch
and again after the lead changes them.
"""

from __future__ import annotations

import hashlib

from medjudge.store.study import Study, utcnow

MAX_GUIDELINES_CHARS = 100_000
"""Guidelines longer than this are refused (they are meant to be read on a review screen)."""


def set_flag(study: Study, item_id: int, reviewer: str, flagged: bool) -> None:
    """Flag (or unflag) an item for a reviewer to come back to; committed on return."""
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        conn.execute(
            "INSERT INTO item_flags (item_id, rater_id, flagged, at) VALUES (?, ?, ?, ?)",
            (item_id, rater_id, int(flagged), utcnow()),
        )


def flagged_items(study: Study, reviewer: str) -> set[int]:
    """The items a reviewer has flagged and not unflagged since."""
    rows = study.conn.execute(
        "SELECT f.item_id, f.flagged FROM item_flags f JOIN raters r ON r.id = f.rater_id "
        "WHERE r.name = ? AND r.kind = 'human' ORDER BY f.id",
        (reviewer,),
    ).fetchall()
    latest: dict[int, bool] = {}
    for item_id, flagged in rows:
        latest[int(item_id)] = bool(flagged)
    return {i for i, on in latest.items() if on}


def guidelines_hash(text: str) -> str:
    """A short, stable identity of a guidelines text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def guidelines_unread(study: Study, reviewer: str) -> bool:
    """Whether the study has guidelines this reviewer has not been shown in this version."""
    text = study.settings.guidelines
    if not text:
        return False
    row = study.conn.execute(
        "SELECT 1 FROM guideline_reads g JOIN raters r ON r.id = g.rater_id "
        "WHERE r.name = ? AND g.guidelines_hash = ?",
        (reviewer, guidelines_hash(text)),
    ).fetchone()
    return row is None


def mark_guidelines_read(study: Study, reviewer: str) -> None:
    """Record that the reviewer was shown the current guidelines."""
    text = study.settings.guidelines
    if not text:
        return
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        conn.execute(
            "INSERT OR IGNORE INTO guideline_reads (rater_id, guidelines_hash, at) VALUES (?, ?, ?)",
            (rater_id, guidelines_hash(text), utcnow()),
        )


def set_document_mark(study: Study, item_id: int, reviewer: str, document: int, on: bool) -> None:
    """Mark (or unmark) document ``document`` (1-based) of an item as wrongly relied on."""
    rater_id = study.rater_id(reviewer, "human")
    with study.tx() as conn:
        conn.execute(
            "INSERT INTO document_marks (item_id, rater_id, document, marked, at) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, rater_id, document, int(on), utcnow()),
        )


def document_marks(study: Study, item_id: int, reviewer: str) -> set[int]:
    """The documents of an item the reviewer currently marks as wrongly relied on."""
    latest: dict[int, bool] = {}
    for document, marked in study.conn.execute(
        "SELECT m.document, m.marked FROM document_marks m JOIN raters r ON r.id = m.rater_id "
        "WHERE m.item_id = ? AND r.name = ? AND r.kind = 'human' ORDER BY m.id",
        (item_id, reviewer),
    ):
        latest[int(document)] = bool(marked)
    return {d for d, on in latest.items() if on}
