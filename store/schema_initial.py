"""The first schema of a study (migration ``001_initial``), as shipped: never edited.

Later changes are migrations of their own in :mod:`.migrations`.
"""

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
