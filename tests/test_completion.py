"""Shell completion: `medjudge --show-completion bash` prints a script, and the installed
command completes commands and their options through click's completion protocol."""

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


def test_show_completion_prints_a_bash_script() -> None:
    r = subprocess.run(
        [MEDJUDGE or "", "--show-completion", "bash"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and "_medjudge_completion()" in r.stdout


def test_commands_and_options_complete() -> None:
    assert _complete("medjudge sta", 1) == ["status"]
    assert "--format" in _complete("medjudge report trial.db --for", 3)
    assert "--items" in _complete("medjudge judge trial.db --it", 3)
