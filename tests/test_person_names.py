"""A person's name given on the command line holds no control characters.

``role add LOGIN``, ``assign REVIEWERS``, ``review --reviewer``, ``judge --name`` and the
judge spec of ``judge -j`` name a rater: a name with ESC, BEL, a C1 control or a bidi override
(U+202A–U+202E, U+2066–U+2069) would be stored and then act on every terminal and page that
shows it. Such a name is refused with one line naming the argument, and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.assignments import assign
from medjudge.store.people import BadName, given_name
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.studies import small_study

cli = CliRunner()
BAD = {
    "esc": "dr\x1b]0;pwned\x07x",
    "csi": "dr\x1b[2Jx",
    "c1": "dr\x9b2Jx",
    "bel": "dr\x07x",
    "rlo": "dr\u202ex",
    "lre": "dr\u202ax",
    "fsi": "dr\u2068x",
    "pdi": "dr\u2069x",
    "newline": "dr\nx",
}
RAW = ["\x1b", "\x07", "\x9b", "\u202e", "\u202a", "\u2068", "\u2069"]


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


def refused(r: object, argument: str) -> None:
    out = r.output  # type: ignore[attr-defined]
    assert r.exit_code == 1, out  # type: ignore[attr-defined]
    assert "Traceback" not in out
    err = r.stderr  # type: ignore[attr-defined]
    assert err.startswith("error: ") and argument in err and "control character U+" in err, err
    assert not [c for c in RAW if c in out], "the refused name reached the terminal raw"


def stored_people(path: Path) -> tuple[list[tuple[str, ...]], ...]:
    with Study.open(path) as s:
        return tuple(
            [tuple(r) for r in s.conn.execute(sql)]
            for sql in (
                "SELECT login, role FROM roles ORDER BY 1, 2",
                "SELECT login, item_id FROM assignments ORDER BY 1, 2",
                "SELECT name FROM raters ORDER BY 1",
            )
        )


@pytest.mark.parametrize("name", BAD.values(), ids=BAD.keys())
def test_role_add_refuses_a_name_with_control_characters(study: Path, name: str) -> None:
    before = stored_people(study)
    refused(cli.invoke(app, ["role", str(study), "add", name, "--as", "reviewer"]), "LOGIN")
    assert stored_people(study) == before


@pytest.mark.parametrize("name", BAD.values(), ids=BAD.keys())
def test_assign_refuses_a_name_with_control_characters(study: Path, name: str) -> None:
    before = stored_people(study)
    refused(cli.invoke(app, ["assign", str(study), "ann", name]), "REVIEWERS")
    assert stored_people(study) == before


@pytest.mark.parametrize("name", BAD.values(), ids=BAD.keys())
def test_review_as_refuses_a_name_with_control_characters(study: Path, name: str) -> None:
    before = stored_people(study)
    refused(cli.invoke(app, ["review", str(study), "--reviewer", name]), "--reviewer")
    assert stored_people(study) == before


@pytest.mark.parametrize("name", BAD.values(), ids=BAD.keys())
def test_judge_name_and_spec_refuse_control_characters(study: Path, name: str) -> None:
    before = stored_people(study)
    r = cli.invoke(app, ["judge", str(study), "-j", "openai:m", "--name", name, "--dry-run"])
    refused(r, "--name")
    r = cli.invoke(app, ["judge", str(study), "-j", f"openai:{name}", "--dry-run"])
    refused(r, "--judge")
    assert stored_people(study) == before


def test_printable_names_are_still_welcome(study: Path) -> None:
    """Accents, other scripts, spaces and markup-like brackets are names like any other."""
    names = ["José", "Zoë Ng", "王医生", "[bold]x[/bold]", "dr.o'brien"]
    for n in names:
        r = cli.invoke(app, ["role", str(study), "add", n, "--as", "reviewer"])
        assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["assign", str(study), *names])
    assert r.exit_code == 0, r.output
    roles, assigned, _ = stored_people(study)
    assert {login for login, _ in roles} == set(names)
    assert {login for login, _ in assigned} == set(names)


def test_the_store_refuses_them_too(study: Path) -> None:
    """Below the command line: a role or an assignment for such a name is refused as well."""
    with Study.open(study) as s:
        for name in BAD.values():
            with pytest.raises(BadName, match="control character"):
                grant(s, name, "reviewer", by="lead")
            with pytest.raises(BadName, match="control character"):
                assign(s, [name], [1], by="lead")
    assert stored_people(study) == ([], [], [])
    assert given_name("  José ", "LOGIN") == "José"


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("form", ["labels", "rater_map", "csv_column"])
def test_a_rater_name_in_an_import_file_is_refused_too(
    tmp_path: Path, name: str, form: str
) -> None:
    """The same names in an import file — a label's ``rater``, a key of ``human_labels``, a
    ``human:NAME:CRITERION`` CSV column — were stored as given."""
    import csv

    from medjudge.store.items import list_items

    from .support.kind_rows import pairwise_row, write_jsonl

    db = tmp_path / "names.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    bad = BAD[name]
    row = pairwise_row(1)
    if form == "labels":
        row["labels"] = [{"rater": bad, "criterion": "correctness", "value": "A"}]
        src, field = write_jsonl(tmp_path / "l.jsonl", [row]), "labels[0].rater"
    elif form == "rater_map":
        row["human_labels"] = {bad: {"correctness": "A"}}
        src, field = write_jsonl(tmp_path / "m.jsonl", [row]), "human_labels"
    else:
        src = tmp_path / "c.csv"
        column = f"human:{bad}:correctness"
        with src.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([*row, column])
            w.writerow([*(str(v) for v in row.values()), "A"])
        field = column
    r = cli.invoke(app, ["import", str(db), str(src), "--kind", "pairwise"])
    assert r.exit_code != 0
    assert f"line 1, field '{field}'" in r.output or f"field {field!r}" in r.output, r.output
    assert "contains the control character U+" in r.output and "Traceback" not in r.output
    with Study.open(db) as s:
        assert list_items(s) == []
