"""``medjudge retire``: an item stays in the study — labels, verdicts, calls kept — but
leaves every queue (review, adjudication, assign, judge, status) and every figure of the
report, which lists it under "Retired items" in every format; ``--undo`` brings it back."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.analysis.disagreements import queue
from medjudge.store.labels import set_label
from medjudge.store.paths import login_name
from medjudge.store.roles import grant, revoke
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen
from medjudge.tui.session import ReviewSession
from medjudge.tui.widgets import ProgressLine

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import current, run_async, screen_text, until

cli = CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Four pairwise items (p0–p3); alice and bob labelled correctness on p0 and p1 and
    disagree on both (two entries of the adjudication queue). This login is the lead."""
    path = tmp_path / "r.db"
    assert cli.invoke(app, ["init", str(path)]).exit_code == 0
    src = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(4)])
    assert cli.invoke(app, ["import", str(path), str(src), "--kind", "pairwise"]).exit_code == 0
    with Study.open(path) as s:
        for ext in ("p0", "p1"):
            unit = _unit(s, ext)
            set_label(s, unit, "alice", "A")
            set_label(s, unit, "bob", "B")
    return path


def _unit(s: Study, ext: str, criterion: str = "correctness") -> int:
    return int(
        s.conn.execute(
            "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id "
            "WHERE i.ext_id = ? AND u.criterion = ?",
            (ext, criterion),
        ).fetchone()[0]
    )


def _retire(db: Path, *args: str) -> Result:
    return cli.invoke(app, ["retire", str(db), *args])


def _report(db: Path, fmt: str) -> str:
    r = cli.invoke(app, ["report", str(db), "-f", fmt, "--seed", "1"])
    assert r.exit_code == 0, r.output
    return r.stdout


def _correctness(report: dict[str, Any]) -> dict[str, Any]:
    (c,) = [c for c in report["criteria"] if c["name"] == "correctness"]
    result: dict[str, Any] = c
    return result


def _status(db: Path) -> dict[str, Any]:
    r = cli.invoke(app, ["status", str(db), "--json"])
    assert r.exit_code == 0, r.output
    result: dict[str, Any] = json.loads(r.stdout)
    return result


# -- the command ---------------------------------------------------------------------------


def test_retire_and_undo_say_what_they_did(db: Path) -> None:
    r = _retire(db, "p0,p2", "--reason", "duplicate of p3")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["p0: retired", "p2: retired"]
    r = _retire(db, "p0", "--reason", "again")
    assert r.exit_code == 0 and r.stdout.strip() == "p0: already retired, unchanged"
    r = _retire(db, "p2", "--undo", "--reason", "not a duplicate after all")
    assert r.exit_code == 0 and r.stdout.strip() == "p2: brought back"
    r = _retire(db, "p2", "--undo", "--reason", "again")
    assert r.exit_code == 0 and r.stdout.strip() == "p2: not retired, unchanged"
    with Study.open(db) as s:
        rows = s.conn.execute(
            "SELECT i.ext_id, r.retired, r.reason, r.by FROM item_retirements r "
            "JOIN items i ON i.id = r.item_id ORDER BY r.id"
        ).fetchall()
    me = login_name()
    assert [tuple(x) for x in rows] == [
        ("p0", 1, "duplicate of p3", me),
        ("p2", 1, "duplicate of p3", me),
        ("p2", 0, "not a duplicate after all", me),
    ]


def test_unknown_id_missing_or_bad_reason_change_nothing(db: Path) -> None:
    r = _retire(db, "p0,nope-9", "--reason", "x")
    assert r.exit_code == 1 and "no item 'nope-9' in this study" in r.stderr
    r = _retire(db, "p0")
    assert r.exit_code == 2 and "--reason" in r.output
    for bad in ("a\x1b[2Jb", "two\nlines", "   "):
        r = _retire(db, "p0", "--reason", bad)
        assert r.exit_code == 1 and "--reason" in r.stderr, r.output
    with Study.open(db) as s:
        assert s.conn.execute("SELECT count(*) FROM item_retirements").fetchone()[0] == 0


def test_only_a_lead_retires(db: Path) -> None:
    me = login_name()
    with Study.open(db) as s:
        grant(s, "drlead", "lead", by=me)
        revoke(s, me, "lead", by=me)
    r = _retire(db, "p0", "--reason", "x")
    assert r.exit_code == 1 and f"{me} is not a lead of this study" in r.stderr
    with Study.open(db) as s:
        grant(s, me, "lead", by="drlead")
    assert _retire(db, "p0", "--reason", "x").exit_code == 0


def test_the_record_is_append_only(db: Path) -> None:
    assert _retire(db, "p0", "--reason", "x").exit_code == 0
    conn = sqlite3.connect(db)
    try:
        for sql in ("UPDATE item_retirements SET reason = 'y'", "DELETE FROM item_retirements"):
            with pytest.raises(sqlite3.IntegrityError, match="item_retirements is append-only"):
                conn.execute(sql)
        assert conn.execute("SELECT reason FROM item_retirements").fetchall() == [("x",)]
    finally:
        conn.close()


# -- out of the queues ---------------------------------------------------------------------


def test_out_of_status_review_and_adjudication_queues_and_back(db: Path) -> None:
    before = _status(db)
    assert before["items"]["total"] == 4 and before["retired_items"] == 0
    with Study.open(db) as s:
        assert {d.item for d in queue(s)} == {"p0", "p1"}
        assert [r.ext_id for r in ReviewSession(s, "carol").refs] == ["p0", "p1", "p2", "p3"]
    assert _retire(db, "p0", "--reason", "duplicate").exit_code == 0
    after = _status(db)
    assert after["items"]["total"] == 3 and after["items"]["pairwise"] == 3
    assert after["units"]["total"] == before["units"]["total"] - 6  # p0's six criteria
    assert after["retired_items"] == 1
    text = cli.invoke(app, ["status", str(db)]).stdout
    assert "items: 3 (pairwise 3); 1 retired;" in text
    with Study.open(db) as s:
        assert {d.item for d in queue(s)} == {"p1"}
        assert [r.ext_id for r in ReviewSession(s, "carol").refs] == ["p1", "p2", "p3"]
        # nothing deleted: the labels are still there
        assert s.conn.execute("SELECT count(*) FROM labels").fetchone()[0] == 4
    assert _retire(db, "p0", "--undo", "--reason", "not a duplicate").exit_code == 0
    assert _status(db)["items"]["total"] == 4
    with Study.open(db) as s:
        assert {d.item for d in queue(s)} == {"p0", "p1"}
        assert len(ReviewSession(s, "carol").refs) == 4


def test_assign_skips_retired_items_and_says_so(db: Path) -> None:
    assert _retire(db, "p1", "--reason", "x").exit_code == 0
    r = cli.invoke(app, ["assign", str(db), "drchen"])
    assert r.exit_code == 0, r.output
    assert "1 retired item skipped" in r.stdout and "drchen: 3 new" in r.stdout
    r = cli.invoke(app, ["assign", str(db), "drlee", "--items", "p1"])
    assert r.exit_code == 1 and "1 retired item skipped" in r.stdout


def test_judge_leaves_retired_items_out_and_a_dry_run_says_so(db: Path) -> None:
    args = ["judge", str(db), "-j", "openai:m", "--price", "0,0", "--dry-run", "--samples", "1"]
    r = cli.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "8 calls needed" in r.stdout and "retired" not in r.stdout  # 4 items × AB, BA
    assert _retire(db, "p0,p3", "--reason", "x").exit_code == 0
    r = cli.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "note: 2 retired items left out (medjudge retire)" in r.stdout
    assert "4 calls needed" in r.stdout


@run_async
async def test_an_open_review_app_drops_a_retired_item(db: Path) -> None:
    app_ = make_app(db, poll_interval=0.05)  # this login (the lead reviews too)
    async with app_.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "1/4" in screen_text(app_), "the queue of four")
        assert _retire(db, "p2", "--reason", "duplicate").exit_code == 0  # another connection
        await until(
            pilot, lambda: len(current(app_, ReviewScreen).session.refs) == 3, "the retirement"
        )
        assert [r.ext_id for r in current(app_, ReviewScreen).session.refs] == ["p0", "p1", "p3"]
        bar = app_.screen.query_one(ProgressLine)
        await until(pilot, lambda: bar.total == 3, "the progress bar's three items")
        await pilot.press("]")
        await until(pilot, lambda: "p1  2/3" in screen_text(app_), "the next item of three")
        assert _retire(db, "p2", "--undo", "--reason", "back").exit_code == 0
        await until(
            pilot,
            lambda: len(current(app_, ReviewScreen).session.refs) == 4,
            "the item brought back",
        )


# -- out of the figures, listed in the report ----------------------------------------------


def test_the_report_leaves_a_retired_item_out_and_lists_it_in_every_format(db: Path) -> None:
    before = json.loads(_report(db, "json"))
    assert "retired" not in before
    c = _correctness(before)
    assert (c["n_units"], c["n_labels"]) == (2, 4)
    assert _retire(db, "p0", "--reason", "duplicate of p3").exit_code == 0
    after = json.loads(_report(db, "json"))
    c = _correctness(after)
    assert (c["n_units"], c["n_labels"], c["n_units_total"]) == (1, 2, 3)
    assert after["study"]["items"] == {"pairwise": 3}
    (item,) = after["retired"]["items"]
    me = login_name()
    assert (item["item"], item["kind"], item["reason"], item["by"]) == (
        "p0",
        "pairwise",
        "duplicate of p3",
        me,
    )
    md = _report(db, "md")
    assert "## Retired items" in md and f"| p0 | pairwise | duplicate of p3 | {me} |" in md
    html = _report(db, "html")
    assert ">Retired items</h2>" in html and "duplicate of p3" in html
    rows = list(csv.DictReader(io.StringIO(_report(db, "csv"))))
    retired = [r for r in rows if r["section"] == "retired"]
    assert [(r["slice"], r["metric"], r["value"]) for r in retired] == [
        ("all", "retired_items", "1"),
        ("p0", "retired", "1"),
    ]
    assert retired[1]["reason"] == "duplicate of p3" and retired[1]["rater_a"] == me
    assert _retire(db, "p0", "--undo", "--reason", "back").exit_code == 0
    again = json.loads(_report(db, "json"))
    assert "retired" not in again and _correctness(again)["n_labels"] == 4


def test_exports_keep_the_rows_and_mark_them_retired(db: Path) -> None:
    assert _retire(db, "p0", "--reason", "x").exit_code == 0
    r = cli.invoke(app, ["export", str(db), "labels"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 4
    assert {(x["item"], x["retired"]) for x in rows} == {("p0", 1), ("p1", 0)}


def test_the_live_agreement_drops_a_retired_item_and_takes_it_back(db: Path) -> None:
    from medjudge.judging.analysis.live import LiveAgreement

    with Study.open(db) as s:
        live = LiveAgreement(s)
        (row,) = live.rows()
        assert (row.criterion, row.n_units) == ("correctness", 2)
        assert not live.refresh()
        assert _retire(db, "p0", "--reason", "x").exit_code == 0
        assert live.refresh()
        (row,) = live.rows()
        assert row.n_units == 1
        set_label(s, _unit(s, "p0"), "carol", "A")  # a label on the retired item: not counted
        live.refresh()
        assert live.rows()[0].n_units == 1
        assert _retire(db, "p0", "--undo", "--reason", "back").exit_code == 0
        assert live.refresh()
        assert live.rows()[0].n_units == 2


def test_anchoring_leaves_a_retired_item_out(db: Path) -> None:
    def reviewers(report: dict[str, Any]) -> dict[str, int]:
        return {r["reviewer"]: r["n_labels"] for r in report["anchoring"]}

    before = reviewers(json.loads(_report(db, "json")))
    assert before["alice"] == 2 and before["bob"] == 2
    assert _retire(db, "p1", "--reason", "x").exit_code == 0
    after = reviewers(json.loads(_report(db, "json")))
    assert after["alice"] == 1 and after["bob"] == 1
