"""Reading a study one may not write, with real Unix users and the real ``medjudge``.

- A reader whose login may only read the study, in the team's folder (which they may write),
  leaves no ``-wal``/``-shm`` files of their own behind: the lead's next write works.
- ``doctor`` names side files owned by another login, with a fix the lead can run.
- A read-only study (mode 444 in a folder nobody may write) can be read by every command that
  only reads, and the review app opens read-only, saying so.

Skipped where the suite does not run as root or lacks useradd/groupadd/runuser.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import site
import sqlite3
import subprocess
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import pairwise_row, write_jsonl
from .support.unix import CAN_ADD_USERS, NEEDS_USERS, python_for

pytestmark = pytest.mark.skipif(not CAN_ADD_USERS, reason=NEEDS_USERS)

REPO = Path(__file__).resolve().parent.parent
cli = CliRunner()


@pytest.fixture
def lead(team: tuple[str, str]) -> Iterator[str]:
    """A second login in the team's group: the study's lead (not root, so permissions apply)."""
    group, _ = team
    user = "mjlead" + secrets.token_hex(3)
    subprocess.run(
        ["useradd", "--no-create-home", "-G", group, user], check=True, capture_output=True
    )
    try:
        yield user
    finally:
        subprocess.run(["userdel", user], check=False, capture_output=True)


@pytest.fixture
def base() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mj-share-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_as(
    user: str, home: Path, *args: str, umask: str = "007", python: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``medjudge ARGS`` (or ``python SCRIPT`` with ``python``) as ``user``."""
    path = os.pathsep.join([str(REPO), *site.getsitepackages()])
    exe = python_for(user)
    argv = [*exe, *(python or ["-m", "medjudge"]), *args]
    command = " ".join(shlex.quote(a) for a in argv)
    return subprocess.run(
        ["runuser", "-u", user, "--", "sh", "-c", f"umask {umask}; {command}"],
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("MEDJUDGE")},
            "PYTHONPATH": path,
            "HOME": str(home),
            "MEDJUDGE_HOME": str(home / "mj"),
        },
        timeout=300,
    )


def home_of(base: Path, user: str) -> Path:
    home = base / f"home-{user}"
    home.mkdir()
    shutil.chown(home, user)
    return home


def owners(folder: Path) -> dict[str, str]:
    import pwd

    return {p.name: pwd.getpwuid(p.stat().st_uid).pw_name for p in folder.iterdir()}


def test_a_reader_leaves_no_side_files_and_the_lead_can_still_write(
    team: tuple[str, str], lead: str, base: Path
) -> None:
    """Regression test for #43: the reader's ``status`` left ``-wal``/``-shm`` files owned by
    the reader, and the lead's next write failed with "read-only here; ask its owner"."""
    group, reader = team
    folder = base / "team"
    folder.mkdir()
    shutil.chown(folder, group=group)
    folder.chmod(0o2770)  # the team's folder: the reader may create files in it
    lead_home, reader_home = home_of(base, lead), home_of(base, reader)
    db = folder / "trial.db"
    src = write_jsonl(base / "p.jsonl", [pairwise_row(i) for i in range(3)])
    src.chmod(0o644)
    # made under umask 027: the group (the reader) may read the study, not write it
    for args in (
        ["init", str(db)],
        ["import", str(db), str(src), "--kind", "pairwise"],
        ["role", str(db), "add", reader, "--as", "lead"],  # a lead the file does not let write
    ):
        r = run_as(lead, lead_home, *args, umask="027")
        assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(owners(folder)) == ["trial.db"], owners(folder)

    r = run_as(reader, reader_home, "status", str(db))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert owners(folder) == {"trial.db": lead}, "the reader left files behind"

    r = run_as(lead, lead_home, "settings", str(db), "--blind", umask="027")
    assert r.returncode == 0, r.stdout + r.stderr

    # a write by the reader says why, in one line, and leaves nothing behind either
    r = run_as(reader, reader_home, "settings", str(db), "--blind")
    assert r.returncode == 1 and "read-only here" in r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert set(owners(folder).values()) == {lead}, owners(folder)


def test_doctor_names_side_files_another_login_left_with_a_fix_the_lead_can_run(
    team: tuple[str, str], lead: str, base: Path
) -> None:
    """Side files the reader's older medjudge (plain SQLite) left: owned by the reader, not
    writable by the lead. ``doctor`` says whose they are and prints a fix the lead can run;
    after it, the lead's write works."""
    group, reader = team
    folder = base / "team"
    folder.mkdir()
    shutil.chown(folder, group=group)
    folder.chmod(0o2770)
    lead_home, reader_home = home_of(base, lead), home_of(base, reader)
    db = folder / "trial.db"
    assert run_as(lead, lead_home, "init", str(db), umask="027").returncode == 0
    leave = base / "leave.py"
    leave.write_text(
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1])\n"
        "c.execute('SELECT count(*) FROM items').fetchone()\n"
        "c.close()\n"
    )
    leave.chmod(0o644)
    r = run_as(reader, reader_home, str(db), python=[str(leave)])
    assert r.returncode == 0, r.stderr
    assert owners(folder).get("trial.db-shm") == reader, owners(folder)
    assert run_as(lead, lead_home, "settings", str(db), "--blind").returncode == 1

    r = run_as(lead, lead_home, "doctor", str(db))
    assert r.returncode == 1, r.stdout
    lines = r.stdout.splitlines()
    shm = next(i for i, line in enumerate(lines) if line.startswith("FIX trial.db-shm"))
    assert f"owned by {reader}" in lines[shm], r.stdout
    fixes = [line.split("run:", 1)[1].strip() for line in lines if "run:" in line]
    side = [f for f in fixes if "-shm" in f or "-wal" in f]
    assert side, r.stdout
    for fix in side:  # the lead can run every fix printed for the side files
        run = subprocess.run(
            ["runuser", "-u", lead, "--", "sh", "-c", fix],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, f"{fix}: {run.stderr}"
    r = run_as(lead, lead_home, "settings", str(db), "--blind")
    assert r.returncode == 0, r.stdout + r.stderr


APP_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from medjudge.tui.app import make_app
    from medjudge.tui.review.screen import ReviewScreen

    def text(app):
        app.screen._on_timer_update()
        return "\\n".join(s.text for s in app.screen._compositor.render_strips())

    async def main(path):
        app = make_app(path, poll_interval=None)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if isinstance(app.screen, ReviewScreen):
                    break
            assert isinstance(app.screen, ReviewScreen), type(app.screen)
            shown = text(app)
            assert "READ-ONLY" in shown, shown
            await pilot.press("a")
            await pilot.pause(0.1)
            assert "NOT saved" in text(app), text(app)
            assert app.is_running
        print("OK")

    asyncio.run(main(sys.argv[1]))
    """
)


def test_a_read_only_study_in_a_read_only_folder_can_be_read(
    team: tuple[str, str], base: Path
) -> None:
    """Regression test for #43: mode 444 in a folder nobody but root may write; every command
    that only reads exited 1 ("cannot open the study file")."""
    _, reader = team
    folder = base / "archive"
    folder.mkdir()
    db = folder / "trial.db"
    src = write_jsonl(base / "p.jsonl", [pairwise_row(i) for i in range(3)])
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    assert cli.invoke(app, ["import", str(db), str(src), "--kind", "pairwise"]).exit_code == 0
    granted = cli.invoke(app, ["role", str(db), "add", reader, "--as", "lead"])
    assert granted.exit_code == 0, granted.output
    db.chmod(0o444)
    folder.chmod(0o755)
    home = home_of(base, reader)
    copy = home / "copy.db"
    commands = [
        ["status", str(db)],
        ["status", str(db), "--json"],
        ["report", str(db), "-f", "json", "--n-boot", "100"],
        ["report", str(db), "-f", "md", "--n-boot", "100"],
        ["search", str(db), "question"],
        ["export", str(db), "labels"],
        ["backup", str(db), str(copy)],
    ]
    problems = []
    for args in commands:
        r = run_as(reader, home, *args)
        if r.returncode != 0 or "Traceback" in r.stderr:
            problems.append(f"{args[0]}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    assert not problems, "\n".join(problems)
    assert sqlite3.connect(copy).execute("SELECT count(*) FROM items").fetchone() == (3,)
    # review: past opening the study, only the missing terminal stops it here
    r = run_as(reader, home, "review", str(db))
    assert r.returncode == 1 and "needs a terminal" in r.stderr, r.stderr
    # a write says read-only, in one line
    r = run_as(reader, home, "settings", str(db), "--blind")
    assert r.returncode == 1 and "read-only here" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    # the review app opens read-only with its banner, and a label key says NOT saved
    script = base / "app.py"
    script.write_text(APP_SCRIPT)
    script.chmod(0o644)
    r = run_as(reader, home, str(db), python=[str(script)])
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr[-2000:]
    assert sorted(p.name for p in folder.iterdir()) == ["trial.db"]
