"""The schema migrations 002 to 016 (``store.migrations.MIGRATIONS`` lists them in order;
001 is :mod:`.schema_initial`, 017 :mod:`.migration_orders`): each one's SQL, or the function
that makes the change, with what it adds and why.

Shipped migrations are never edited (see :mod:`.migrations`).
"""

from __future__ import annotations

import sqlite3

from .db import StudyError

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
"""Free text records the answer-letter frame it was written in (``store.frames``): a note
typed on the review screen says "A" for the answer shown first (``display``); imported notes and
rationales use the file's letters (``file``). NULL: written before this migration, unknown."""

M004_JUDGE_VERSIONS = """
CREATE TABLE judge_versions (
    rater_id INTEGER PRIMARY KEY REFERENCES raters(id),
    key TEXT UNIQUE,
    spec TEXT NOT NULL,
    templates TEXT NOT NULL DEFAULT '{}',
    params TEXT NOT NULL DEFAULT '{}',
    members TEXT,
    created_at TEXT NOT NULL
);
INSERT INTO judge_versions (rater_id, key, spec, templates, params, members, created_at)
SELECT id, NULL, coalesce(json_extract(config, '$.spec'), name), '{}', config,
       json_extract(config, '$.panel'), created_at
FROM raters WHERE kind = 'judge';
CREATE TRIGGER judge_versions_fixed_u BEFORE UPDATE ON judge_versions WHEN OLD.key IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'a judge version is never changed'); END;
CREATE TRIGGER judge_versions_fixed_d BEFORE DELETE ON judge_versions
BEGIN SELECT RAISE(ABORT, 'a judge version is never changed'); END;
CREATE TRIGGER raters_judge_config_fixed BEFORE UPDATE OF config ON raters
WHEN OLD.kind = 'judge'
BEGIN SELECT RAISE(ABORT, 'a judge version is never changed'); END;
"""
"""A judge version is provider + model + templates + parameters; each is its own rater,
and neither its ``raters`` row nor its ``judge_versions`` row changes once written, so a re-run
with other settings becomes a new version instead of replacing the old one's verdicts.
``key`` is the SHA-256 of the version's identity. Judges recorded before this migration get a
row with ``key`` NULL (their templates were never recorded with the rater); the first run whose
settings match one of them fills the key in, once (``store.judge_versions``)."""
_LOOSENED_CHECKS = (
    (
        "items",
        "CHECK (kind IN ('pairwise', 'statements', 'rating'))",
        "CHECK (kind IN ('pairwise', 'statements', 'rating', 'match'))",
    ),
    (
        "statements",
        "CHECK (category IN ('must_have', 'nice_to_have'))",
        "CHECK (category IN ('must_have', 'nice_to_have', 'subquestion'))",
    ),
)


def m006_match_kind(conn: sqlite3.Connection) -> None:
    """Allow the ``match`` item kind (MedRGB) and ``subquestion`` statements."""
    from .migrations import _rewrite_checks, _split  # the one way a CHECK changes

    _rewrite_checks(conn, _LOOSENED_CHECKS, "add the match kind")
    for statement in _split(M006_DOCUMENT_MARKS):
        conn.execute(statement)


_OPENED_CHECKS = (
    (
        "items",
        " CHECK (kind IN ('pairwise', 'statements', 'rating', 'match'))",
        "",
    ),
    (
        "statements",
        " CHECK (category IN ('must_have', 'nice_to_have', 'subquestion'))",
        "",
    ),
)


def m010_open_kinds(conn: sqlite3.Connection) -> None:
    """An item's kind and a listed entry's category are whatever the registered kinds say
    (``medjudge.kinds``, checked at import), not a list written into the schema: a kind added
    later (``rubric``) needs no schema change."""
    from .migrations import _rewrite_checks

    _rewrite_checks(conn, _OPENED_CHECKS, "open the item kinds")


M006_DOCUMENT_MARKS = """
CREATE TABLE document_marks (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    document INTEGER NOT NULL CHECK (document >= 1),
    marked INTEGER NOT NULL CHECK (marked IN (0, 1)),
    at TEXT NOT NULL
);
CREATE INDEX document_marks_item ON document_marks(item_id, rater_id);
CREATE TRIGGER document_marks_append_only_u BEFORE UPDATE ON document_marks
BEGIN SELECT RAISE(ABORT, 'document_marks is append-only'); END;
CREATE TRIGGER document_marks_append_only_d BEFORE DELETE ON document_marks
BEGIN SELECT RAISE(ABORT, 'document_marks is append-only'); END;
"""
"""A reviewer's marks on a match item's context documents the answer wrongly relied on: one
row per change (the latest per reviewer, item and document holds; the history stays)."""


M007_REVIEWER_AIDS = """
CREATE TABLE item_flags (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    flagged INTEGER NOT NULL CHECK (flagged IN (0, 1)),
    at TEXT NOT NULL
);
CREATE INDEX item_flags_rater ON item_flags(rater_id, item_id);
CREATE TRIGGER item_flags_append_only_u BEFORE UPDATE ON item_flags
BEGIN SELECT RAISE(ABORT, 'item_flags is append-only'); END;
CREATE TRIGGER item_flags_append_only_d BEFORE DELETE ON item_flags
BEGIN SELECT RAISE(ABORT, 'item_flags is append-only'); END;
CREATE TABLE guideline_reads (
    id INTEGER PRIMARY KEY,
    rater_id INTEGER NOT NULL REFERENCES raters(id),
    guidelines_hash TEXT NOT NULL,
    at TEXT NOT NULL,
    UNIQUE (rater_id, guidelines_hash)
);
"""
"""Reviewer aids: "come back to this" flags, one row per change (the latest per reviewer
and item holds; the history stays), and which version of the study's guidelines each reviewer
has been shown (so a changed text is shown again on the next launch)."""

M008_CURRENT_VIEWS = """
CREATE VIEW current_verdicts AS
SELECT v.* FROM verdicts v
WHERE v.id = (SELECT max(v2.id) FROM verdicts v2
              WHERE v2.unit_id = v.unit_id AND v2.rater_id = v.rater_id);
CREATE VIEW current_adjudications AS
SELECT a.* FROM adjudications a
WHERE a.id = (SELECT max(b.id) FROM adjudications b WHERE b.unit_id = a.unit_id);
"""
""""The latest verdict (per unit and judge) and the latest adjudication (per unit) hold", defined
once, as views: every query that needs the current one reads these."""

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
"""Judge calls sent through the providers' batch APIs (``store.batches``). A batch is
recorded (state ``intent``, with its calls and a medjudge token) before it is submitted; the
provider's id is recorded once the provider accepted it; the results go into ``judge_calls``
under the calls' cache keys. ``judge_batch_requests`` holds each call's request and what is
needed to store its result, deleted once the batch is collected (its pages are then reused)."""

M009_NO_REPLACE = """
CREATE TRIGGER label_history_append_only_i BEFORE INSERT ON label_history
WHEN EXISTS (SELECT 1 FROM label_history WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'label_history is append-only'); END;
CREATE TRIGGER audit_append_only_i BEFORE INSERT ON audit
WHEN EXISTS (SELECT 1 FROM audit WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER verdicts_append_only_i BEFORE INSERT ON verdicts
WHEN EXISTS (SELECT 1 FROM verdicts WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'verdicts are append-only'); END;
CREATE TRIGGER adjudications_append_only_i BEFORE INSERT ON adjudications
WHEN EXISTS (SELECT 1 FROM adjudications WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only'); END;
CREATE TRIGGER document_marks_append_only_i BEFORE INSERT ON document_marks
WHEN EXISTS (SELECT 1 FROM document_marks WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'document_marks is append-only'); END;
CREATE TRIGGER item_flags_append_only_i BEFORE INSERT ON item_flags
WHEN EXISTS (SELECT 1 FROM item_flags WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'item_flags is append-only'); END;
CREATE TRIGGER judge_versions_fixed_i BEFORE INSERT ON judge_versions
WHEN EXISTS (SELECT 1 FROM judge_versions WHERE rater_id = NEW.rater_id OR key = NEW.key)
BEGIN SELECT RAISE(ABORT, 'a judge version is never changed'); END;
"""
"""``INSERT OR REPLACE`` (``REPLACE INTO``) over an existing row of an append-only table is
refused. SQLite resolves a REPLACE conflict by deleting the old row *without* firing the BEFORE
DELETE triggers (unless ``recursive_triggers`` is on, a per-connection setting another program
need not use), so those triggers alone let a REPLACE rewrite history. A BEFORE INSERT trigger
fires for every connection: a row whose key is already taken is refused before any conflict
resolution (a plain INSERT of a taken key failed anyway; new rows are unaffected)."""

M011_SAMPLES = """
CREATE TABLE samples (
    id INTEGER PRIMARY KEY,
    seed INTEGER NOT NULL,
    frame_size INTEGER NOT NULL CHECK (frame_size >= 1),
    size INTEGER NOT NULL CHECK (size >= 1 AND size <= frame_size),
    inclusion_probability REAL NOT NULL
        CHECK (inclusion_probability > 0 AND inclusion_probability <= 1),
    frame TEXT NOT NULL,
    filters TEXT NOT NULL DEFAULT '{}',
    batch TEXT,
    drawn_by TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE sample_items (
    sample_id INTEGER NOT NULL REFERENCES samples(id),
    item_id INTEGER NOT NULL UNIQUE REFERENCES items(id),
    draw INTEGER NOT NULL CHECK (draw >= 1),
    PRIMARY KEY (sample_id, item_id)
);
ALTER TABLE assignments ADD COLUMN sample_id INTEGER REFERENCES samples(id);
CREATE TRIGGER samples_append_only_u BEFORE UPDATE ON samples
BEGIN SELECT RAISE(ABORT, 'samples are append-only'); END;
CREATE TRIGGER samples_append_only_d BEFORE DELETE ON samples
BEGIN SELECT RAISE(ABORT, 'samples are append-only'); END;
CREATE TRIGGER samples_append_only_i BEFORE INSERT ON samples
WHEN EXISTS (SELECT 1 FROM samples WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'samples are append-only'); END;
CREATE TRIGGER sample_items_append_only_u BEFORE UPDATE ON sample_items
BEGIN SELECT RAISE(ABORT, 'sample_items is append-only'); END;
CREATE TRIGGER sample_items_append_only_d BEFORE DELETE ON sample_items
BEGIN SELECT RAISE(ABORT, 'sample_items is append-only'); END;
CREATE TRIGGER sample_items_append_only_i BEFORE INSERT ON sample_items
WHEN EXISTS (SELECT 1 FROM sample_items WHERE item_id = NEW.item_id)
BEGIN SELECT RAISE(ABORT, 'sample_items is append-only'); END;
"""
"""Random physician samples (``store.samples``): ``assign --sample N --seed S`` draws a
uniform random sample of N items from a frame (the items the command's filters select that no
earlier sample holds) and records it — the seed, the frame (its item ids, as JSON, and its
size), N, the inclusion probability N / frame size, the filters and the assignment batch —
with its items in ``sample_items`` (an item is in one sample at most; ``draw`` is the order
drawn). The statistics rely on this record to know which reference labels come from a random
sample, so both tables are append-only. An assignment made for a sample names it
(``assignments.sample_id``; NULL: assigned by hand)."""

M012_RUN_LEASES = """
CREATE TABLE run_leases (
    judge_key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started TEXT NOT NULL,
    heartbeat TEXT NOT NULL
);
CREATE INDEX run_leases_token ON run_leases(token);
"""
"""One judge run per judge version at a time (``store.leases``): a run holds a lease per
judge version (its key) from before its first call to its end — the process (pid, host), when
it started and its latest heartbeat. A second run of the same judge version is refused while
the holder lives; a lease whose process is gone (same host, pid not alive) or whose heartbeat
is older than two minutes is taken over. Rows are deleted when the run ends."""

M014_RETIREMENTS = """
CREATE TABLE item_retirements (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items(id),
    retired INTEGER NOT NULL CHECK (retired IN (0, 1)),
    reason TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX item_retirements_item ON item_retirements(item_id, id);
CREATE TRIGGER item_retirements_append_only_u BEFORE UPDATE ON item_retirements
BEGIN SELECT RAISE(ABORT, 'item_retirements is append-only'); END;
CREATE TRIGGER item_retirements_append_only_d BEFORE DELETE ON item_retirements
BEGIN SELECT RAISE(ABORT, 'item_retirements is append-only'); END;
CREATE TRIGGER item_retirements_append_only_i BEFORE INSERT ON item_retirements
WHEN EXISTS (SELECT 1 FROM item_retirements WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'item_retirements is append-only'); END;
"""
"""Retired items (``store.retirements``): ``medjudge retire`` takes an item out of every
queue and every figure without deleting anything. One row per change — retired (1) or brought
back (0, ``retire --undo``) — with the reason, the lead's login and the time; the latest row
per item holds and the history stays (append-only)."""

M015_DISPLAY_ORDERS = """
ALTER TABLE labels ADD COLUMN display_order TEXT CHECK (display_order IN ('AB', 'BA'));
ALTER TABLE label_history ADD COLUMN display_order TEXT CHECK (display_order IN ('AB', 'BA'));
ALTER TABLE item_notes ADD COLUMN display_order TEXT CHECK (display_order IN ('AB', 'BA'));
"""
"""The order the reviewer saw a pairwise item's answers in when they gave the label or wrote
the note (``settings --order per-reviewer``): ``AB`` (answer A shown first) or ``BA``, in
file letters. Written by the review app; NULL for imported labels, judges' verdicts, other
kinds and rows written before this migration (then the item's own order, ``items.swap``, was
the only one). A ``display`` note is read in this order."""

M016_ACCOUNTS = """
CREATE TABLE accounts (
    login TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL CHECK (substr(password_hash, 1, 10) = '$argon2id$'),
    set_by TEXT NOT NULL,
    set_at TEXT NOT NULL
);
"""
"""Browser logins (``medjudge serve STUDY --add-user NAME``, ``store.accounts``): one row per
login, with the argon2id hash of its password (PHC string: parameters, salt and hash; never
the password), who set it and when. The login is the reviewer name the served app runs
under, as a login name is over SSH. A row is replaced when its password is changed and
deleted with ``--remove-user``; both are in ``audit`` (without the hash)."""

SEARCHED = (("items", "question"), ("answers", "text"), ("statements", "text"))
"""What the full-text search index holds (table, column): questions, answers, listed entries.
Never an answer's ``source``: a blind reviewer searches too."""

SEARCH_TOKENIZER = "porter unicode61 remove_diacritics 2"
"""Words are matched by their stem (``infections`` finds ``infection``), case and accents
ignored."""


def m013_search(conn: sqlite3.Connection) -> None:
    """The full-text search index (``store.search``): an FTS5 table per searched table
    (``items_fts``, ``answers_fts``, ``statements_fts``) over the stored text (external
    content: the text is not stored twice), made and filled from the rows there are by
    sqlite-utils' ``enable_fts``. It runs in the migration's transaction: sqlite-utils executes
    its statements one by one on the open transaction, so a study killed halfway through has no
    index and gets it on the next open.

    No triggers keep it up to date: the import, the only writer of these tables (rows are
    never changed or deleted), adds its new rows to the index in one statement per table
    (:func:`store.search.index_new_rows`). FTS5 writes out its pending index at every
    statement, so triggers (one statement per row) made a 10,000-item import four times slower
    (about 2 s → 8 s); the one statement adds under a second (2.0 s → 1.9–2.8 s measured)."""
    from sqlite_utils import Database

    if not conn.in_transaction:  # enable_fts would commit each step on its own
        raise StudyError("the search index must be built inside the migration's transaction")
    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    try:
        for table, column in SEARCHED:
            db.table(table).enable_fts([column], tokenize=SEARCH_TOKENIZER)
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc):
            raise StudyError(
                f"this Python's SQLite has no FTS5 full-text search ({exc}); medjudge needs "
                "a Python whose sqlite3 module is built with FTS5 (python.org, Debian, conda)"
            ) from None
        raise
