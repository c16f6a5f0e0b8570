"""``assign --items``: a pilot subset named by the import file's ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


def _study(tmp_path: Path) -> Path:
    db = tmp_path / "t.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    src = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(5)])
    assert cli.invoke(app, ["import", str(db), str(src), "--kind", "pairwise"]).exit_code == 0
    return db


def _assigned(db: Path, login: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT i.ext_id FROM assignments a JOIN items i ON i.id = a.item_id "
            "WHERE a.login = ? ORDER BY i.id",
            (login,),
        ).fetchall()
    return [r[0] for r in rows]


def test_only_the_listed_items_are_assigned(tmp_path: Path) -> None:
    db = _study(tmp_path)
    ids = sorted(_all_ids(db))
    r = cli.invoke(app, ["assign", str(db), "drchen", "--items", f"{ids[3]}, {ids[1]}"])
    assert r.exit_code == 0, r.output
    assert _assigned(db, "drchen") == [ids[1], ids[3]]
    assert "drchen: 2 new, 2 assigned in all" in r.output


def test_an_unknown_id_is_named_and_nothing_is_assigned(tmp_path: Path) -> None:
    db = _study(tmp_path)
    ids = sorted(_all_ids(db))
    r = cli.invoke(app, ["assign", str(db), "drchen", "--items", f"{ids[0]},nope-9"])
    assert r.exit_code == 1
    assert "no item 'nope-9' in this study" in r.output
    assert _assigned(db, "drchen") == []


def _all_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT ext_id FROM items")]
