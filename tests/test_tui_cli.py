"""``medjudge review`` and ``medjudge demo`` open the app; errors are one clear line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app as cli

from .support.tui import build_study


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Replace App.run: record the app instead of taking over the terminal."""
    from medjudge.tui.app import ReviewApp

    calls: list[object] = []

    def fake_run(self: ReviewApp, *args: object, **kwargs: object) -> None:
        calls.append(self)
        self.study.close()

    monkeypatch.setattr(ReviewApp, "run", fake_run)
    # The app stands in for the terminal too (tests run without one).
    monkeypatch.setattr("medjudge.commands.review.has_terminal", lambda: True)
    return calls


def test_review_opens_the_app_for_the_login_name(tmp_path: Path, ran: list[object]) -> None:
    path = build_study(tmp_path, override=False)
    r = CliRunner().invoke(cli, ["review", str(path)])
    assert r.exit_code == 0, r.output
    from medjudge.store.paths import login_name

    assert ran and ran[0].session.reviewer == login_name()  # type: ignore[attr-defined]


def test_review_refuses_another_name_unless_allowed(tmp_path: Path, ran: list[object]) -> None:
    path = build_study(tmp_path, override=False)
    r = CliRunner().invoke(cli, ["review", str(path), "--reviewer", "dr_who"])
    assert r.exit_code == 1 and not ran
    assert "does not allow reviewing under another name" in r.output
    allowed = build_study(tmp_path, name="ok.db", override=True)
    r = CliRunner().invoke(cli, ["review", str(allowed), "--reviewer", "dr_who"])
    assert r.exit_code == 0 and ran[0].session.reviewer == "dr_who"  # type: ignore[attr-defined]


def test_review_of_a_missing_file_is_a_user_error(tmp_path: Path, ran: list[object]) -> None:
    r = CliRunner().invoke(cli, ["review", str(tmp_path / "nope.db")])
    assert r.exit_code == 1 and "no such study" in r.output and not ran


def test_review_help_has_an_example() -> None:
    r = CliRunner().invoke(cli, ["review", "--help"])
    assert r.exit_code == 0 and "Example:" in r.output and "medjudge review" in r.output


def test_demo_builds_and_opens_the_review_app(
    ran: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("medjudge.commands.demo.has_terminal", lambda: True)
    r = CliRunner().invoke(cli, ["demo"])
    assert r.exit_code == 0, r.output
    assert len(ran) == 1 and len(ran[0].session.refs) == 28  # type: ignore[attr-defined]


def test_importing_the_cli_does_not_load_textual() -> None:
    code = "import sys, medjudge.cli; print('textual' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr


@pytest.mark.parametrize("command", ["review", "adjudicate"])
def test_without_a_terminal_the_apps_stop_at_once(tmp_path: Path, command: str) -> None:
    """piped stdin/stdout used to spin at 100% CPU; now one line and exit 1."""
    import resource

    from medjudge.store.paths import login_name
    from medjudge.store.roles import grant
    from medjudge.store.study import Study

    path = build_study(tmp_path)
    with Study.open(path) as s:
        grant(s, login_name(), "adjudicator", by="lead")
    # the child's CPU time, not wall-clock: the spin burnt CPU, a busy machine only waits
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(
        [sys.executable, "-m", "medjudge", command, str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "needs a terminal" in r.stderr and "Traceback" not in r.stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 20
