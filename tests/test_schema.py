"""The study file: exact schema, migrations, pragmas, and files we must refuse."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from medjudge.store.db import StudyError
from medjudge.store.judgments import CallRow
from medjudge.store.migrations import MIGRATIONS, applied
from medjudge.store.study import Study

EXPECTED = {
    "_migrations": ["id", "name", "applied_at"],
    "study_settings": ["key", "value"],
    "imports": ["id", "file", "sha256", "kind", "actor", "at", "n_items", "n_labels"],
    "items": [
        "id",
        "ext_id",
        "kind",
        "question",
        "data",
        "context",
        "batch",
        "content_hash",
        "import_id",
        "created_at",
        "shown_order",
    ],
    "answers": ["id", "item_id", "position", "text", "source"],
    "statements": ["id", "item_id", "position", "text", "category"],
    "units": ["id", "item_id", "criterion", "statement_id", "position", "label"],
    "raters": ["id", "name", "kind", "config", "created_at"],
    "roles": ["login", "role", "granted_by", "at"],
    "labels": [
        "id",
        "unit_id",
        "rater_id",
        "value",
        "note",
        "updated_at",
        "note_frame",
        "display_order",
    ],
    "label_history": [
        "id",
        "unit_id",
        "rater_id",
        "old_value",
        "new_value",
        "note",
        "action",
        "after_reveal",
        "actor",
        "at",
        "note_frame",
        "display_order",
    ],
    "item_notes": ["item_id", "rater_id", "note", "updated_at", "note_frame", "display_order"],
    "item_time": ["item_id", "rater_id", "seconds", "visits"],
    "item_flags": ["id", "item_id", "rater_id", "flagged", "at"],
    "item_retirements": ["id", "item_id", "retired", "reason", "by", "at"],
    "document_marks": ["id", "item_id", "rater_id", "document", "marked", "at"],
    "guideline_reads": ["id", "rater_id", "guidelines_hash", "at"],
    "reveals": ["item_id", "rater_id", "at"],
    "assignments": ["item_id", "login", "batch", "assigned_by", "at", "sample_id"],
    "samples": [
        "id",
        "seed",
        "frame_size",
        "size",
        "inclusion_probability",
        "frame",
        "filters",
        "batch",
        "drawn_by",
        "at",
    ],
    "sample_items": ["sample_id", "item_id", "draw"],
    "judge_runs": [
        "id",
        "judges",
        "params",
        "actor",
        "started_at",
        "finished_at",
        "status",
        "calls_needed",
        "calls_made",
        "calls_cached",
        "calls_failed",
        "cost_usd",
    ],
    "judge_calls": [
        "key",
        "judge",
        "provider",
        "model",
        "template",
        "template_hash",
        "params",
        "messages",
        "item_id",
        "task",
        "sample",
        "status",
        "raw",
        "parsed",
        "error",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "latency_s",
        "attempts",
        "run_id",
        "created_at",
    ],
    "verdicts": [
        "id",
        "unit_id",
        "rater_id",
        "value",
        "status",
        "reason",
        "trail",
        "run_id",
        "created_at",
    ],
    "adjudications": [
        "id",
        "unit_id",
        "value",
        "rationale",
        "settles",
        "actor",
        "at",
        "rationale_frame",
    ],
    "audit": ["id", "at", "actor", "action", "entity", "old", "new"],
    "judge_versions": [
        "rater_id",
        "key",
        "spec",
        "templates",
        "params",
        "members",
        "created_at",
    ],
    "judge_batches": [
        "id",
        "judge",
        "provider",
        "token",
        "state",
        "provider_id",
        "input_file_id",
        "provider_status",
        "n_calls",
        "n_bytes",
        "run_id",
        "created_at",
        "submitted_at",
        "ended_at",
        "collected_at",
        "error",
    ],
    "judge_batch_calls": ["batch_id", "key", "custom_id"],
    "judge_batch_requests": ["batch_id", "key", "call"],
    "run_leases": ["judge_key", "judge", "token", "pid", "host", "started", "heartbeat"],
    # 016: browser logins (medjudge serve)
    "accounts": ["login", "password_hash", "set_by", "set_at"],
    # 013: the full-text search index (FTS5, external content) and FTS5's own shadow tables
    **{
        name: columns
        for table, column in (("items", "question"), ("answers", "text"), ("statements", "text"))
        for name, columns in (
            (f"{table}_fts", [column]),
            (f"{table}_fts_data", ["id", "block"]),
            (f"{table}_fts_idx", ["segid", "term", "pgno"]),
            (f"{table}_fts_docsize", ["id", "sz"]),
            (f"{table}_fts_config", ["k", "v"]),
        )
    },
}


def test_exact_schema(study: Study) -> None:
    tables = {
        r[0]: [c[1] for c in study.conn.execute(f"PRAGMA table_info({r[0]})")]
        for r in study.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    assert tables == EXPECTED
    views = {r[0] for r in study.conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
    assert views == {"current_verdicts", "current_adjudications"}
    triggers = {
        r[0] for r in study.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert {
        "label_history_append_only_u",
        "label_history_append_only_d",
        "audit_append_only_u",
        "audit_append_only_d",
        "verdicts_append_only_u",
        "verdicts_append_only_d",
        "adjudications_append_only_u",
        "adjudications_append_only_d",
        "item_flags_append_only_u",
        "item_flags_append_only_d",
        "document_marks_append_only_u",
        "document_marks_append_only_d",
        "judge_versions_fixed_u",
        "judge_versions_fixed_d",
        "raters_judge_config_fixed",
        # 009: INSERT OR REPLACE over an existing row is refused too
        "label_history_append_only_i",
        "audit_append_only_i",
        "verdicts_append_only_i",
        "adjudications_append_only_i",
        "item_flags_append_only_i",
        "document_marks_append_only_i",
        "judge_versions_fixed_i",
        # 011: recorded random samples are append-only
        "samples_append_only_u",
        "samples_append_only_d",
        "samples_append_only_i",
        "sample_items_append_only_u",
        "sample_items_append_only_d",
        "sample_items_append_only_i",
        # 014: retired items, with who, when and why
        "item_retirements_append_only_u",
        "item_retirements_append_only_d",
        "item_retirements_append_only_i",
    } == triggers


def test_migrations_are_tracked_and_idempotent(study: Study) -> None:
    assert applied(study.conn) == [name for name, _ in MIGRATIONS]
    path = study.path
    study.close()
    again = Study.open(path)
    assert applied(again.conn) == [name for name, _ in MIGRATIONS]
    assert again.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    again.close()


def test_pragmas(study: Study) -> None:
    assert study.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert study.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert study.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert study.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_history_and_audit_are_append_only(pairwise_study: Study) -> None:
    from medjudge.store.labels import set_label

    unit = pairwise_study.conn.execute("SELECT id FROM units LIMIT 1").fetchone()[0]
    set_label(pairwise_study, unit, "alice", "A")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        pairwise_study.conn.execute("UPDATE label_history SET new_value = 'B'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        pairwise_study.conn.execute("DELETE FROM audit")


def test_newer_study_is_refused(study: Study) -> None:
    with study.tx() as conn:
        conn.execute("INSERT INTO _migrations (name, applied_at) VALUES ('999_future', 'x')")
    path = study.path
    study.close()
    with pytest.raises(StudyError, match="newer medjudge"):
        Study.open(path)


def test_not_a_study(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StudyError, match="not"):
        Study.open(junk)
    other = tmp_path / "other.db"
    c = sqlite3.connect(other)
    c.execute("CREATE TABLE x (a)")
    c.commit()
    c.close()
    with pytest.raises(StudyError, match="another program"):
        Study.open(other)
    with pytest.raises(StudyError, match="no such study"):
        Study.open(tmp_path / "missing.db")


def test_corrupted_file_gives_a_clear_message(study: Study) -> None:
    path = study.path
    study.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the first page after the header
    path.write_bytes(bytes(data))
    with pytest.raises(StudyError) as info:
        Study.open(path)
    assert str(path) in str(info.value)


def test_create_refuses_existing_file(study: Study) -> None:
    with pytest.raises(StudyError, match="exists"):
        Study.create(study.path)


@pytest.mark.parametrize("table", ["label_history", "audit", "verdicts", "adjudications"])
def test_append_only_tables_refuse_update_and_delete_through_plain_sqlite(
    pairwise_study: Study, table: str
) -> None:
    """All four append-only tables: a row can be added, never changed or removed — not even by
    another program writing to the file with plain sqlite3."""
    from medjudge.store.adjudications import adjudicate
    from medjudge.store.judgments import NewVerdict, write_verdicts
    from medjudge.store.labels import set_label
    from medjudge.store.roles import grant

    s = pairwise_study
    unit = s.conn.execute("SELECT id FROM units LIMIT 1").fetchone()[0]
    set_label(s, unit, "alice", "A")
    write_verdicts(s, "openai:j", {}, [NewVerdict(unit, "A", "r", {})], run_id=None, actor="t")
    grant(s, "lead", "adjudicator", by="tester")
    adjudicate(s, unit, "A", rationale="agreed", actor="lead")
    path = s.path
    s.close()
    conn = sqlite3.connect(path)
    try:
        before = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        assert before >= 1
        column = conn.execute(f"PRAGMA table_info({table})").fetchall()[1][1]
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"UPDATE {table} SET {column} = {column}")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"DELETE FROM {table}")
        conn.rollback()
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == before
    finally:
        conn.close()


def test_note_frames_migrate_an_older_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a study made before 003_note_frames opens; its notes' frame is unknown (NULL)."""

    from .support.old_studies import old_study

    path = tmp_path / "old.db"
    old = old_study(path, monkeypatch, 1, pairwise=1)
    with old.tx() as conn:
        conn.execute(
            "INSERT INTO adjudications (unit_id, value, rationale, actor, at) "
            "VALUES (1, 'A', 'old rationale', 'carol', 'x')"
        )
    assert "rationale_frame" not in [c[1] for c in conn.execute("PRAGMA table_info(adjudications)")]
    old.close()
    monkeypatch.undo()
    new = Study.open(path)
    try:
        assert "003_note_frames" in applied(new.conn)
        row = new.conn.execute("SELECT rationale, rationale_frame FROM adjudications").fetchone()
        assert tuple(row) == ("old rationale", None)
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            new.conn.execute(
                "INSERT INTO adjudications (unit_id, value, rationale, actor, at, rationale_frame)"
                " VALUES (1, 'A', 'r', 'carol', 'x', 'left')"
            )
    finally:
        new.close()


def test_judge_versions_migrate_an_older_study_and_keep_its_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a study judged before 004_judge_versions opens with its verdicts; each judge becomes
    a version whose key is unknown until a run with the same settings adopts it."""
    from medjudge.store.judge_versions import list_versions

    from .support.old_studies import old_study

    path = tmp_path / "old.db"
    old = old_study(path, monkeypatch, 3, pairwise=1)
    config = '{"spec": "openai:gpt-4o", "provider": "openai", "model": "gpt-4o", "samples": 3}'
    with old.tx() as conn:
        conn.execute(
            "INSERT INTO raters (name, kind, config, created_at) VALUES ('openai:gpt-4o', 'judge',"
            " ?, 'x')",
            (config,),
        )
        conn.execute(
            "INSERT INTO verdicts (unit_id, rater_id, value, status, trail, created_at) "
            "SELECT 1, id, 'A', 'ok', '{}', 'x' FROM raters WHERE name = 'openai:gpt-4o'"
        )
        conn.execute(
            "INSERT INTO raters (name, kind, config, created_at) VALUES ('panel:a+b', 'judge', "
            """'{"panel": ["a", "b"], "rule": "plurality"}', 'y')"""
        )
    old.close()
    monkeypatch.undo()
    new = Study.open(path)
    try:
        assert "004_judge_versions" in applied(new.conn)
        v, panel = list_versions(new, unused=True)
        assert (panel.name, panel.members, panel.params["rule"], panel.key) == (
            "panel:a+b",
            ("a", "b"),
            "plurality",
            None,
        )
        assert (v.name, v.key, v.spec, v.short, v.params["samples"]) == (
            "openai:gpt-4o",
            None,
            "openai:gpt-4o",
            "legacy",
            3,
        )
        assert new.conn.execute("SELECT value FROM verdicts").fetchall()[0][0] == "A"
        with pytest.raises(sqlite3.IntegrityError, match="never changed"):
            new.conn.execute("UPDATE raters SET config = '{}' WHERE kind = 'judge'")
        with pytest.raises(sqlite3.IntegrityError, match="never changed"):
            new.conn.execute("DELETE FROM judge_versions")
    finally:
        new.close()


def test_batches_migrate_an_older_study_and_keep_their_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a study made before 005_batches opens with the batch tables; a batch is recorded
    with its calls before submission, and collecting stores its results in the call cache and
    clears the payloads in one step."""
    from medjudge.store import batches
    from medjudge.store.judgments import cached_calls

    from .support.old_studies import old_study

    path = tmp_path / "old.db"
    old_study(path, monkeypatch, 3, pairwise=1).close()
    monkeypatch.undo()
    s = Study.open(path)
    try:
        assert "005_batches" in applied(s.conn)
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == len(applied(s.conn))
        calls = [batches.BatchCall(f"k{i}", f"tok-k{i}", {"i": i}) for i in range(3)]
        bid = batches.record_intent(
            s,
            judge="openai:m",
            provider="openai",
            token="tok",
            calls=calls,
            n_bytes=10,
            run_id=None,
        )
        assert batches.keys_in_flight(s, ["openai:m"]) == {"k0", "k1", "k2"}
        assert batches.keys_in_flight(s, ["openai:other"]) == set()
        assert [b.state for b in batches.open_batches(s, ["openai:m"])] == ["intent"]
        batches.record_submitted(s, bid, "batch_1", "validating")
        batches.record_status(s, bid, "completed", ended=True)
        assert batches.get_batch(s, bid).state == "ended"
        assert batches.batch_calls(s, bid)[1].call == {"i": 1}
        row: CallRow = {
            "key": "k0", "judge": "openai:m", "provider": "openai", "model": "m",
            "template": "t", "template_hash": "h", "params": "{}", "messages": "[]",
            "item_id": 1, "task": "pairwise/AB", "sample": 0, "status": "ok", "raw": "x",
            "parsed": "{}", "error": None, "input_tokens": 1, "output_tokens": 1,
            "cost_usd": 0.0, "latency_s": 0.0, "attempts": 1, "run_id": None, "created_at": "t",
        }  # fmt: skip
        batches.record_collected(s, bid, [row])
        assert batches.get_batch(s, bid).state == "collected"
        assert batches.open_batches(s, ["openai:m"]) == []
        assert batches.keys_in_flight(s, ["openai:m"]) == set()
        assert batches.batch_calls(s, bid)[0].call == {}
        assert cached_calls(s, ["k0"])["k0"].status == "ok"
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            s.conn.execute("UPDATE judge_batches SET state = 'lost'")
        with pytest.raises(StudyError, match="UNIQUE"):  # one custom_id per batch, never two
            batches.record_intent(
                s, judge="openai:m", provider="openai", token="tok2",
                calls=[calls[0], batches.BatchCall("k9", "tok-k0", {})], n_bytes=1, run_id=None,
            )  # fmt: skip
    finally:
        s.close()


def test_answer_orders_migrate_an_older_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a study made before 017_answer_orders opens: each pairwise item's order is BA exactly
    where its swap bit was set, AB elsewhere, NULL for kinds without an order; the labels'
    orders stay; afterwards an item may hold more than two answers and orders of them."""
    from medjudge.store import export

    from .support.old_studies import old_study

    path = tmp_path / "old.db"
    old = old_study(path, monkeypatch, 16, pairwise=12, statements=1)
    bits = dict(old.conn.execute("SELECT ext_id, swap FROM items WHERE kind = 'pairwise'"))
    assert set(bits.values()) == {0, 1}  # both orders are present
    with old.tx() as conn:
        conn.execute(
            "INSERT INTO raters (name, kind, config, created_at) VALUES ('ann', 'human', '{}', 'x')"
        )
        conn.execute(
            "INSERT INTO labels (unit_id, rater_id, value, updated_at, display_order) "
            "SELECT u.id, 1, 'A', 'x', 'BA' FROM units u JOIN items i ON i.id = u.item_id "
            "WHERE i.ext_id = 'p0' AND u.criterion = 'correctness'"
        )
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            conn.execute(
                "INSERT INTO answers (item_id, position, text, source) VALUES (1, 'C', 't', 's')"
            )
    old.close()
    new = Study.open(path)
    try:
        assert "017_answer_orders" in applied(new.conn)
        orders = dict(new.conn.execute("SELECT ext_id, shown_order FROM items"))
        assert orders == {
            **{ext: ("BA" if bit else "AB") for ext, bit in bits.items()},
            "s0": None,
        }
        (row,) = [r for r in export.rows(new, "labels") if r["item"] == "p0"]
        assert (row["value"], row["display_order"]) == ("A", "BA")
        with new.tx() as conn:
            conn.execute(
                "INSERT INTO answers (item_id, position, text, source) VALUES (1, 'C', 't', 's')"
            )
            conn.execute("UPDATE labels SET display_order = 'CAB'")
        assert new.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        new.close()
