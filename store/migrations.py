"""Named, ordered schema migrations with a tracking table.

Contract: shipped migrations are never edited; a schema change is a new entry appended to
``MIGRATIONS``. Each migration runs in its own transaction together with its row in
``_migrations``. A file that records a migration this version does not know was written by a
newer medjudge and is refused rather than guessed at.

The migrations themselves: 001 in :mod:`.schema_initial`, 002 to 016 in :mod:`.migration_steps`,
017 in :mod:`.migration_orders`, 018 in :mod:`.migration_unit_labels`, 019 in
:mod:`.migration_requeue`; here, the list, the runner and the schema checks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from .db import APP_ID, StudyError, transaction
from .migration_orders import m017_answer_orders
from .migration_requeue import m019_requeue_action
from .migration_steps import (
    M002_APPEND_ONLY,
    M003_NOTE_FRAMES,
    M004_JUDGE_VERSIONS,
    M005_BATCHES,
    M007_REVIEWER_AIDS,
    M008_CURRENT_VIEWS,
    M009_NO_REPLACE,
    M011_SAMPLES,
    M012_RUN_LEASES,
    M014_RETIREMENTS,
    M015_DISPLAY_ORDERS,
    M016_ACCOUNTS,
    m006_match_kind,
    m010_open_kinds,
    m013_search,
)
from .migration_unit_labels import M018_UNIT_LABELS
from .schema_initial import M001_INITIAL
from .schema_objects import EXPECTED_OBJECTS


def _rewrite_checks(
    conn: sqlite3.Connection, changes: tuple[tuple[str, str, str], ...], purpose: str
) -> None:
    """Replace CHECK constraints in tables' SQL, each (table, old text, new text).

    Every change only widens or drops a CHECK, which every stored row already meets, so it
    uses SQLite's documented procedure for schema changes that leave the stored data as it is
    (ALTER TABLE, "making other kinds of table schema changes"): rewrite the table's SQL in
    ``sqlite_schema``, bump ``schema_version``, check the file. It runs in the migration's
    transaction: all or nothing.

    Not sqlite-utils' ``table.transform()``: it has no way to change a CHECK (it copies them as
    they are), and it would copy every row to change nothing stored. A later migration that
    renames, drops or retypes a column can use ``transform()`` on the migration's transaction
    (it defers foreign keys there and keeps indexes), but it drops the table's triggers —
    ``items``, ``answers`` and ``statements`` carry the search index's, the append-only tables
    theirs — so such a migration re-creates them from ``sqlite_master`` afterwards.
    """
    version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    conn.execute("PRAGMA writable_schema = ON")
    try:
        for table, old, new in changes:
            (sql,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone()
            if old not in sql:
                raise StudyError(f"unexpected schema of table {table}: cannot {purpose}")
            conn.execute(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                (sql.replace(old, new), table),
            )
        conn.execute(f"PRAGMA schema_version = {version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")
    problem = conn.execute("PRAGMA quick_check").fetchone()[0]
    if problem != "ok":
        raise StudyError(f"the schema change to {purpose} failed its check: {problem}")


MIGRATIONS: list[tuple[str, str | Callable[[sqlite3.Connection], None]]] = [
    ("001_initial", M001_INITIAL),
    ("002_append_only", M002_APPEND_ONLY),
    ("003_note_frames", M003_NOTE_FRAMES),
    ("004_judge_versions", M004_JUDGE_VERSIONS),
    ("005_batches", M005_BATCHES),
    ("006_match_kind", m006_match_kind),
    ("007_reviewer_aids", M007_REVIEWER_AIDS),
    ("008_current_views", M008_CURRENT_VIEWS),
    ("009_no_replace", M009_NO_REPLACE),
    ("010_open_kinds", m010_open_kinds),
    ("011_samples", M011_SAMPLES),
    ("012_run_leases", M012_RUN_LEASES),
    ("013_search", m013_search),
    ("014_retirements", M014_RETIREMENTS),
    ("015_display_orders", M015_DISPLAY_ORDERS),
    ("016_accounts", M016_ACCOUNTS),
    ("017_answer_orders", m017_answer_orders),
    ("018_unit_labels", M018_UNIT_LABELS),
    ("019_requeue_action", m019_requeue_action),
]
"""Every migration this version knows, in the order they apply. Append only."""


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in the file, in the order they were applied."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'"
    ).fetchone()
    if not exists:
        return []
    return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY id")]


def migrate(conn: sqlite3.Connection, path: Path) -> list[str]:
    """Bring a study file up to this version's schema.

    Returns:
        The names of the migrations that were applied now (empty when already current).

    Raises:
        StudyError: the file is not a medjudge study or was written by a newer medjudge.
    """
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app_id not in (0, APP_ID) or (app_id == 0 and tables and "_migrations" not in tables):
        raise StudyError(f"{path}: not a medjudge study (it is an SQLite file of another program)")
    if app_id == APP_ID and "_migrations" not in tables:
        raise StudyError(damaged(path, "missing table _migrations"))
    done = applied(conn)
    known = [name for name, _ in MIGRATIONS]
    unknown = [name for name in done if name not in known]
    if unknown:
        raise StudyError(
            f"{path}: this study was written by a newer medjudge (schema {unknown[-1]}); "
            "upgrade medjudge to open it"
        )
    pending = [name for name, _ in MIGRATIONS if name not in done]
    if pending and getattr(conn, "read_only", None) is not None:
        raise StudyError(
            f"{path}: this study must first be brought up to this medjudge's schema "
            f"({pending[-1]}), which needs write access you do not have here; someone who can "
            f"write it runs any command on it once (`medjudge status {path}`)"
        )
    new: list[str] = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        with transaction(conn, path):
            # Re-checked under the write lock: another process opening the same study may
            # have applied it while this one waited (it was "cannot add the match kind").
            if name in applied(conn):
                continue
            conn.execute(
                "CREATE TABLE IF NOT EXISTS _migrations ("
                "id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
            )
            if callable(sql):
                sql(conn)
            else:
                for statement in _split(sql):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                (name,),
            )
            conn.execute(f"PRAGMA application_id = {APP_ID}")
            # The number of migrations applied (not this one's position: they may be applied
            # out of list order when a study met them on different versions).
            count = conn.execute("SELECT count(*) FROM _migrations").fetchone()[0]
            conn.execute(f"PRAGMA user_version = {int(count)}")
        new.append(name)
    return new


_OBJECTS = (
    "SELECT type, name FROM sqlite_master "
    "WHERE type IN ('table', 'view', 'trigger', 'index') AND substr(name, 1, 7) != 'sqlite_'"
)
"""Every table, view, trigger and index, SQLite's own (``sqlite_autoindex_…``) left out."""


def schema_objects(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """(type, name) of every table, view, trigger and index in the file."""
    return {(str(t), str(n)) for t, n in conn.execute(_OBJECTS)}


def fresh_objects() -> set[tuple[str, str]]:
    """What :func:`schema_objects` finds in a new study: every migration applied to an
    in-memory database. It takes about 0.4 s, so opening a study compares with
    :data:`~medjudge.store.schema_objects.EXPECTED_OBJECTS`, written from this by
    ``scripts/gen_docs.py`` (whose ``--check`` fails when a migration changed it)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn, Path(":memory:"))
        return schema_objects(conn)
    finally:
        conn.close()


def damaged(path: str | Path, what: str) -> str:
    """The one message for a study missing part of its schema."""
    return f"{path}: the study file is damaged ({what}); restore it from a backup"


def missing_objects(conn: sqlite3.Connection) -> str:
    """What the file lacks of this version's schema ("" when nothing): one query of
    ``sqlite_master`` compared with the expected set (objects added by hand are let be)."""
    order = {"table": 0, "view": 1, "trigger": 2, "index": 3}
    missing = sorted(EXPECTED_OBJECTS - schema_objects(conn), key=lambda o: (order[o[0]], o[1]))
    if not missing:
        return ""
    shown = ", ".join(f"{kind} {name}" for kind, name in missing[:4])
    more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
    return f"missing {shown}{more}"


def check_schema(conn: sqlite3.Connection, path: str | Path) -> None:
    """Refuse a study that lacks a table, view, trigger or index of this version's schema,
    before any work is done on it (a missing view would otherwise surface halfway through a
    judge run, after calls were paid for).

    Raises:
        StudyError: the study file is damaged (naming what is missing).
    """
    what = missing_objects(conn)
    if what:
        raise StudyError(damaged(path, what))


def _split(sql: str) -> list[str]:
    """Split a migration into statements; triggers keep their inner semicolons."""
    statements: list[str] = []
    buf = ""
    for line in sql.strip().splitlines():
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements
