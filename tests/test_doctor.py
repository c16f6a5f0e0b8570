"""``medjudge doctor`` on a real shared folder: a Unix group, a setgid 2770 folder, a
study made under the README's ``umask 007``, and a reviewer login in the group. Every check is
named with its fix; running the printed fixes makes the study fine for the team."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.unix import CAN_ADD_USERS, NEEDS_USERS, python_for

cli = CliRunner()


def _lines(output: str) -> dict[str, str]:
    """check → its line (``ok``/``FIX``) and the ``run:`` line under it."""
    out: dict[str, str] = {}
    last = ""
    for line in output.splitlines():
        if line.startswith(("ok ", "FIX")):
            last = line.split(":", 1)[0][4:].strip()
            out[last] = line
        elif line.strip().startswith("run:") and last:
            out[last] += "\n" + line.strip()
    return out


def test_a_folder_without_setgid_and_a_study_without_group_write_are_named_with_fixes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "team"
    folder.mkdir()
    folder.chmod(0o755)
    db = folder / "t.db"
    old = os.umask(0o022)
    try:
        assert cli.invoke(app, ["init", str(db)]).exit_code == 0
        r = cli.invoke(app, ["doctor", str(db)])
    finally:
        os.umask(old)
    assert r.exit_code == 1, r.output
    got = _lines(r.output)
    assert got["setgid"].startswith("FIX") and f"chmod g+s {folder}" in got["setgid"]
    assert got["folder"].startswith("FIX") and "mode 755" in got["folder"]
    assert got["t.db"].startswith("FIX") and "mode 644" in got["t.db"]
    assert f"chmod g+rw {db}" in got["t.db"]
    assert got["umask"].startswith("FIX") and "umask 007" in got["umask"]
    assert got["integrity"].startswith("ok") and got["roles"].startswith("ok")
    # the printed fixes, run as printed, settle every file check
    for check in ("folder", "setgid", "t.db", "t.db-wal", "t.db-shm"):
        if check in got and "run:" in got[check]:
            command = got[check].split("run:", 1)[1].strip()
            subprocess.run(command, shell=True, check=True)
    fixed = _lines(cli.invoke(app, ["doctor", str(db)]).output)
    for check in ("folder", "setgid", "t.db"):
        assert fixed[check].startswith("ok"), fixed[check]


def test_a_missing_study_is_one_line() -> None:
    r = cli.invoke(app, ["doctor", "/nonexistent/x.db"])
    assert r.exit_code == 1 and "no such study file" in r.output


@pytest.mark.skipif(not CAN_ADD_USERS, reason=NEEDS_USERS)
def test_the_readme_recipe_passes_and_a_reviewer_can_run_doctor(team: tuple[str, str]) -> None:
    group, reviewer = team
    folder = Path(tempfile.mkdtemp(prefix="mj-doctor-"))
    try:
        shutil.chown(folder, group=group)
        folder.chmod(0o2770)
        db = folder / "trial.db"
        old = os.umask(0o007)
        try:
            assert cli.invoke(app, ["init", str(db)]).exit_code == 0
            r = cli.invoke(app, ["doctor", str(db)])
        finally:
            os.umask(old)
        got = _lines(r.output)
        for check in ("folder", "setgid", "trial.db", "umask", "roles", "integrity"):
            assert got[check].startswith("ok"), r.output
        assert oct(db.stat().st_mode & 0o777) == "0o660"
        assert db.stat().st_gid == folder.stat().st_gid
        # the reviewer (group member, not the owner) runs the same check: no traceback
        repo = Path(__file__).resolve().parent.parent
        import site

        path = os.pathsep.join([str(repo), *site.getsitepackages()])
        python = python_for(reviewer)
        command = " ".join(shlex.quote(x) for x in [*python, "-m", "medjudge", "doctor", str(db)])
        run = subprocess.run(
            ["runuser", "-u", reviewer, "--", "sh", "-c", f"umask 007; {command}"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": path, "HOME": str(folder)},
            timeout=120,
        )
        assert "Traceback" not in run.stderr, run.stderr
        seen = _lines(run.stdout)
        assert seen["trial.db"].startswith("ok") and seen["integrity"].startswith("ok"), run.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert sys.executable  # the suite's own interpreter stays usable
