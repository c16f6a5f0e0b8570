"""`status --by FIELD`: every status figure per value of batch, kind or a metadata field;
numeric fields sort numerically."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.importing.run import import_file
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.slices import sort_values
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "by.db"
    s = Study.create(path, actor="t")
    rows = [pairwise_row(i, p=[100, 20, 3, 20][i], specialty="cardio") for i in range(4)]
    rows.append(pairwise_row(4))
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    units = dict(
        s.conn.execute(
            "SELECT i.ext_id, u.id FROM units u JOIN items i ON i.id = u.item_id "
            "WHERE u.criterion = 'correctness'"
        ).fetchall()
    )
    for ext in ("p0", "p1", "p3", "p4"):
        set_label(s, units[ext], "ann", "A")
    write_verdicts(
        s, "openai:j", {}, [NewVerdict(units["p1"], "B", "r", {})], run_id=None, actor="t"
    )
    s.close()
    return path


def test_status_by_a_numeric_field(tmp_path: Path) -> None:
    path = _study(tmp_path)
    r = cli.invoke(app, ["status", str(path), "--by", "p", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["by"]["p"]
    assert [x["value"] for x in rows] == ["3", "20", "100", "(missing)"]
    by = {x["value"]: x for x in rows}
    assert by["20"]["items"] == 2 and by["20"]["units"] == 12
    assert by["20"]["labels"] == {"ann": 2} and by["20"]["verdicts"] == {"openai:j": 1}
    assert by["3"]["labels"] == {} and by["(missing)"]["labels"] == {"ann": 1}
    assert sum(x["items"] for x in rows) == 5
    text = cli.invoke(app, ["status", str(path), "--by", "p", "--by", "batch"]).stdout
    assert "by p:" in text and "  p = 20: 2 items, 12 units; labels: ann 2" in text
    assert "by batch:" in text


def test_unknown_field_lists_the_fields(tmp_path: Path) -> None:
    r = cli.invoke(app, ["status", str(_study(tmp_path)), "--by", "specialy"])
    assert r.exit_code == 1
    assert "no item has the field 'specialy' (fields: batch, kind, p, specialty)" in r.stderr


def test_sort_values() -> None:
    assert sort_values(["b", "(missing)", "a"]) == ["a", "b", "(missing)"]
    assert sort_values(["10", "9", "2.5"]) == ["2.5", "9", "10"]
    assert sort_values(["10", "x"]) == ["10", "x"]


def test_status_shows_assignments_per_reviewer(tmp_path: Path) -> None:
    """assigned items per reviewer, also for one who has labelled nothing yet."""
    from medjudge.store.assignments import assign

    path = _study(tmp_path)
    with Study.open(path) as s:
        assign(s, ["ann", "zoe"], [1, 2, 3], by="t")
    data = json.loads(cli.invoke(app, ["status", str(path), "--json"]).stdout)
    rows = {r["name"]: r for r in data["reviewers"]}
    assert rows["ann"]["items_assigned"] == 3 and rows["ann"]["units_labelled"] == 4
    assert rows["zoe"] == {"name": "zoe", "units_labelled": 0, "items_done": 0, "items_assigned": 3}
    text = cli.invoke(app, ["status", str(path)]).stdout
    assert "  zoe: 0 labels, 0 items complete, 3 assigned" in text


def test_a_field_name_with_quotes_and_backslashes(tmp_path: Path) -> None:
    """a metadata field named with `"` or `\\` slices like any other (a JSON path could not
    quote it: every item fell in "(missing)")."""
    path = tmp_path / "q.db"
    s = Study.create(path, actor="t")
    odd = {'say "hi"': "x", "a\\b": "y", "a.b": "z"}
    rows = [pairwise_row(i, **odd) for i in range(2)] + [pairwise_row(2)]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    s.close()
    for name, value in odd.items():
        r = cli.invoke(app, ["status", str(path), "--by", name, "--json"])
        assert r.exit_code == 0, r.output
        got = {x["value"]: x["items"] for x in json.loads(r.stdout)["by"][name]}
        assert got == {value: 2, "(missing)": 1}, name
