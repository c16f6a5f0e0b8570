"""Environment conventions: MEDJUDGE_STUDY names a default study for the commands that
take only a study; TERM=dumb is said (the app cannot draw there) instead of painting escape
codes; NO_COLOR output carries no colour codes, on a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.studies import small_study

cli = CliRunner()


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "env.db"
    small_study(path, pairwise=2, statements=1).close()
    return path


def test_medjudge_study_is_the_default_study(study: Path) -> None:
    env = {"MEDJUDGE_STUDY": str(study)}
    r = cli.invoke(app, ["status", "--json"], env=env)
    assert r.exit_code == 0, r.output
    assert '"pairwise": 2' in r.stdout
    r = cli.invoke(app, ["report", "-f", "json", "--n-boot", "100"], env=env)
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["status", "--json"], env={"MEDJUDGE_STUDY": ""})
    assert r.exit_code == 2 and "Missing argument" in r.output
    # A command with further arguments always names its study: "labels" is not taken for one.
    r = cli.invoke(app, ["export", "labels"], env=env)
    assert r.exit_code != 0


def _in_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run medjudge with a pseudo-terminal as stdin, stdout and stderr; its exit code and all
    it wrote."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge", *args],
        stdin=child,
        stdout=child,
        stderr=child,
        env={**os.environ, **env},
        close_fds=True,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def test_term_dumb_is_said_not_drawn(study: Path) -> None:
    code, text = _in_a_terminal(["review", str(study)], {"TERM": "dumb"})
    assert code == 1
    assert "the review app needs a terminal: TERM=dumb cannot draw it" in text
    assert "\x1b[?1049h" not in text, "no alternate screen was opened"


def test_no_color_means_no_colour_codes(study: Path) -> None:
    code, text = _in_a_terminal(["status", str(study)], {"NO_COLOR": "1", "TERM": "xterm"})
    assert code == 0 and "items: 3" in text
    assert not re.search(r"\x1b\[[0-9;]*m", text), repr(text[:300])
