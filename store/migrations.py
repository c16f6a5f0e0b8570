"""Named, ordered schema migrations with a tracking table.

Contract: shipped migrations are never edited; a schema change is a new entry appended to
``MIGRATIONS``. Each migration runs in its own transaction together with its row in
``_migrations``. A file that records a migration this version does not know was written by a
newer medjudge and is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .db import APP_ID, StudyError, transaction

M001_INITIAL = """
CREATE TABLE study_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE imports (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    n_items INTEGER NOT NULL,
    n_labels INTEGER NOT NULL
);
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    ext_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('pairwise', 'statements', 'rating')),
    question TEXT NOT NULL,
    data TEXT NOT NULL DEFAULT '{}',
    context TEXT,
    batch TEXT,
    swap INTEGER NOT NULL DEFAULT 0 CHECK (swap IN (0, 1)),
    content_hash TEXT NOT NULL,
    import_id INTEGER REFERENCES imports(id),
    created_at TEXT NOT NULL
);
CREATE INDEX items_kind ON items(kind);
CREATE INDEX items_batch ON items(batch);
CREATE TABLE answers (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    position TEXT NOT NULL CHECK (position IN ('A', 'B', 'answer', 'explanation')),
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    UNIQUE (item_id, position)
);
CREATE INDEX answers_source ON answers(source);
CREATE TABLE statements (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('must_have', 'nice_to_have')),
    UNIQUE (item_id, position)
);
CREATE TABLE units (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    criterion TEXT NOT NULL,
    statement_id INTEGER REFERENCES statements(id),
    position INTEGER NOT NULL,
    UNIQUE (item_id, criterion, statement_id)
);
CREATE INDEX units_item ON units(item_id, position);
CREATE TABLE raters (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('human', 'judge')),
    config TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE TABLE roles (
    login TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('lead', 'reviewer', 'adjudicator')),
    granted_by TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (login, role)
);
CREATE TABLE labels (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    value TEXT NOT NULL,
    note TEXT,
    updated_at TEXT NOT NULL,
    UNIQUE (unit_id, rater_id)
);
CREATE INDEX labels_rater ON labels(rater_id);
CREATE TABLE label_history (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    old_value TEXT,
    new_value TEXT,
    note TEXT,
    action TEXT NOT NULL CHECK (action IN ('label', 'undo', 'import', 'verdict')),
    after_reveal INTEGER NOT NULL DEFAULT 0,
    actor TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX label_history_unit ON label_history(unit_id, rater_id);
CREATE TABLE item_notes (
    item_id INTEGER NOT NULL REFERENCES items(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    note TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (item_id, rater_id)
);
CREATE TABLE item_time (
    item_id INTEGER NOT NULL REFERENCES items(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    seconds REAL NOT NULL DEFAULT 0,
    visits INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (item_id, rater_id)
);
CREATE TABLE reveals (
    item_id INTEGER NOT NULL REFERENCES items(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    at TEXT NOT NULL,
    PRIMARY KEY (item_id, rater_id)
);
CREATE TABLE assignments (
    item_id INTEGER NOT NULL REFERENCES items(id),
    login TEXT NOT NULL,
    batch TEXT,
    assigned_by TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (item_id, login)
);
CREATE INDEX assignments_login ON assignments(login);
CREATE TABLE judge_runs (
    id INTEGER PRIMARY KEY,
    judges TEXT NOT NULL,
    params TEXT NOT NULL,
    actor TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL DEFAULT 'running',
    calls_needed INTEGER NOT NULL DEFAULT 0,
    calls_made INTEGER NOT NULL DEFAULT 0,
    calls_cached INTEGER NOT NULL DEFAULT 0,
    calls_failed INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0
);
CREATE TABLE judge_calls (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    template TEXT NOT NULL,
    template_hash TEXT NOT NULL,
    params TEXT NOT NULL,
    messages TEXT NOT NULL,
    item_id INTEGER REFERENCES items(id),
    task TEXT NOT NULL,
    sample INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'error')),
    raw TEXT,
    parsed TEXT,
    error TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    latency_s REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 1,
    run_id INTEGER REFERENCES judge_runs(id),
    created_at TEXT NOT NULL
);
CREATE INDEX judge_calls_item ON judge_calls(item_id, judge);
CREATE TABLE verdicts (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    value TEXT,
    status TEXT NOT NULL CHECK (status IN ('ok', 'missing')),
    reason TEXT,
    trail TEXT NOT NULL,
    run_id INTEGER REFERENCES judge_runs(id),
    created_at TEXT NOT NULL
);
CREATE INDEX verdicts_unit ON verdicts(unit_id, rater_id, id);
CREATE INDEX verdicts_rater ON verdicts(rater_id);
CREATE TABLE adjudications (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL REFERENCES units(id),
    value TEXT NOT NULL,
    rationale TEXT NOT NULL CHECK (length(trim(rationale)) > 0),
    settles TEXT NOT NULL DEFAULT '[]',
    actor TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX adjudications_unit ON adjudications(unit_id, id);
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    entity TEXT NOT NULL,
    old TEXT,
    new TEXT
);
CREATE TRIGGER label_history_append_only_u BEFORE UPDATE ON label_history
BEGIN SELECT RAISE(ABORT, 'label_history is append-only'); END;
CREATE TRIGGER label_history_append_only_d BEFORE DELETE ON label_history
BEGIN SELECT RAISE(ABORT, 'label_history is append-only'); END;
CREATE TRIGGER audit_append_only_u BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER audit_append_only_d BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER verdicts_append_only_u BEFORE UPDATE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER adjudications_append_only_u BEFORE UPDATE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only'); END;
"""

M002_APPEND_ONLY = """
CREATE TRIGGER verdicts_append_only_d BEFORE DELETE ON verdicts
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER adjudications_append_only_d BEFORE DELETE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only'); END;
"""
"""``verdicts`` and ``adjudications`` block DELETE as well as UPDATE, like ``label_history``
and ``audit``: all four append-only tables are append-only at the database level."""

M003_NOTE_FRAMES = """
ALTER TABLE labels ADD COLUMN note_frame TEXT CHECK (note_frame IN ('file', 'display'));
ALTER TABLE label_history ADD COLUMN note_frame TEXT CHECK (note_frame IN ('file', 'display'));
ALTER TABLE item_notes ADD COLUMN note_frame TEXT CHECK (note_frame IN ('file', 'display'));
ALTER TABLE adjudications ADD COLUMN rationale_frame TEXT
    CHECK (rationale_frame IN ('file', 'display'));
"""
"""Free text records the answer-letter frame it was written in (#11, ``store.frames``): a note
typed on the review screen says "A" for the answer shown first (``display``); imported notes and
rationales use the file's letters (``file``). NULL: written before this migration, unknown."""

M005_BATCHES = """
CREATE TABLE judge_batches (
    id INTEGER PRIMARY KEY,
    judge TEXT NOT NULL,
    provider TEXT NOT NULL CHECK (provider IN ('openai', 'anthropic')),
    token TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL CHECK (state IN ('intent', 'submitted', 'ended', 'collected', 'failed')),
    provider_id TEXT,
    input_file_id TEXT,
    provider_status TEXT,
    n_calls INTEGER NOT NULL,
    n_bytes INTEGER NOT NULL,
    run_id INTEGER REFERENCES judge_runs(id),
    created_at TEXT NOT NULL,
    submitted_at TEXT,
    ended_at TEXT,
    collected_at TEXT,
    error TEXT
);
CREATE INDEX judge_batches_open ON judge_batches(state, judge);
CREATE TABLE judge_batch_calls (
    batch_id INTEGER NOT NULL REFERENCES judge_batches(id),
    key TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    PRIMARY KEY (batch_id, key),
    UNIQUE (batch_id, custom_id)
);
CREATE INDEX judge_batch_calls_key ON judge_batch_calls(key);
CREATE TABLE judge_batch_requests (
    batch_id INTEGER NOT NULL REFERENCES judge_batches(id),
    key TEXT NOT NULL,
    call TEXT NOT NULL,
    PRIMARY KEY (batch_id, key)
);
"""
"""Judge calls sent through the providers' batch APIs (#14, ``store.batches``). A batch is
recorded (state ``intent``, with its calls and a medjudge token) before it is submitted; the
provider's id is recorded once the provider accepted it; the results go into ``judge_calls``
under the calls' cache keys. ``judge_batch_requests`` holds each call's request and what is
needed to store its result, deleted once the batch is collected (its pages are then reused)."""

MIGRATIONS: list[tuple[str, str]] = [
    ("001_initial", M001_INITIAL),
    ("002_append_only", M002_APPEND_ONLY),
    ("003_note_frames", M003_NOTE_FRAMES),
    ("005_batches", M005_BATCHES),
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
    done = applied(conn)
    known = [name for name, _ in MIGRATIONS]
    unknown = [name for name in done if name not in known]
    if unknown:
        raise StudyError(
            f"{path}: this study was written by a newer medjudge (schema {unknown[-1]}); "
            "upgrade medjudge to open it"
        )
    new: list[str] = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        with transaction(conn, path):
            conn.execute(
                "CREATE TABLE IF NOT EXISTS _migrations ("
                "id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
            )
            for statement in _split(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                (name,),
            )
            conn.execute(f"PRAGMA application_id = {APP_ID}")
            conn.execute(f"PRAGMA user_version = {known.index(name) + 1}")
        new.append(name)
    return new


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
