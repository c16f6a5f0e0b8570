"""Issue #11: one answer-letter frame across the CLI, the app's screens and the exports.

Every test uses the swapped item p0 of :func:`disputed` (reviewers saw answer B first), so a
view that spoke in display letters would show the other letter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable
from typer.testing import CliRunner

from medjudge.cli import app as cli

from .test_tui_adjudication import adjudications, adjudicator_app, disputed, loaded, open_unit
from .test_tui_support import item_swap, run_async, screen_text

CAROL = {"LOGNAME": "carol", "USER": "carol"}


def _adjudicate(path: Path, value: str) -> object:
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
    assert "pairwise A/B: file order: A = answer_a, B = answer_b" in listed.output
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
    assert _adjudicate(path, "answer_b").exit_code == 0  # type: ignore[attr-defined]
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
