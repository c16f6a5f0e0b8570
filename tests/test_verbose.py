"""`medjudge -v`: any command says its time and peak memory on stderr at the end, and
`judge` shows its retries as with its own `-v`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medjudge", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_v_says_time_and_memory(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    small_study(path, pairwise=2, statements=0).close()
    r = run(["-v", "status", str(path)])
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"took \d+\.\d\d s; peak memory \d+ MB\n", r.stderr), r.stderr
    assert run(["status", str(path)]).stderr == ""


def test_v_shows_judge_retries(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    small_study(path, pairwise=1, statements=0).close()
    first: list[int] = []

    def once_busy(req: FakeRequest) -> Reply:
        if not first:
            first.append(1)
            return Reply.error(503, "busy")
        return GOOD(req)

    with FakeLLMServer(once_busy) as server:
        r = run(
            ["-v", "judge", str(path), "-j", f"openai:m@{server.openai_url}", "--samples", "1"],
            {"OPENAI_API_KEY": "sk-test-verbose"},
        )
    assert r.returncode == 0, r.stderr
    assert any(line.startswith("retry: ") for line in r.stderr.splitlines()), r.stderr
