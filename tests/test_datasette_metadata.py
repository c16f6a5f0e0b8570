"""docs/datasette-metadata.json: Datasette's descriptions of every table, view and column
of a live study, generated from docs/schema.md so the two cannot drift, with a label column
for every table a foreign key points to. The checks here are on the JSON's structure, as
Datasette reads it (``databases`` → name → ``tables`` → name → ``description``, ``columns``
{column: description}, ``label_column``); tests/test_datasette_serves.py runs the real
Datasette on it."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from medjudge.demo.build import build_demo
from medjudge.store.study import Study

from .support.paths import REPO
from .support.schema import live

METADATA = REPO / "docs" / "datasette-metadata.json"


def _gen_docs() -> Any:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    return gen_docs


@pytest.fixture(scope="module")
def metadata() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(METADATA.read_text(encoding="utf-8"))
    return data


@pytest.fixture(params=["new", "demo"])
def conn(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "study.db"
    if request.param == "new":
        Study.create(path, actor="tester").close()
    else:
        build_demo(path, actor="tester").close()
    c = sqlite3.connect(path)
    yield c
    c.close()


def _tables(metadata: dict[str, Any]) -> dict[str, Any]:
    assert set(metadata) >= {"title", "description", "databases"}
    (name,) = metadata["databases"]
    assert name == "study"  # what docs/schema.md tells people to open: study.db
    tables: dict[str, Any] = metadata["databases"][name]["tables"]
    return tables


def test_the_file_is_what_schema_md_generates(metadata: dict[str, Any]) -> None:
    gen_docs = _gen_docs()
    text = gen_docs.datasette_metadata(gen_docs.SCHEMA_MD.read_text(encoding="utf-8"))
    assert METADATA.read_text(encoding="utf-8") == text, "run python scripts/gen_docs.py"


def test_every_table_view_and_column_is_described(
    metadata: dict[str, Any], conn: sqlite3.Connection
) -> None:
    tables = _tables(metadata)
    have = {name: columns for (_, name), columns in live(conn).items()}
    assert set(tables) == set(have)
    for name, columns in have.items():
        entry = tables[name]
        assert set(entry) <= {"description", "columns", "label_column"}, name
        assert isinstance(entry["description"], str) and entry["description"].strip(), name
        described = entry["columns"]
        assert list(described) == [c for c in described if c in columns], name
        assert set(described) == set(columns), name
        assert all(isinstance(v, str) and v.strip() for v in described.values()), name


def test_every_table_a_foreign_key_points_to_has_a_label(
    metadata: dict[str, Any], conn: sqlite3.Connection
) -> None:
    tables = _tables(metadata)
    have = {name: columns for (kind, name), columns in live(conn).items() if kind == "table"}
    targets = {fk[2] for name in have for fk in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
    assert targets >= {"items", "raters", "units"}
    for target in targets:
        label = tables[target].get("label_column")
        assert label in have[target], f"{target}: label column {label!r}"


def test_datasette_finds_the_search_index(conn: sqlite3.Connection) -> None:
    # Datasette's own rule (datasette.utils.detect_fts_sql): an FTS virtual table whose
    # content= names the table gives that table a search box.
    for table in ("items", "answers", "statements"):
        rows = conn.execute(
            "SELECT name FROM sqlite_master WHERE rootpage = 0 AND sql LIKE ?",
            (f'%VIRTUAL TABLE%USING FTS%content="{table}"%',),
        ).fetchall()
        assert rows == [(f"{table}_fts",)]


def test_a_view_takes_its_tables_column_descriptions(metadata: dict[str, Any]) -> None:
    tables = _tables(metadata)
    assert tables["current_verdicts"]["columns"] == tables["verdicts"]["columns"]
    assert tables["items"]["columns"]["ext_id"].startswith("the item's `id` in the import file")
    assert tables["items"]["label_column"] == "ext_id"
