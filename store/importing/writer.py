"""Storing parsed items: all or nothing.

Contract: :func:`store_items` takes the parsed items one at a time (a large file is never
held whole) and, inside one write transaction, checks each item and its labels against
the study and writes it. Any problem raises :class:`ImportProblem`, which rolls the whole
import back, as does an error during a write, so a failed import leaves the study file
byte-for-byte unchanged. Re-importing an item with the same id and content changes nothing;
the same id with other content is an error, never an overwrite.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from medjudge import kinds
from medjudge.kinds import orders

from ..frames import FILE
from ..items import item_order
from ..labels import write_label
from ..migration_unit_labels import unit_label
from ..search import index_marks, index_new_rows
from ..settings import Criterion
from ..study import Study, audit, dumps, utcnow
from .parsed import ItemIn, LabelIn
from .problems import ImportProblem
from .readers import file_sha256, is_stdin


@dataclass
class ImportSummary:
    """What an import did."""

    file: str
    kind: str
    items_added: int = 0
    items_unchanged: int = 0
    statements_added: int = 0
    labels_added: int = 0
    labels_unchanged: int = 0
    skipped: list[str] = field(default_factory=list)
    """Entries deliberately not imported, each with why (K-QA: an empty answer)."""

    def describe(self) -> str:
        """One line for the terminal."""
        parts = [f"{self.items_added} new {self.kind} item(s)"]
        if self.items_unchanged:
            parts.append(f"{self.items_unchanged} already present")
        if self.statements_added:
            parts.append(f"{self.statements_added} statements")
        if self.labels_added or self.labels_unchanged:
            parts.append(f"{self.labels_added} new label(s)")
        if self.labels_unchanged:
            parts.append(f"{self.labels_unchanged} label(s) already present")
        if self.skipped:
            shown = "; ".join(self.skipped[:5]) + ("; …" if len(self.skipped) > 5 else "")
            parts.append(f"{len(self.skipped)} skipped ({shown})")
        return f"{self.file}: " + ", ".join(parts)


def _storable(name: str) -> str:
    """A file name as text SQLite can hold: bytes that are not UTF-8 become ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _existing(conn: sqlite3.Connection, ext_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT i.id, i.content_hash, im.file FROM items i LEFT JOIN imports im ON im.id = i.import_id "
        "WHERE i.ext_id = ?",
        (ext_id,),
    ).fetchone()
    return row


def _rater_names(conn: sqlite3.Connection) -> tuple[set[str], set[str]]:
    """The study's human and judge rater names before the import."""
    names: dict[str, set[str]] = {"human": set(), "judge": set()}
    for name, kind in conn.execute(
        "SELECT name, kind FROM raters WHERE kind IN ('human', 'judge')"
    ):
        names[kind].add(name)
    return names["human"], names["judge"]


def _check(
    conn: sqlite3.Connection, item: ItemIn, human_names: set[str], judge_names: set[str]
) -> int | None:
    """Validate one item against the stored study; the id of the stored item when it is the
    same item (unchanged), else None.

    Runs inside the import's write transaction, so what it checked is what the import writes
    over: a concurrent import either committed before (and is checked against) or waits.
    """
    row = _existing(conn, item.ext_id)
    if row is not None and row["content_hash"] != item.content_hash():
        origin = f" (imported from {row['file']})" if row["file"] else ""
        raise ImportProblem(
            item.file,
            f"id {item.ext_id!r} already exists in the study with different content{origin}; "
            "give the new item another id",
            line=item.line,
            field="id",
        )
    for lab in item.labels:
        clash = judge_names if lab.rater_kind == "human" else human_names
        if lab.rater in clash:
            other = "judge" if lab.rater_kind == "human" else "human reviewer"
            raise ImportProblem(
                item.file,
                f"rater {lab.rater!r} is already a {other} in this study",
                line=item.line,
                field="labels",
            )
        if row is not None:
            current = _stored_label(conn, int(row["id"]), lab)
            if current is not None and current != lab.value:
                raise ImportProblem(
                    item.file,
                    f"{lab.rater}'s {lab.criterion} label is {current!r} in the study but "
                    f"{lab.value!r} here; labels are not overwritten by imports",
                    line=item.line,
                    field="labels",
                )
    return int(row["id"]) if row is not None else None


def _stored_label(conn: sqlite3.Connection, item_id: int, lab: LabelIn) -> str | None:
    unit = _unit_id(conn, item_id, lab)
    row = conn.execute(
        "SELECT l.value FROM labels l JOIN raters r ON r.id = l.rater_id WHERE l.unit_id = ? AND r.name = ?",
        (unit, lab.rater),
    ).fetchone()
    return row[0] if row else None


def _unit_id(conn: sqlite3.Connection, item_id: int, lab: LabelIn) -> int:
    if lab.statement is not None:
        row = conn.execute(
            "SELECT u.id FROM units u JOIN statements s ON s.id = u.statement_id "
            "WHERE u.item_id = ? ORDER BY s.position LIMIT 1 OFFSET ?",
            (item_id, lab.statement),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT id FROM units WHERE item_id = ? AND criterion = ? AND statement_id IS NULL",
            (item_id, lab.criterion),
        ).fetchone()
    if row is None:
        raise KeyError((item_id, lab.criterion, lab.statement))
    return int(row[0])


def store_items(
    study: Study,
    items: Iterable[ItemIn],
    *,
    file: Path,
    kind: str,
    actor: str,
    settings_extra: dict[str, object] | None = None,
    skipped: list[str] | None = None,
    check: Callable[[ItemIn], None] | None = None,
    require_items: bool = False,
) -> ImportSummary:
    """Check and store parsed items and their labels, one item at a time, in one write
    transaction.

    The checks and the writes share one ``BEGIN IMMEDIATE`` transaction (retried while another
    process holds the lock), so concurrent imports are serialised: each either stores all of
    its items and labels or fails with one message and stores nothing.

    Args:
        items: the parsed items (consumed once; a generator streams a large file).
        check: a further check of each item (e.g. whose labels the actor may import).
        require_items: no items at all is an error (``has no records``).

    Raises:
        ImportProblem: bad input, an id conflict or a label conflict; nothing is written.
    """
    summary = ImportSummary(
        file="standard input" if is_stdin(file) else file.name, kind=kind, skipped=skipped or []
    )
    # a file is hashed first; standard input once it has been read, so that a bad line of a
    # stream that never ends is found where it stands, not after copying the stream
    sha = file_sha256(file) if not is_stdin(file) and file.exists() else ""
    settings = study.settings
    criteria = settings.criteria_for(kind)
    with study.tx() as conn:
        unindexed = index_marks(conn)
        human_names, judge_names = _rater_names(conn)
        now = utcnow()
        import_id = conn.execute(
            "INSERT INTO imports (file, sha256, kind, actor, at, n_items, n_labels) "
            "VALUES (?, ?, ?, ?, ?, 0, 0)",
            (_storable(str(file)), sha, kind, actor, now),
        ).lastrowid
        seen = 0
        for item in items:
            seen += 1
            if check is not None:
                check(item)
            item_id = _check(conn, item, human_names, judge_names)
            if item_id is not None:
                summary.items_unchanged += 1
            else:
                item_id = _insert_item(conn, item, import_id, settings.seed, criteria, now)
                summary.items_added += 1
                summary.statements_added += len(item.statements)
            for lab in item.labels:
                if _write_imported_label(study, conn, item_id, item, lab, actor, import_id):
                    summary.labels_added += 1
                else:
                    summary.labels_unchanged += 1
        if require_items and seen == 0:
            raise ImportProblem(file, "has no records")
        if summary.items_added:
            index_new_rows(conn, unindexed)  # searchable once committed
        if summary.items_added == 0 and summary.labels_added == 0:
            conn.execute("DELETE FROM imports WHERE id = ?", (import_id,))
        else:
            if is_stdin(file):
                sha = file_sha256(file)  # all of it has been read: hashing reads no further
            conn.execute(
                "UPDATE imports SET n_items = ?, n_labels = ?, sha256 = ? WHERE id = ?",
                (summary.items_added, summary.labels_added, sha, import_id),
            )
            audit(
                conn,
                actor,
                "import",
                f"import:{import_id}",
                None,
                dumps(
                    {
                        "file": _storable(str(file)),
                        "kind": kind,
                        "items": summary.items_added,
                        "labels": summary.labels_added,
                    }
                ),
            )
        for key, value in (settings_extra or {}).items():
            conn.execute(
                "INSERT INTO study_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, dumps(value)),
            )
    return summary


def _insert_item(
    conn: sqlite3.Connection,
    item: ItemIn,
    import_id: int | None,
    seed: int,
    criteria: list[Criterion],
    now: str,
) -> int:
    kind = kinds.get(item.kind)
    order = item_order(item.kind, seed, item.ext_id, orders.slots_of(p for p, _, _ in item.answers))
    item_id = int(
        conn.execute(
            "INSERT INTO items (ext_id, kind, question, data, context, batch, shown_order, "
            "content_hash, "
            "import_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item.ext_id,
                item.kind,
                item.question,
                dumps(item.data),
                dumps(item.context) if item.context else None,
                item.batch,
                order,
                item.content_hash(),
                import_id,
                now,
            ),
        ).lastrowid
        or 0
    )
    conn.executemany(
        "INSERT INTO answers (item_id, position, text, source) VALUES (?, ?, ?, ?)",
        [(item_id, pos, text, source) for pos, text, source in item.answers],
    )
    # Units labelled once per item first, then one unit per listed entry (statement,
    # sub-question, rubric criterion), numbered on from there.
    per_item = (
        [c for c in criteria if c.name != kind.listed_criterion] if kind.item_criteria else []
    )
    conn.executemany(
        "INSERT INTO units (item_id, criterion, statement_id, position, label) "
        "VALUES (?, ?, NULL, ?, ?)",
        [
            (item_id, c.name, pos, unit_label(item.ext_id, c.name, None))
            for pos, c in enumerate(per_item)
        ],
    )
    if kind.listed_criterion is not None:
        _statement_units(
            conn, item_id, item.ext_id, item.statements, kind.listed_criterion, first=len(per_item)
        )
    return item_id


def _statement_units(
    conn: sqlite3.Connection,
    item_id: int,
    ext_id: str,
    statements: list[tuple[str, str]],
    criterion: str,
    *,
    first: int,
) -> None:
    """Statement rows and one unit of ``criterion`` per statement, numbered from ``first``."""
    for pos, (text, category) in enumerate(statements, start=first):
        label = unit_label(ext_id, criterion, pos - first + 1)
        sid = conn.execute(
            "INSERT INTO statements (item_id, position, text, category) VALUES (?, ?, ?, ?)",
            (item_id, pos, text, category),
        ).lastrowid
        conn.execute(
            "INSERT INTO units (item_id, criterion, statement_id, position, label) "
            "VALUES (?, ?, ?, ?, ?)",
            (item_id, criterion, sid, pos, label),
        )


def _write_imported_label(
    study: Study,
    conn: sqlite3.Connection,
    item_id: int,
    item: ItemIn,
    lab: LabelIn,
    actor: str,
    import_id: int | None,
) -> bool:
    unit_id = _unit_id(conn, item_id, lab)
    config = {"external": True} if lab.rater_kind == "judge" else None
    rater_id = study.rater_id(lab.rater, lab.rater_kind, config, conn=conn)
    row = conn.execute(
        "SELECT value FROM labels WHERE unit_id = ? AND rater_id = ?", (unit_id, rater_id)
    ).fetchone()
    if row is not None:
        return False
    write_label(  # an import file's notes use its own letters
        conn,
        unit_id,
        rater_id,
        lab.value,
        actor=actor,
        action="import",
        note=lab.note,
        note_frame=FILE,
    )
    if lab.rater_kind == "judge":
        conn.execute(
            "INSERT INTO verdicts (unit_id, rater_id, value, status, reason, trail, run_id, created_at) "
            "VALUES (?, ?, ?, 'ok', ?, ?, NULL, ?)",
            (
                unit_id,
                rater_id,
                lab.value,
                lab.note,
                dumps(
                    {
                        "source": "import",
                        "file": _storable(item.file),
                        "line": item.line,
                        "import_id": import_id,
                    }
                ),
                utcnow(),
            ),
        )
    return True
