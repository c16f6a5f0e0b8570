"""No CSV medjudge writes lets a cell start a spreadsheet formula.

An item id, a note or a metadata field that starts with ``=``, ``+``, ``-``, ``@``, tab or
carriage return opens in a spreadsheet as text (the cell starts with ``'``); numbers stay
numbers. Every writer goes through :func:`medjudge.store.literal.spreadsheet_cell`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.labels import set_label
from medjudge.store.literal import spreadsheet_cell, spreadsheet_text
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()
ITEM = '=HYPERLINK("http://example.invalid/?x","click")'
NOTE = "-2+3+cmd|' /C calc'!A0"
META = "@SUM(1+1)"


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("=1+2", "'=1+2"),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "\\x0dx"),  # a lone carriage return is shown, as the app shows it
        ("\x1b[2J=x", "\\x1b[2J=x"),  # no raw ESC, BEL, C1 or bidi control in a CSV
        ("=\u202ex\x07", "'=<U+202E>x\\x07"),
        ("a\x9bb\nc", "a\\x9bb\nc"),  # newlines and tabs kept
        ("-0.5", "-0.5"),  # a number written as text is not a formula
        ("+3", "+3"),
        ("-1e-3", "-1e-3"),
        ("-", "-"),  # a multi-select label with no option ticked
        ("-inf", "'-inf"),
        ("A", "A"),
        ("", ""),
        ("a=b", "a=b"),
    ],
)
def test_spreadsheet_text(text: str, cell: str) -> None:
    assert spreadsheet_text(text) == cell


def test_spreadsheet_cell_keeps_numbers_and_empty_cells() -> None:
    assert spreadsheet_cell(-0.5) == -0.5
    assert spreadsheet_cell(3) == 3
    assert spreadsheet_cell(None) is None
    assert spreadsheet_cell("=x") == "'=x"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A study whose item id is a formula, with a reviewer's note and metadata that are too."""
    path = tmp_path / "hostile.db"
    assert cli.invoke(app, ["init", str(path)]).exit_code == 0
    rows = [pairwise_row(1, id=ITEM, specialty=META), pairwise_row(2)]
    r = cli.invoke(
        app, ["import", str(path), str(write_jsonl(tmp_path / "p.jsonl", rows)), "-k", "pairwise"]
    )
    assert r.exit_code == 0, r.output
    with Study.open(path) as s:
        unit = s.conn.execute(
            "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id "
            "WHERE i.ext_id = ? ORDER BY u.position LIMIT 1",
            (ITEM,),
        ).fetchone()[0]
        set_label(s, unit, "ann", "A", note=NOTE)
    return path


def _csv(args: list[str]) -> list[dict[str, str]]:
    r = cli.invoke(app, args)
    assert r.exit_code == 0, r.output
    return list(csv.DictReader(io.StringIO(r.stdout)))


def test_labels_export_opens_as_text(hostile: Path) -> None:
    rows = _csv(["export", str(hostile), "labels", "-f", "csv"])
    mine = [r for r in rows if r["note"]]
    assert mine and mine[0]["item"] == "'" + ITEM
    assert mine[0]["note"] == "'" + NOTE
    assert META in mine[0]["meta"] and mine[0]["meta"].startswith("{")  # JSON: not a formula
    # numeric columns stay numbers, text without a formula start is untouched
    assert all(not r["item"].startswith(("=", "+", "-", "@")) for r in rows)
    assert {r["value"] for r in rows} == {"A"}


def test_wide_export_opens_as_text(hostile: Path) -> None:
    rows = _csv(["export", str(hostile), "labels", "--wide", "-f", "csv"])
    assert rows[0]["item"] == "'" + ITEM
    assert rows[0]["unit"].startswith("'" + ITEM + "/")
    assert rows[0]["ann"] == "A"


def test_assignments_export_opens_as_text(hostile: Path) -> None:
    r = cli.invoke(app, ["assign", str(hostile), "ann"])
    assert r.exit_code == 0, r.output
    rows = _csv(["export", str(hostile), "assignments", "-f", "csv"])
    assert "'" + ITEM in {row["item"] for row in rows}


def test_every_exported_table_opens_as_text(hostile: Path) -> None:
    for table in ("labels", "history", "ledger", "assignments", "verdicts", "adjudications"):
        r = cli.invoke(app, ["export", str(hostile), table, "-f", "csv"])
        assert r.exit_code == 0, r.output
        for row in csv.reader(io.StringIO(r.stdout)):
            for cell in row:
                assert cell[:1] not in ("=", "+", "@", "\t", "\r"), (table, cell)
                assert not cell.startswith("-") or cell == "-" or _number(cell), (table, cell)


def test_report_csv_opens_as_text(hostile: Path) -> None:
    r = cli.invoke(app, ["report", str(hostile), "-f", "csv", "--n-boot", "200"])
    assert r.exit_code == 0, r.output
    for row in csv.reader(io.StringIO(r.stdout)):
        for cell in row:
            assert cell[:1] not in ("=", "+", "@", "\t", "\r"), cell


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True
