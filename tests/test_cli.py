"""The command line through typer's CliRunner and as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import pairwise_row, write_jsonl

runner = CliRunner()


def test_init_import_status_export(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    r = runner.invoke(
        app, ["init", str(db), "--name", "Trial", "-c", "overall:benefit:Which is better?"]
    )
    assert r.exit_code == 0, r.output
    assert "overall" in r.output
    rows = [pairwise_row(1, human_labels={"dr": {"overall": "B"}}), pairwise_row(2)]
    r = runner.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "in.jsonl", rows)), "-k", "pairwise"]
    )
    assert r.exit_code == 0, r.output
    assert "2 new pairwise item(s)" in r.output
    r = runner.invoke(app, ["status", str(db), "--json"])
    data = json.loads(r.output)
    assert data["items"] == {"total": 2, "pairwise": 2}
    assert data["reviewers"] == [
        {"name": "dr", "units_labelled": 1, "items_done": 1, "items_assigned": 0}
    ]
    r = runner.invoke(app, ["export", str(db), "labels", "--format", "csv"])
    assert r.exit_code == 0
    assert r.output.splitlines()[0].startswith("item,kind,batch,criterion")
    assert "p1,pairwise,,overall,,,dr,human,B" in r.output
    out = tmp_path / "labels.jsonl"
    r = runner.invoke(app, ["export", str(db), "labels", "-o", str(out)])
    assert json.loads(out.read_text().splitlines()[0])["sources"] == "A=model-x;B=model-y"


def test_user_errors_exit_1_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    r = runner.invoke(app, ["import", str(db), str(bad), "-k", "pairwise"])
    assert r.exit_code == 1
    assert "bad.jsonl, line 1, field 'question'" in r.output
    assert "Traceback" not in r.output
    assert not db.exists(), "a failed import must not leave a new empty study behind"
    r = runner.invoke(app, ["status", str(tmp_path / "nope.db")])
    assert r.exit_code == 1 and "no such study" in r.output
    r = runner.invoke(app, ["import", str(db), str(bad), "-k", "nonsense"])
    assert r.exit_code == 2


def test_every_command_has_help_with_example() -> None:
    for cmd in ["demo", "init", "import", "status", "export"]:
        r = runner.invoke(app, [cmd, "--help"])
        assert r.exit_code == 0
        assert "Example:" in r.output and f"medjudge {cmd}" in r.output


def test_python_dash_m_and_demo_build(tmp_path: Path) -> None:
    env = {**os.environ, "MEDJUDGE_HOME": str(tmp_path / "h")}
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", "demo", "--build-only"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", "status", str(tmp_path / "h" / "demo.sqlite"), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    data = json.loads(r.stdout)
    assert data["items"] == {
        "total": 28,
        "pairwise": 12,
        "statements": 6,
        "rating": 4,
        "match": 2,
        "rubric": 2,
        "ranking": 2,
    }


def test_headless_commands_do_not_load_textual(tmp_path: Path) -> None:
    code = (
        "import sys; from medjudge.cli import app; "
        "from typer.testing import CliRunner; "
        f"r = CliRunner().invoke(app, ['init', {str(tmp_path / 'x.db')!r}]); "
        "assert r.exit_code == 0, r.output; "
        "print('textual' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr


def test_demo_without_a_terminal_does_not_hang(tmp_path: Path) -> None:
    env = {**os.environ, "MEDJUDGE_HOME": str(tmp_path / "h")}
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", "demo"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "local:smollm2: 129 verdicts, 5 missing" in r.stdout
    assert "needs a terminal" in r.stdout
    assert "\x1b" not in r.stdout  # the app did not start on the pipe


def test_version_and_enum_choices() -> None:
    """`medjudge --version`; options with fixed choices refuse others as usage errors."""
    from importlib.metadata import version

    from typer.testing import CliRunner

    from medjudge.cli import app

    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0 and r.stdout.strip() == f"medjudge {version('medjudge')}"
    for args in (
        ["judge", "x.db", "-j", "openai:m", "--kind", "bogus"],
        ["judge", "x.db", "-j", "openai:m", "--panel-rule", "bogus"],
        ["judge", "x.db", "-j", "openai:m", "--statements-protocol", "bogus"],
        ["adjudicate", "x.db", "--list", "--kind", "bogus"],
        ["assign", "x.db", "ann", "--kind", "bogus"],
        ["import", "x.db", "f.jsonl", "--kind", "bogus"],
        ["export", "x.db", "bogus"],
        ["report", "x.db", "-f", "bogus"],
    ):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and "is not one of" in r.output, (args, r.output)


def test_every_option_reads_as_people_write_it() -> None:
    """No option's or argument's help shows click's type names (``<int range>``, ``<float
    range>``, ``<list[str]>``): a number reads N (or what it is: SECONDS, USD), a repeated
    option its value's name, an argument that takes several its name and ``...``
    (``REVIEWER...``). Left as typer writes them: ``<str>``, ``<path>`` and the choices
    (``<md|html|json|csv>``)."""
    from medjudge.cli import COMMANDS

    for name in ["", *COMMANDS]:
        r = CliRunner().invoke(app, [*name.split(), "--help"], env={"COLUMNS": "200"})
        assert r.exit_code == 0, (name, r.output)
        options = [line for line in r.output.splitlines() if line.lstrip().startswith("-")]
        bad = [
            line.strip()
            for line in options
            if "range>" in line or "<list[" in line or "<integer" in line or "<float>" in line
        ]
        assert not bad, (name, bad)
        shown = re.findall(r"<([^<>\n]*)>", r.output)
        typed = [t for t in shown if t not in ("str", "path") and "|" not in t]
        assert not typed, (name, typed)


def test_arguments_read_by_their_metavar() -> None:
    """An argument that takes several values reads as its metavar and ``...``; one with a
    metavar as the metavar alone (whatever typer lists beside them)."""
    r = CliRunner().invoke(app, ["assign", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert re.search(r"^  REVIEWER\.\.\.(  |$)", r.output, re.M), r.output
    r = CliRunner().invoke(app, ["retire", "--help"], env={"COLUMNS": "200"})
    assert re.search(r"^  ID\[,ID…\](  |$)", r.output, re.M), r.output
    r = CliRunner().invoke(app, ["agreement", "--help"], env={"COLUMNS": "200"})
    assert re.search(r"^  FILE(  |$)", r.output, re.M), r.output
