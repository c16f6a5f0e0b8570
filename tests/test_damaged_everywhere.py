"""A damaged study gets one clear "damaged" line and exit 1 from every command: a corrupt
schema text, invalid UTF-8 in the data, bad pages. No traceback; `judge` checks the study
before it makes a single paid call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.fakellm import FakeLLMServer
from .support.faults import damage, megabyte_study, new_items

cli = CliRunner()


def corrupt_schema(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = 'CREATE TABLE labels (id INTEGER PRIMARY KEY, oops' "
        "WHERE name = 'labels'"
    )
    conn.commit()
    conn.close()


def invalid_utf8(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE items SET question = CAST(x'51ff20c3' AS TEXT)")
    conn.execute("UPDATE raters SET name = CAST(x'6472ff' AS TEXT)")
    conn.commit()
    conn.close()


def invalid_utf8_schema(path: Path) -> None:
    """Invalid UTF-8 in the schema text: even SQLite's "malformed schema" message cannot be
    decoded, so the connection's very first statements raise ``UnicodeDecodeError``."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = CAST(x'4352454154452054414232c3ff28' AS TEXT) "
        "WHERE name = 'labels'"
    )
    conn.commit()
    conn.close()


def bad_pages(path: Path) -> None:
    path.write_bytes(damage(path.read_bytes(), "garbage in late pages"))


DAMAGES = {
    "corrupt schema": corrupt_schema,
    "invalid UTF-8 in the schema": invalid_utf8_schema,
    "invalid UTF-8": invalid_utf8,
    "bad pages": bad_pages,
}


def every_command(study: Path, folder: Path, judge_url: str) -> list[list[str]]:
    s = str(study)
    cmds = [
        ["status", s],
        ["status", s, "--json"],
        ["import", s, str(new_items(folder)), "-k", "pairwise"],
        ["judge", s, "-j", f"openai:fake@{judge_url}", "--samples", "1"],
        ["judge", s, "-j", f"openai:fake@{judge_url}", "--dry-run"],
        ["review", s],
        ["adjudicate", s, "--list"],
        ["adjudicate", s, "--json"],
        ["assign", s, "ann", "bob"],
        ["role", s, "add", "ann", "--as", "reviewer"],
        ["settings", s],
        ["settings", s, "--blind"],
        ["report", s, "-f", "json", "--n-boot", "100"],
        ["report", s, "-f", "md", "--n-boot", "100"],
    ]
    cmds += [["export", s, t] for t in ("labels", "verdicts", "calls", "history", "adjudications")]
    cmds += [["export", s, "labels", "--wide"], ["export", s, "ledger"]]
    cmds += [["backup", s, str(folder / "copy.db")]]
    return cmds


WRITERS = {"import", "judge", "assign", "role", "settings", "backup"}


@pytest.mark.parametrize("kind", sorted(DAMAGES))
def test_every_command_says_damaged(kind: str, tmp_path: Path) -> None:
    """Commands that write check every page first and refuse; commands that only read say
    "damaged" where they meet the damage (a read that never touches a bad page may succeed).
    A corrupt schema stops every command. Never a traceback."""
    study = megabyte_study(tmp_path, n=60)
    DAMAGES[kind](study)
    problems = []
    with FakeLLMServer() as server:
        for args in every_command(study, tmp_path, server.openai_url):
            r = cli.invoke(app, args)
            name = " ".join(args[:1] + args[2:3])
            must_fail = kind in ("corrupt schema", "invalid UTF-8 in the schema") or (
                kind == "bad pages" and args[0] in WRITERS
            )
            if r.exception is not None and not isinstance(r.exception, SystemExit):
                problems.append(f"{name}: raised {r.exception!r}")
            elif "Traceback" in r.output:
                problems.append(f"{name}: traceback")
            elif r.exit_code == 0 and must_fail:
                problems.append(f"{name}: exit 0 on a damaged study")
            elif r.exit_code not in (0, 1):
                problems.append(f"{name}: exit {r.exit_code}")
            elif r.exit_code == 1:
                lines = r.stderr.strip().splitlines()
                # (review runs without a terminal here: if opening the study met no damage,
                # "needs a terminal" is its one clear line)
                ok = ("damaged", "not a medjudge", "needs a terminal")
                if len(lines) != 1 or not any(w in lines[0] for w in ok):
                    problems.append(f"{name}: {r.stderr.strip()[:300]}")
        assert server.count() == 0, "a judge call was made on a damaged study"
    assert not problems, "\n".join(problems)
