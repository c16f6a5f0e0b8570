"""docs/schema.md lists every table and view a study has, each with all its columns, and
nothing a study does not have: a new table, view or column fails here until it is
documented for the people who open the file in Datasette or pandas."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from medjudge.demo.build import build_demo
from medjudge.store.study import Study

from .support.paths import REPO
from .support.schema import FTS5_SHADOW, live, shadow_tables

SCHEMA_MD = REPO / "docs" / "schema.md"
_HEADING = re.compile(r"^### (table|view) `(\w+)`$", re.MULTILINE)


def documented() -> dict[tuple[str, str], str]:
    """(type, name) → the text of its section."""
    text = SCHEMA_MD.read_text(encoding="utf-8")
    found = list(_HEADING.finditer(text))
    sections = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        sections[(m.group(1), m.group(2))] = text[m.end() : end]
    return sections


@pytest.fixture(params=["new", "demo"])
def conn(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "s.db"
    if request.param == "new":
        Study.create(path, actor="tester").close()
    else:
        build_demo(path, actor="tester").close()
    c = sqlite3.connect(path)
    yield c
    c.close()


def test_every_table_and_view_is_documented_and_every_documented_one_exists(
    conn: sqlite3.Connection,
) -> None:
    have, docs = set(live(conn)), set(documented())
    assert not have - docs, f"not in docs/schema.md: {sorted(have - docs)}"
    assert not docs - have, f"in docs/schema.md but not in a study: {sorted(docs - have)}"


def test_every_column_of_a_table_is_documented(conn: sqlite3.Connection) -> None:
    sections = documented()
    missing = []
    for (kind, name), columns in live(conn).items():
        if kind == "view":  # views say which table's columns they have
            continue
        missing += [f"{name}.{c}" for c in columns if f"`{c}`" not in sections[(kind, name)]]
    assert not missing, f"columns not described in docs/schema.md: {missing}"


def test_views_name_the_table_whose_columns_they_have(conn: sqlite3.Connection) -> None:
    sections, tables = documented(), live(conn)
    for (kind, name), columns in tables.items():
        if kind == "view":
            (source,) = re.findall(r"Same columns as `(\w+)`", sections[(kind, name)])
            assert tables[("table", source)] == columns, name


def test_every_shadow_table_belongs_to_a_documented_index(conn: sqlite3.Connection) -> None:
    sections, text = documented(), SCHEMA_MD.read_text(encoding="utf-8")
    shadows = shadow_tables(conn)
    assert shadows, "a study has a search index"
    for name in shadows:
        owner, suffix = next((name[: -len(s)], s) for s in FTS5_SHADOW if name.endswith(s))
        assert ("table", owner) in sections, name
        assert f"`NAME{suffix}`" in text, suffix
