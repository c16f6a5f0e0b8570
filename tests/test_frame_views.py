"""one answer-letter frame across the CLI, the app's screens and the exports.

Every test uses the swapped item p0 of :func:`disputed` (reviewers saw answer B first), so a
view that spoke in display letters would show the other letter.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from textual.widgets import DataTable
from typer.testing import CliRunner, Result

from medjudge.cli import app as cli
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item
from medjudge.store.labels import set_label
from medjudge.store.study import Study
from medjudge.tui.session import ReviewSession

from .support.adjudication import adjudications, adjudicator_app, disputed, loaded, open_unit
from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import item_swap, run_async, screen_text

CAROL = {"LOGNAME": "carol", "USER": "carol"}


def _adjudicate(path: Path, value: str) -> Result:
    return CliRunner(env=CAROL).invoke(
        cli,
        ["adjudicate", str(path), "--unit", "p0/correctness", "--value", value, "--rationale", "x"],
    )


@pytest.mark.parametrize("spelling", ["B", "b", "answer_b", "Response_B", "response b"])
def test_adjudicate_value_b_round_trips_through_list_and_json(
    tmp_path: Path, spelling: str
) -> None:
    path = disputed(tmp_path)
    assert item_swap(path, "p0")
    r = _adjudicate(path, spelling)
    assert r.exit_code == 0, r.output
    assert "p0/correctness: final label B recorded (file order: A = answer_a" in r.output
    assert adjudications(path)[-1][:2] == ("p0/correctness", "B")
    runner = CliRunner(env=CAROL)
    listed = runner.invoke(cli, ["adjudicate", str(path), "--list"])
    assert listed.exit_code == 0, listed.output
    assert "pairwise answer letters: file order: A = answer_a, B = answer_b" in listed.output
    line = next(x for x in listed.output.splitlines() if x.startswith("p0/correctness"))
    assert line.endswith("→ B") and "alice=A" in line and "bob=B" in line
    data = json.loads(runner.invoke(cli, ["adjudicate", str(path), "--json"]).output)
    assert data["frame"] == "file"
    unit = next(u for u in data["units"] if (u["item"], u["criterion"]) == ("p0", "correctness"))
    assert unit["reference"] == "B" and unit["votes"]["alice"] == "A"


def test_adjudicate_value_refuses_a_value_that_is_no_verdict(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    r = _adjudicate(path, "answer_c")
    assert r.exit_code == 1
    assert "--value 'answer_c'" in r.output and "Traceback" not in r.output
    assert adjudications(path) == []


@run_async
async def test_the_app_shows_the_value_the_cli_recorded(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    assert _adjudicate(path, "answer_b").exit_code == 0
    app = adjudicator_app(path)
    async with app.run_test(size=(110, 60)) as pilot:
        await open_unit(pilot, "p0/correctness")
        text = screen_text(app)
        assert "Final: B" in text
        assert "• B  " in text and "(current)" in text  # the history row, as recorded
        await pilot.press("escape")
        queue = await loaded(pilot)
        entry = next(d for d in queue.rows if d.where == "p0/correctness")
        row = queue.query_one(DataTable).get_row(str(entry.unit_id))
        assert [str(c) for c in row[3:]] == ["B", "A×2  B×1"]  # final, then votes


def _frames(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def test_every_new_note_and_rationale_records_its_frame(tmp_path: Path) -> None:
    path = disputed(tmp_path)  # alice's note via set_label, bob's item note via set_note
    assert _frames(path, "SELECT note, note_frame FROM labels WHERE note IS NOT NULL") == [
        ("A names the red flags", "file")
    ]
    assert set(_frames(path, "SELECT note_frame FROM labels WHERE note IS NULL")) == {(None,)}
    assert ("A names the red flags", "file") in _frames(
        path, "SELECT note, note_frame FROM label_history"
    )
    assert _frames(path, "SELECT note, note_frame FROM item_notes") == [
        ("bob's note on p0", "display")
    ]
    with Study.open(path) as s:
        unit = get_item(s, 1).unit_for("correctness").id
        set_label(s, unit, "alice", "B")  # a change without a note keeps the note and its frame
        session = ReviewSession(s, "dave")
        session.load(0)
        session.set_note("A (the left one) is vague")
    assert ("A names the red flags", "file") in _frames(
        path, "SELECT note, note_frame FROM labels WHERE note IS NOT NULL"
    )
    assert ("A (the left one) is vague", "display") in _frames(
        path, "SELECT note, note_frame FROM item_notes"
    )
    assert _adjudicate(path, "B").exit_code == 0
    assert _frames(path, "SELECT rationale, rationale_frame FROM adjudications") == [("x", "file")]


def test_imported_notes_are_in_the_file_frame(tmp_path: Path) -> None:
    path = tmp_path / "imp.db"
    study = Study.create(path, actor="lead")
    try:
        row = pairwise_row(
            0,
            labels=[
                {
                    "rater": "ext",
                    "criterion": "correctness",
                    "value": "answer_b",
                    "note": "B cites the guideline",
                }
            ],
        )
        import_file(study, write_jsonl(tmp_path / "pw.jsonl", [row]), "pairwise", actor="lead")
    finally:
        study.close()
    assert _frames(path, "SELECT value, note, note_frame FROM labels") == [
        ("B", "B cites the guideline", "file")
    ]


@run_async
async def test_the_detail_says_which_notes_speak_in_display_letters(tmp_path: Path) -> None:
    path = disputed(tmp_path)  # p0 is swapped; bob's item note was typed on the review screen
    app = adjudicator_app(path)
    async with app.run_test(size=(200, 60)) as pilot:
        await open_unit(pilot, "p0/correctness")
        lines = screen_text(app).splitlines()
        bob = next(x for x in lines if "note on the item: bob's note on p0" in x)
        assert "(in display letters: its A = answer_b)" in bob
        alice = next(x for x in lines if "note: A names the red flags" in x)
        assert "letters" not in alice  # an imported/headless note: file letters already


def test_labels_export_carries_display_order_and_notes(tmp_path: Path) -> None:
    path = disputed(tmp_path)
    runner = CliRunner(env={"LOGNAME": "lead", "USER": "lead"})
    r = runner.invoke(cli, ["export", str(path), "labels"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.output.splitlines()]
    by = {(x["item"], x["criterion"], x["rater"]): x for x in rows}
    alice = by[("p0", "correctness", "alice")]
    assert (alice["value"], alice["display_order"]) == ("A", "BA")  # p0: answer_b shown first
    assert (alice["note"], alice["note_frame"]) == ("A names the red flags", "file")
    bob = by[("p0", "correctness", "bob")]
    assert (bob["value"], bob["note"], bob["note_frame"]) == ("B", None, None)
    assert (bob["item_note"], bob["item_note_frame"]) == ("bob's note on p0", "display")
    assert by[("p1", "correctness", "alice")]["display_order"] == (
        "BA" if item_swap(path, "p1") else "AB"
    )
    assert {x["display_order"] for x in rows if x["kind"] != "pairwise"} == {None}
    csv_out = runner.invoke(cli, ["export", str(path), "labels", "--format", "csv"]).output
    header = csv_out.splitlines()[0].split(",")
    assert header[-7:] == [
        "sources",
        "display_order",
        "note_frame",
        "item_note",
        "item_note_frame",
        "meta",
        "retired",
    ]
    assert "p0,pairwise,,correctness,,,alice,human,A,A names the red flags," in csv_out


def test_labels_export_leaves_display_order_empty_for_imported_labels(tmp_path: Path) -> None:
    path = tmp_path / "imp.db"
    study = Study.create(path, actor="lead")
    try:
        row = pairwise_row(0, labels=[{"rater": "ext", "criterion": "correctness", "value": "b"}])
        import_file(study, write_jsonl(tmp_path / "pw.jsonl", [row]), "pairwise", actor="lead")
    finally:
        study.close()
    out = CliRunner(env={"LOGNAME": "lead", "USER": "lead"}).invoke(
        cli, ["export", str(path), "labels"]
    )
    (label,) = [json.loads(x) for x in out.output.splitlines()]
    assert (label["value"], label["display_order"]) == ("B", None)  # never shown in the app


@run_async
async def test_agreement_detail_confusion_matrix_is_in_the_file_frame(tmp_path: Path) -> None:
    from medjudge.tui.agreement_screen import AgreementScreen
    from medjudge.tui.app import make_app

    from .support.tui import build_study, until

    path = build_study(tmp_path, blind=False)
    assert item_swap(path, "p0")
    with Study.open(path) as s:
        set_label(s, get_item(s, 1).unit_for("correctness").id, "bob", "B")
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.press("a")  # p0/correctness: the answer shown on the LEFT, the file's B
        await pilot.pause()
        assert _frames(
            path,
            "SELECT value FROM labels l JOIN raters r ON r.id = l.rater_id WHERE r.name = 'alice'",
        ) == [("B",)]
        await pilot.press("o")
        await until(pilot, lambda: "correctness" in screen_text(app))
        app.screen.query_one("#ov-agreement", DataTable).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AgreementScreen) and app.screen.pair)
        await until(pilot, lambda: "Confusion matrix" in screen_text(app))
        text = screen_text(app)
        assert "rows: alice   columns: bob" in text
        assert "letters: file order: A = answer_a, B = answer_b" in text
        matrix = text[text.index("alice ↓  bob →") :].splitlines()
        assert matrix[0].split()[4:6] == ["A", "B"]
        row_b = next(line.split() for line in matrix if line.split()[:1] == ["B"])
        assert row_b[:3] == ["B", "0", "1"]  # both said the file's B: agreement on the diagonal
