"""Shell completion: `medjudge --show-completion` prints the script for the shell it runs
under, and the installed command completes commands and their options through click's
completion protocol."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

MEDJUDGE = shutil.which("medjudge", path=os.path.dirname(sys.executable))
pytestmark = pytest.mark.skipif(MEDJUDGE is None, reason="the medjudge script is not installed")


def _complete(words: str, cword: int) -> list[str]:
    env = {**os.environ, "_MEDJUDGE_COMPLETE": "complete_bash", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(cword)
    r = subprocess.run([MEDJUDGE or ""], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_show_completion_prints_the_script_of_the_shell_it_runs_under() -> None:
    # The shell is found from the parent processes (typer asks shellingham), not from an
    # argument: run it from bash, as a user would, or it depends on what started pytest.
    r = subprocess.run(
        ["bash", "-c", f"{MEDJUDGE} --show-completion; exit $?"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "_medjudge_completion()" in r.stdout and "complete " in r.stdout


def test_commands_and_options_complete() -> None:
    assert _complete("medjudge sta", 1) == ["status"]
    assert "--format" in _complete("medjudge report trial.db --for", 3)
    assert "--items" in _complete("medjudge judge trial.db --it", 3)


def test_judge_specs_complete_from_the_registry() -> None:
    """``-j`` completes the registered providers' prefixes (and the bundled local model)."""
    assert _complete("medjudge judge trial.db -j o", 4) == ["openai:", "openrouter:", "ollama:"]
    assert _complete("medjudge judge trial.db -j loc", 4) == ["local:", "local:smollm2"]
    assert _complete("medjudge judge trial.db -j openai:gp", 4) == []
