"""Append-only tables refuse ``INSERT OR REPLACE`` (and ``REPLACE INTO``) over an existing row.

SQLite's REPLACE conflict resolution deletes the old row without firing DELETE triggers (unless
``recursive_triggers`` is on), so the BEFORE DELETE triggers alone let a REPLACE rewrite a
label's history, a verdict or an audit row. Each append-only table refuses it at the database
level: through medjudge's own connection and through plain sqlite3 alike, on a new study and
on one made before the guard existed (migrated on open).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from medjudge.store.adjudications import adjudicate
from medjudge.store.db import StudyError
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.retirements import retire
from medjudge.store.reviewer_aids import set_flag
from medjudge.store.roles import grant
from medjudge.store.samples import draw_sample
from medjudge.store.study import Study

from .support.studies import small_study

APPEND_ONLY = [
    "label_history",
    "audit",
    "verdicts",
    "adjudications",
    "item_flags",
    "document_marks",
    "judge_versions",
    "samples",
    "item_retirements",
]


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A study with a row in every append-only table, closed."""
    s = small_study(tmp_path / "s.db", pairwise=2, statements=0)
    unit = s.conn.execute("SELECT id FROM units LIMIT 1").fetchone()[0]
    set_label(s, unit, "alice", "A")
    write_verdicts(s, "openai:j", {}, [NewVerdict(unit, "A", "r", {})], run_id=None, actor="t")
    grant(s, "lead", "adjudicator", by="tester")
    adjudicate(s, unit, "A", rationale="agreed", actor="lead")
    set_flag(s, 1, "alice", True)
    draw_sample(s, ["alice"], [1, 2], 1, 7, by="tester")
    retire(s, ["p1"], "a duplicate", by="tester")
    with s.tx() as conn:  # a match item's document marks need no match item at this level
        conn.execute(
            "INSERT INTO document_marks (item_id, rater_id, document, marked, at) "
            "VALUES (1, ?, 1, 1, 'x')",
            (s.rater_id("alice"),),
        )
        conn.execute(
            "INSERT INTO judge_versions (rater_id, key, spec, templates, params, created_at) "
            "VALUES (?, 'k1', 'openai:j', '{}', '{}', 'x')",
            (s.rater_id("openai:j", "judge", conn=conn),),
        )
    path = s.path
    s.close()
    return path


def _replace_first_row(conn: sqlite3.Connection, table: str, verb: str) -> None:
    """``verb`` (INSERT OR REPLACE / REPLACE) the table's first row with itself, changed."""
    cols = [c[1] for c in conn.execute(f"PRAGMA table_info({table})")]
    row = conn.execute(f"SELECT * FROM {table} ORDER BY rowid LIMIT 1").fetchone()
    values = list(row)
    # change its time, so a REPLACE that went through would be visible
    stamp = cols.index("at") if "at" in cols else cols.index("created_at")
    values[stamp] = "1999-01-01T00:00:00Z"
    marks = ", ".join("?" for _ in cols)
    conn.execute(f"{verb} INTO {table} ({', '.join(cols)}) VALUES ({marks})", values)


@pytest.mark.parametrize("verb", ["INSERT OR REPLACE", "REPLACE"])
@pytest.mark.parametrize("table", APPEND_ONLY)
def test_replace_over_an_existing_row_is_refused_through_plain_sqlite(
    filled: Path, table: str, verb: str
) -> None:
    conn = sqlite3.connect(filled)
    try:
        before = conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
        assert before, f"the fixture left {table} empty"
        with pytest.raises(sqlite3.IntegrityError, match="append-only|never changed"):
            _replace_first_row(conn, table, verb)
        conn.rollback()
        assert conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() == before
    finally:
        conn.close()


def test_replace_is_refused_through_the_study_connection(filled: Path) -> None:
    """The exact case of the report: an INSERT OR REPLACE over a label_history row raises and
    leaves the row as it was."""
    with Study.open(filled) as s:
        row = s.conn.execute("SELECT * FROM label_history ORDER BY id LIMIT 1").fetchone()
        before = tuple(row)
        n = s.conn.execute("SELECT count(*) FROM label_history").fetchone()[0]
        with pytest.raises(StudyError, match="label_history is append-only"):
            with s.tx() as conn:
                conn.execute(
                    "INSERT OR REPLACE INTO label_history (id, unit_id, rater_id, old_value, "
                    "new_value, action, actor, at) VALUES (?, ?, ?, NULL, 'B', 'label', 'x', 'x')",
                    (row["id"], row["unit_id"], row["rater_id"]),
                )
        after = s.conn.execute("SELECT * FROM label_history WHERE id = ?", (row["id"],))
        assert tuple(after.fetchone()) == before
        assert s.conn.execute("SELECT count(*) FROM label_history").fetchone()[0] == n


def test_new_rows_are_still_appended(filled: Path) -> None:
    """The guard fires only on a conflict: ordinary saves keep appending."""
    with Study.open(filled) as s:
        n = s.conn.execute("SELECT count(*) FROM label_history").fetchone()[0]
        unit = s.conn.execute("SELECT id FROM units LIMIT 1").fetchone()[0]
        set_label(s, unit, "alice", "B")
        set_label(s, unit, "bob", "A")
        assert s.conn.execute("SELECT count(*) FROM label_history").fetchone()[0] == n + 2


def test_a_study_made_before_the_guard_gets_it_on_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.store import migrations
    from medjudge.store.migrations import applied

    path = tmp_path / "old.db"
    before = [m for m in migrations.MIGRATIONS if m[0] != "009_no_replace"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = small_study(path, pairwise=1, statements=0)
    set_label(old, 1, "alice", "A")
    old.close()
    monkeypatch.undo()
    conn = sqlite3.connect(path)  # before medjudge opened it again: REPLACE goes through
    assert "009_no_replace" not in [r[0] for r in conn.execute("SELECT name FROM _migrations")]
    conn.close()
    with Study.open(path) as s:
        assert "009_no_replace" in applied(s.conn)
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            _replace_first_row(conn, "label_history", "INSERT OR REPLACE")
    finally:
        conn.close()
