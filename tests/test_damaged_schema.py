"""Regression tests for #43: a study missing part of its schema — a table, a view, a trigger —
is refused by every command with one line, before any work. Before, ``doctor`` passed it,
``import``, ``retire``, ``assign``, ``settings`` and ``backup`` exited 0, and ``judge`` paid for
its calls and only then met the missing view. Item data that is not a JSON object names the item instead of a
traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.migrations import fresh_objects
from medjudge.store.schema_objects import EXPECTED_OBJECTS

from .support.fakellm import FakeLLMServer
from .support.faults import megabyte_study, new_items

cli = CliRunner()

DROPS = {
    "table": ("DROP TABLE item_flags", "table item_flags"),
    "view": ("DROP VIEW current_verdicts", "view current_verdicts"),
    "trigger": ("DROP TRIGGER verdicts_append_only_d", "trigger verdicts_append_only_d"),
}


def commands(study: Path, folder: Path, judge_url: str) -> dict[str, list[str]]:
    s = str(study)
    return {
        "status": ["status", s],
        "import": ["import", s, str(new_items(folder)), "-k", "pairwise"],
        "retire": ["retire", s, "p0", "--reason", "duplicate"],
        "assign": ["assign", s, "ann", "bob"],
        "settings": ["settings", s, "--blind"],
        "backup": ["backup", s, str(folder / "copy.db")],
        "report": ["report", s, "-f", "json", "--n-boot", "100"],
        "search": ["search", s, "question"],
        "export": ["export", s, "labels"],
        "judge": ["judge", s, "-j", f"openai:fake@{judge_url}", "--samples", "1"],
        "review": ["review", s],
    }


def drop(study: Path, sql: str) -> None:
    conn = sqlite3.connect(study)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_the_expected_objects_are_what_the_migrations_make() -> None:
    """``store/schema_objects.py`` is written from the migrations (``gen_docs.py``)."""
    assert fresh_objects() == EXPECTED_OBJECTS


@pytest.mark.parametrize("what", sorted(DROPS))
@pytest.mark.parametrize(
    "command",
    [
        "status",
        "import",
        "retire",
        "assign",
        "settings",
        "backup",
        "report",
        "search",
        "export",
        "judge",
        "review",
    ],
)
def test_every_command_refuses_a_study_missing_part_of_its_schema(
    what: str, command: str, tmp_path: Path
) -> None:
    study = megabyte_study(tmp_path, n=4)
    sql, named = DROPS[what]
    drop(study, sql)
    with FakeLLMServer() as server:
        args = commands(study, tmp_path, server.openai_url)[command]
        r = cli.invoke(app, args)
        calls = server.count()
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    # a dropped table takes its triggers and indexes along: the table is named first
    assert lines[0].startswith(f"error: {study}: the study file is damaged (missing {named}")
    assert lines[0].endswith("); restore it from a backup"), r.stderr
    assert calls == 0
    assert not (tmp_path / "copy.db").exists()


@pytest.mark.parametrize("what", sorted(DROPS))
def test_doctor_reports_a_missing_table_view_or_trigger_as_damage(
    what: str, tmp_path: Path
) -> None:
    study = megabyte_study(tmp_path, n=4)
    sql, named = DROPS[what]
    drop(study, sql)
    r = cli.invoke(app, ["doctor", str(study)])
    assert r.exit_code == 1, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("FIX integrity"))
    assert f"damaged: missing {named}" in line, r.output
    assert "restore it from a backup" in r.output


def test_a_judge_run_on_a_study_without_its_view_makes_no_call(tmp_path: Path) -> None:
    """Regression test for #43: the view is read after the calls, so they were paid for."""
    study = megabyte_study(tmp_path, n=4)
    drop(study, "DROP VIEW current_verdicts")
    with FakeLLMServer() as server:
        r = cli.invoke(
            app, ["judge", str(study), "-j", f"openai:fake@{server.openai_url}", "--samples", "1"]
        )
        assert server.count() == 0, "calls were made (and paid for) on a damaged study"
    assert r.exit_code == 1 and "damaged (missing view current_verdicts)" in r.stderr, r.output


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "is not a JSON object"),
    ],
)
def test_judge_on_an_item_whose_data_is_damaged_names_the_item(
    data: str, why: str, tmp_path: Path
) -> None:
    study = megabyte_study(tmp_path, n=4)
    conn = sqlite3.connect(study)
    ext_id = conn.execute("SELECT ext_id FROM items ORDER BY id LIMIT 1 OFFSET 1").fetchone()[0]
    conn.execute("UPDATE items SET data = ? WHERE ext_id = ?", (data, ext_id))
    conn.commit()
    conn.close()
    with FakeLLMServer() as server:
        r = cli.invoke(
            app, ["judge", str(study), "-j", f"openai:fake@{server.openai_url}", "--samples", "1"]
        )
        assert server.count() == 0
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1, r.output
    assert r.stderr.strip().splitlines() == [
        f"error: {study}: the study file is damaged (item {ext_id}: its data {why}); "
        "restore it from a backup"
    ], r.stderr
