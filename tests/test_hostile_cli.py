"""Hostile text through the command line: data is shown literally and never acts on the terminal.

docs/design.md §7: "untrusted text displayed literally (no markup, no escape sequences)". A study is
filled with Rich markup, ANSI/OSC escapes (clear screen, OSC 52 clipboard write, OSC 0 title
change), an 8-bit CSI, bidi overrides and very long lines — in item ids, questions, answers,
sources, batches, the study name, reviewer and judge names and judge replies (a rater name in
an import file holds markup only: one with a control character is refused at import). Then:

- on a real pseudo-terminal, no command's output holds an ESC, BEL or C1 control or a bidi
  override, and markup prints as the characters it is made of;
- piped or written with ``-o``, JSONL exports keep the data exactly, as JSON escapes, and CSV
  exports show control and bidi characters as the app shows them (``\x1b``, ``<U+202E>``):
  a CSV opened in a terminal or a spreadsheet cannot act;
- error messages that quote a hostile value show it neutralised.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.adjudications import adjudicate
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.paths import login_name
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.escapes import inert
from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_parts
from .support.kind_rows import write_jsonl

PROCS = Path(__file__).resolve().parent / "procs"
MARKUP = ["[bold red]x[/]", "[link=http://evil]click[/link]"]
ESCAPES = ["\x1b[2J", "\x1b]52;c;SGVsbG8=\x07", "\x1b]0;pwned\x07", "\x9b2J", "\u202e", "\x07"]
HOSTILE = " ".join(MARKUP + ESCAPES)
LONG = "L" * 50_000
REVIEWER = "rev\x1b]0;pwned\x07[bold]x[/bold]\u202e"
JUDGE_MODEL = "[bold]j[/bold]\x1b]0;pwned\x07\u202e"
cli = CliRunner()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study whose every text field is hostile, with labels, verdicts and an adjudication."""
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "hostile.db"
    r = cli.invoke(app, ["init", str(path), "--name", "Study " + HOSTILE])
    assert r.exit_code == 0, r.output
    rows = []
    for i in range(3):
        ext = f"[bold red]id{i}[/]\u202e\x9b" if i < 2 else "I" * 200
        rows.append(
            {
                "id": ext,
                "question": f"Q{i} {HOSTILE} {LONG}",
                "answer_a": f"A {HOSTILE}",
                "answer_b": f"GOOD {HOSTILE}",
                "source_a": f"model{HOSTILE}",
                "source_b": "plain",
                "context": [HOSTILE],
                "batch": f"batch {HOSTILE}",
                "human_labels": {
                    f"dr {' '.join(MARKUP)}": {"correctness": "A", "bias": "B"},
                    "ann": {"correctness": "B", "bias": "A"},
                },
            }
        )
    with Study.open(path) as s:
        import_file(s, write_jsonl(folder / "in.jsonl", rows), "pairwise", actor=login_name())
        set_label(s, 1, REVIEWER, "tie", note=f"note {HOSTILE}")
        grant(s, login_name(), "adjudicator", by=login_name())
        adjudicate(s, 1, "B", f"because {HOSTILE}", actor=login_name())

        def reply(req: FakeRequest) -> Reply:
            keys, a, b = pairwise_parts(req)
            pick = "B" if "GOOD" in b else "A"
            return Reply(
                json.dumps(
                    {k: {"verdict": pick, "reason": f"{HOSTILE} {LONG[:2000]}"} for k in keys}
                )
                + f"\n{HOSTILE}"
            )

        with FakeLLMServer(reply) as server:
            judge = JudgeConfig(
                parse_judge_spec(f"openai:{JUDGE_MODEL}@{server.openai_url}"), samples=1
            )
            asyncio.run(run_judges(s, [judge], RunOptions(concurrency=4)))
        assert s.conn.execute("SELECT count(*) FROM verdicts").fetchone()[0] > 0
    return path


def terminal_commands(db: str) -> list[list[str]]:
    cmds = [
        ["status", db],
        ["status", db, "--json"],
        ["adjudicate", db, "--list"],
        ["adjudicate", db, "--list", "--kind", "reviewer_vs_judge"],
    ]
    for table in ("labels", "verdicts", "calls", "history", "adjudications"):
        for fmt in ("jsonl", "csv"):
            cmds.append(["export", db, table, "-f", fmt])
    return cmds


def run_on_terminal(commands: list[list[str]], home: Path) -> list[tuple[int, bytes]]:
    """Run the commands in one process whose stdout is a pseudo-terminal."""
    master, slave = pty.openpty()
    env = {**os.environ, "MEDJUDGE_HOME": str(home), "TERM": "xterm-256color", "COLUMNS": "300"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, str(PROCS / "cli_many.py"), json.dumps(commands)],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, stderr
    assert b"Traceback" not in stderr and not inert(stderr), stderr[-2000:]
    out = b"".join(chunks).replace(b"\r\n", b"\n")
    parts = out.split(b"@@END ")
    results = []
    for i, part in enumerate(parts[1:], start=1):
        code = int(part.split(b"@@", 1)[0])
        results.append((code, parts[i - 1].split(b"@@\n", 1)[-1]))
    assert len(results) == len(commands), out[-2000:]
    return results


def test_terminal_output_never_holds_escapes_and_shows_markup_literally(
    hostile: Path, _isolated_home: Path
) -> None:
    commands = terminal_commands(str(hostile))
    for args, (code, output) in zip(
        commands, run_on_terminal(commands, _isolated_home), strict=True
    ):
        assert code == 0, (args, output[-500:])
        assert output.strip(), args
        assert not inert(output), (
            f"{' '.join(args[:1] + args[2:])}: raw {inert(output)} on the terminal"
        )
        if args[0] in ("status", "adjudicate") and "--json" not in args:
            text = output.decode()
            assert "\\x1b]0;pwned\\x07" in text and "<U+202E>" in text  # visible, not acting
        if args[:1] == ["status"] and "--json" not in args:
            text = output.decode()
            for m in MARKUP:  # the study and reviewer names, literally
                assert m in text, (m, text[:500])


@pytest.mark.parametrize("args", [["status"], ["adjudicate", "--list"]])
def test_human_readable_output_is_inert_when_piped_too(args: list[str], hostile: Path) -> None:
    r = cli.invoke(app, [args[0], str(hostile), *args[1:]])
    assert r.exit_code == 0, r.output
    assert not inert(r.output), inert(r.output)
    assert "[bold red]" in r.output


@pytest.mark.parametrize("args", [["status", "--json"], ["adjudicate", "--json"]])
def test_json_output_escapes_control_characters(args: list[str], hostile: Path) -> None:
    r = cli.invoke(app, [args[0], str(hostile), *args[1:]])
    assert r.exit_code == 0, r.output
    assert b"\x1b" not in r.stdout.encode() and b"\x07" not in r.stdout.encode()
    json.loads(r.stdout)
    assert "\\u001b]0;pwned\\u0007" in r.stdout  # the data is there, as a JSON escape


def test_status_json_escapes_c1_and_bidi_too(hostile: Path) -> None:
    """Regression: status --json printed the 8-bit CSI and U+202E raw (JSON only escapes C0)."""
    r = cli.invoke(app, ["status", str(hostile), "--json"])
    assert not inert(r.stdout), inert(r.stdout)
    assert json.loads(r.stdout)["study"] == "Study " + HOSTILE  # the same value


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_piped_and_file_exports_keep_the_data(fmt: str, hostile: Path, tmp_path: Path) -> None:
    """Off the terminal a JSONL export is data: the hostile text comes back exactly (as JSON
    escapes); a CSV export holds no raw control or bidi character, shown as the app shows
    them, markup as its characters."""
    r = cli.invoke(app, ["export", str(hostile), "labels", "-f", fmt])
    assert r.exit_code == 0
    target = tmp_path / f"labels.{fmt}"
    assert (
        cli.invoke(app, ["export", str(hostile), "labels", "-f", fmt, "-o", str(target)]).exit_code
        == 0
    )
    for text in (r.stdout, target.read_text(encoding="utf-8")):
        assert not inert(text.encode()), inert(text.encode())
        if fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
            raters = {row["rater"] for row in rows}
            assert f"dr {' '.join(MARKUP)}" in raters
            assert "rev\\x1b]0;pwned\\x07[bold]x[/bold]<U+202E>" in raters
            assert any(row["item"] == "[bold red]id0[/]<U+202E>\\x9b" for row in rows)
        else:
            rows = [json.loads(line) for line in text.splitlines()]
            raters = {row["rater"] for row in rows}
            assert f"dr {' '.join(MARKUP)}" in raters and REVIEWER in raters
            assert any(row["item"] == "[bold red]id0[/]\u202e\x9b" for row in rows)


def test_error_messages_quote_hostile_values_neutralised(hostile: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    column = "human:dr\x1b]0;pwned\x07:bogus\u202e"
    bad.write_text(
        "id,question,answer_a,answer_b,source_a,source_b," + column + "\nx1,q,a,b,m,n,A\n",
        encoding="utf-8",
    )
    dup = write_jsonl(
        tmp_path / "dup.jsonl",
        [
            {
                "id": "[bold red]d[/]\u202e",
                "question": "q",
                "answer_a": "a",
                "answer_b": "b",
                "source_a": "m",
                "source_b": "n",
            }
        ]
        * 2,
    )
    long_id = write_jsonl(
        tmp_path / "long.jsonl",
        [
            {
                "id": "\u202e" + LONG,
                "question": "q",
                "answer_a": "a",
                "answer_b": "b",
                "source_a": "m",
                "source_b": "n",
            }
        ],
    )
    cases = [
        ["import", str(hostile), str(bad), "-k", "pairwise"],
        ["import", str(hostile), str(dup), "-k", "pairwise"],
        ["import", str(hostile), str(long_id), "-k", "pairwise"],
        [
            "adjudicate",
            str(hostile),
            "--unit",
            "\x1b]0;pwned\x07[bold]x[/]/correctness",
            "--value",
            "A",
            "--rationale",
            "r",
        ],
        ["status", str(tmp_path / "\x1b]0;pwned\x07\u202e.db")],
    ]
    for args in cases:
        r = cli.invoke(app, args)
        assert r.exit_code == 1 and "Traceback" not in r.output, (args, r.output)
        line = r.stderr.strip()
        assert "\n" not in line and line.startswith("error: "), line
        assert not inert(line), (args, inert(line))
        assert len(line) < 2000, "a 50,000-character value was echoed whole"
    r = cli.invoke(app, cases[1])
    assert "[bold red]d[/]" in r.stderr  # markup shown as written


def test_hostile_file_name_through_import(tmp_path: Path) -> None:
    """A file name that is not UTF-8 (Python keeps it as surrogate escapes) or holds escapes."""
    study = tmp_path / "s.db"
    assert cli.invoke(app, ["init", str(study)]).exit_code == 0
    row = {
        "id": "f1",
        "question": "q",
        "answer_a": "a",
        "answer_b": "b",
        "source_a": "m",
        "source_b": "n",
    }
    for raw_name in (b"in-\xff\xfe.jsonl", b"in-\x1b]0;pwned\x07.jsonl"):
        name = os.fsdecode(raw_name)
        (tmp_path / name).write_text(json.dumps(row) + "\n")
        r = cli.invoke(app, ["import", str(study), str(tmp_path / name), "-k", "pairwise"])
        assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
        assert "Traceback" not in r.output and not inert(r.output), r.output
        row["id"] += "x"


def _svg_texts(page: str) -> list[str]:
    """Every chart of an HTML report (inline SVG), as written."""
    import re

    return re.findall(r"<svg\b.*?</svg>", page, flags=re.S)


def test_html_report_charts_hold_no_raw_escapes(hostile: Path, tmp_path: Path) -> None:
    """Tooltips, labels and titles of the report's SVG charts are escaped like the rest of the
    page: judge and reviewer names with ESC sequences, C1 controls or bidi overrides show as
    visible escapes, never raw."""
    out = tmp_path / "r.html"
    r = cli.invoke(app, ["report", str(hostile), "-f", "html", "-o", str(out), "--n-boot", "100"])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    charts = _svg_texts(page)
    assert charts and any("<title>" in c for c in charts), "no chart with a tooltip"
    for chart in charts:
        assert not inert(chart), (inert(chart), chart[:3000])
        assert "<script" not in chart and "[bold]j[/bold]" in "".join(charts)
    assert not inert(page), inert(page)
