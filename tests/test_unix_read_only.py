"""A reviewer whose Unix login cannot write the study: the review app opens read-only
with a banner naming the file, its owner and mode, before the first key; the guidelines show
without a traceback; a label key says "NOT saved" and the app keeps running.

Real users: the test adds a Unix user with ``useradd`` and runs the app as that user through
``runuser`` (skipped where the suite does not run as root or the tools are missing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.kind_rows import pairwise_row, write_jsonl
from .support.unix import python_for

pytestmark = pytest.mark.skipif(
    os.name != "posix"
    or os.geteuid() != 0
    or not all(shutil.which(t) for t in ("useradd", "userdel", "groupadd", "groupdel", "runuser")),
    reason="needs root and useradd/groupadd/runuser to act as a second Unix user in a group",
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from medjudge.tui.app import make_app
    from medjudge.tui.guidelines_screen import GuidelinesScreen

    def text(app):
        app.screen._on_timer_update()
        return "\\n".join(s.text for s in app.screen._compositor.render_strips())

    async def main(path):
        app = make_app(path, poll_interval=None)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if isinstance(app.screen, GuidelinesScreen):
                    break
            assert isinstance(app.screen, GuidelinesScreen), type(app.screen)
            await pilot.press("escape")
            await pilot.pause(0.1)
            shown = text(app)
            assert "READ-ONLY" in shown, shown
            assert "owner root:mjteam" in shown and "mode 640" in shown, shown
            await pilot.press("a")
            await pilot.pause(0.1)
            assert "NOT saved" in text(app), text(app)
            assert app.is_running
        print("OK")

    asyncio.run(main(sys.argv[1]))
    """
)


def test_a_study_the_reviewer_cannot_write_opens_read_only_with_a_banner(
    team: tuple[str, str],
) -> None:
    """The team's shared folder (group-owned, setgid, 2770), a study the group may read but not
    write (640: made under umask 027): the reviewer's app says so before the first key."""
    group, other_user = team
    folder = Path(tempfile.mkdtemp(prefix="mj-ro-"))
    try:
        shutil.chown(folder, group=group)
        folder.chmod(0o2770)
        db = folder / "study.db"
        old = os.umask(0o027)
        try:
            cli = CliRunner()
            assert cli.invoke(app, ["init", str(db)]).exit_code == 0
            src = write_jsonl(folder / "p.jsonl", [pairwise_row(i) for i in range(2)])
            assert (
                cli.invoke(app, ["import", str(db), str(src), "--kind", "pairwise"]).exit_code == 0
            )
            guide = folder / "g.md"
            guide.write_text("# Guidelines\n\nRead the answers in full.\n")
            r = cli.invoke(app, ["settings", str(db), "--guidelines", str(guide)])
            assert r.exit_code == 0, r.output
        finally:
            os.umask(old)
        for leftover in (folder / "study.db-wal", folder / "study.db-shm"):
            leftover.unlink(missing_ok=True)
        assert oct(db.stat().st_mode & 0o777) == "0o640"
        script = folder / "run.py"
        script.write_text(SCRIPT)
        home = folder / "home"
        home.mkdir()
        shutil.chown(home, other_user)
        import site

        repo = Path(__file__).resolve().parent.parent
        python = python_for(other_user)
        path = os.pathsep.join([str(repo), *site.getsitepackages()])
        run = subprocess.run(
            [
                "runuser",
                "-u",
                other_user,
                "--",
                "env",
                f"HOME={home}",
                f"PYTHONPATH={path}",
                *python,
                str(script),
                str(db),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0 and "OK" in run.stdout, run.stdout + run.stderr
        assert "Traceback" not in run.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)
