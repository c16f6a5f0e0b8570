"""Blind means blind on the command line too: while a study is blind, a reviewer who is
neither lead nor adjudicator sees no judge verdicts and no other reviewer's labels through
report, export or adjudicate --list; they export only their own labels."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.paths import login_name
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.studies import small_study

cli = CliRunner()


@pytest.fixture
def blind(tmp_path: Path) -> Path:
    """A blind study led by someone else; the login reviewed one unit, bob another."""
    path = tmp_path / "b.db"
    s = small_study(path, pairwise=2, statements=0)
    grant(s, "boss", "lead", by="boss")
    grant(s, login_name(), "reviewer", by="boss")
    set_label(s, 1, login_name(), "A")
    set_label(s, 1, "bob", "B")
    write_verdicts(s, "openai:j", {}, [NewVerdict(1, "B", "r", {})], run_id=None, actor="t")
    s.close()
    return path


REFUSED = [
    ["report", "-f", "md"],
    ["export", "verdicts"],
    ["export", "calls"],
    ["export", "history"],
    ["export", "adjudications"],
    ["export", "assignments"],
    ["adjudicate", "--list"],
    ["adjudicate", "--json"],
]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a))
def test_a_reviewer_is_refused_what_reveals(blind: Path, args: list[str]) -> None:
    r = cli.invoke(app, [args[0], str(blind), *args[1:]])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "this study is blind: it needs the lead or adjudicator role" in r.stderr
    assert "openai:j" not in r.stdout and "bob" not in r.stdout


def test_a_reviewer_exports_only_their_own_labels(blind: Path) -> None:
    r = cli.invoke(app, ["export", str(blind), "labels"])
    assert r.exit_code == 0, r.output
    raters = {json.loads(line)["rater"] for line in r.stdout.splitlines()}
    assert raters == {login_name()}
    # The reviewer is not told which model wrote which answer, in either format.
    assert "model-x" not in r.stdout and "model-y" not in r.stdout
    r = cli.invoke(app, ["export", str(blind), "labels", "-f", "csv"])
    assert r.exit_code == 0 and "model-" not in r.stdout, r.stdout
    r = cli.invoke(app, ["export", str(blind), "labels", "--wide", "-f", "csv"])
    header = next(csv.reader(io.StringIO(r.stdout)))
    assert header[-1] == login_name() and "bob" not in header and "openai:j" not in header


@pytest.mark.parametrize("role", ["lead", "adjudicator"])
def test_leads_and_adjudicators_see_everything(blind: Path, role: str) -> None:
    with Study.open(blind) as s:
        grant(s, login_name(), role, by="boss")
    for args in REFUSED:
        r = cli.invoke(app, [args[0], str(blind), *args[1:]])
        assert r.exit_code == 0, (args, r.output)
    r = cli.invoke(app, ["export", str(blind), "labels"])
    assert {json.loads(x)["rater"] for x in r.stdout.splitlines()} == {
        login_name(),
        "bob",
        "openai:j",
    }


def test_a_study_that_is_not_blind_hides_nothing(blind: Path) -> None:
    with Study.open(blind) as s:
        s.save_settings(s.settings.model_copy(update={"blind": False}), actor="boss")
    r = cli.invoke(app, ["report", str(blind), "-f", "md"])
    assert r.exit_code == 0, r.output


REFUSED_EARLY = """
import sys
from typer.testing import CliRunner
from medjudge.cli import app
r = CliRunner().invoke(app, ["report", sys.argv[1], "-f", "md"])
loaded = [m for m in sys.modules if m.startswith(("medjudge.judging.report", "jinja2"))]
print(r.exit_code, ",".join(sorted(loaded)) or "-")
"""


def test_the_report_is_refused_before_any_of_it_is_loaded(blind: Path) -> None:
    """The role is checked first: a refused report loads none of the report's code (the
    build took 22 s on a busy server before the refusal came)."""
    import subprocess
    import sys

    got = subprocess.run(
        [sys.executable, "-c", REFUSED_EARLY, str(blind)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert got == ["1", "-"], got
