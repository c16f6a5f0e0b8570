"""The tables and views a live study file has, to compare with docs/schema.md."""

from __future__ import annotations

import sqlite3

FTS5_SHADOW = ("_data", "_idx", "_docsize", "_config")
"""FTS5's own storage tables, ``NAME_data`` … for an index table ``NAME``: described once, as a
group, in the search index section, not each on its own."""


def shadow_tables(conn: sqlite3.Connection) -> set[str]:
    """Tables SQLite itself calls shadow tables (a virtual table's storage)."""
    return {r[1] for r in conn.execute("PRAGMA table_list") if r[2] == "shadow"}


def live(conn: sqlite3.Connection) -> dict[tuple[str, str], list[str]]:
    """(type, name) → columns, for every table and view but SQLite's own and virtual tables'
    shadow tables."""
    objects = conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    shadows = shadow_tables(conn)
    return {
        (kind, name): [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
        for kind, name in objects
        if name not in shadows
    }
