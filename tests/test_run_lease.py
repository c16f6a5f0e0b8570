"""One judge run per judge version at a time: a run holds a lease in the study; a second
run of the same judge version is refused before it sends anything, naming the holder; a lease
whose holder is gone is taken over, said so. The fake server holds the first run's calls until
the test lets them go (an Event), so the two runs overlap for sure."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.runner import RunOptions, RunSummary, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.judging.protocol.versions import register_judges
from medjudge.store import leases
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
WAIT_S = 30.0  # a bound for a broken test, never a pace


def judge(study: Path, url: str, *extra: str) -> object:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", f"openai:m@{url}", "--samples", "1", "--concurrency", "2"]
        + list(extra),
    )


def lease_rows(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute("SELECT judge, pid, host FROM run_leases")]
    finally:
        conn.close()


def test_a_second_run_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=4, statements=0).close()
    arrived, let_go = threading.Event(), threading.Event()
    lock, seen = threading.Lock(), [0]

    def held(req: FakeRequest) -> Reply:
        with lock:
            seen[0] += 1
            if seen[0] == 2:  # both calls the first run has in flight (--concurrency 2)
                arrived.set()
        assert let_go.wait(WAIT_S), "the test never let the calls go"
        return GOOD(req)

    with FakeLLMServer(held) as server:
        first: dict[str, RunSummary] = {}

        def run_first() -> None:
            config = JudgeConfig(parse_judge_spec(f"openai:m@{server.openai_url}"), samples=1)
            with Study.open(path) as s:
                options = RunOptions(concurrency=2, actor="first")
                first["summary"] = asyncio.run(run_judges(s, [config], options))

        thread = threading.Thread(target=run_first)
        thread.start()
        try:
            assert arrived.wait(WAIT_S), "the first run's two calls never arrived"
            ((name, pid, host),) = lease_rows(path)
            assert (pid, host) == (os.getpid(), socket.gethostname())
            before = server.count()
            r = judge(path, server.openai_url)
            assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
            err = " ".join(r.stderr.split())  # type: ignore[attr-defined]
            assert f"another judge run of {name} is under way" in err, err
            assert f"process {os.getpid()} on host {socket.gethostname()}" in err
            assert "running since 20" in err and "Traceback" not in r.output  # type: ignore[attr-defined]
            assert server.count() == before, "the second run sent nothing"
        finally:
            let_go.set()
            thread.join(WAIT_S)
        assert first["summary"].ok == 8
        assert lease_rows(path) == [], "released at the end"
        r = judge(path, server.openai_url)
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert lease_rows(path) == []


def _plant(path: Path, spec: str, *, pid: int, host: str, heartbeat: datetime) -> str:
    """A lease of the judge version ``spec`` (samples 1) as a run that is gone left it."""
    with Study.open(path) as s:
        (version,) = register_judges(s, [JudgeConfig(parse_judge_spec(spec), samples=1)], actor="t")
        stamp = heartbeat.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        with s.tx() as conn:
            conn.execute(
                "INSERT INTO run_leases VALUES (?, ?, 'gone', ?, ?, ?, ?)",
                (version.version_key(), version.rater, pid, host, stamp, stamp),
            )
        return version.rater


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("how", ["dead process", "old heartbeat"])
def test_a_lease_whose_holder_is_gone_is_taken_over(tmp_path: Path, how: str) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    with FakeLLMServer(GOOD) as server:
        spec = f"openai:m@{server.openai_url}"
        now = datetime.now(UTC)
        if how == "dead process":
            _plant(path, spec, pid=_dead_pid(), host=socket.gethostname(), heartbeat=now)
            why = "no longer runs on"
        else:
            _plant(path, spec, pid=1, host="elsewhere", heartbeat=now - timedelta(minutes=3))
            why = "its heartbeat is 180 s old"
        r = judge(path, server.openai_url)
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert "took over the run lease of" in r.stdout and why in r.stdout  # type: ignore[attr-defined]
        assert server.count() == 4
    assert lease_rows(path) == []


def test_a_live_lease_on_another_host_is_respected(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    with FakeLLMServer(GOOD) as server:
        spec = f"openai:m@{server.openai_url}"
        _plant(path, spec, pid=1, host="elsewhere", heartbeat=datetime.now(UTC))
        r = judge(path, server.openai_url)
        assert r.exit_code == 1 and "process 1 on host elsewhere" in r.stderr  # type: ignore[attr-defined]
        assert server.count() == 0
        r = judge(path, server.openai_url, "--dry-run")
        assert r.exit_code == 0, "a dry run sends nothing and needs no lease"  # type: ignore[attr-defined]


def test_the_heartbeat_refreshes_the_lease(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=1, statements=0).close()
    with Study.open(path) as s:
        taken = leases.take(s, [("k", "judge-k")])
        (before,) = leases.holders(s)
        beat = leases.Heartbeat(path, taken.token, interval=0.01).start()
        try:
            for _ in range(10_000):
                if beat.beats >= 2:
                    break
                threading.Event().wait(0.01)
        finally:
            beat.stop()
        (after,) = leases.holders(s)
        assert beat.beats >= 2 and after.heartbeat > before.heartbeat
        with pytest.raises(leases.LeaseHeld):
            leases.take(s, [("k", "judge-k")])
        leases.release(s, taken.token)
        assert leases.holders(s) == []
        again = leases.take(s, [("k", "judge-k")])  # free once released
        assert again.taken_over == []
        leases.release(s, again.token)


def test_a_sigkilled_run_is_not_left_running(tmp_path: Path) -> None:
    """A judge run killed with SIGKILL cannot record its end: its row said ``running`` for
    ever. The next run of its judge version takes the dead run's lease over and marks it
    ``killed``; nothing else is changed."""
    import signal

    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    arrived, let_go = threading.Event(), threading.Event()

    def held(req: FakeRequest) -> Reply:
        arrived.set()
        if not let_go.wait(WAIT_S):
            return Reply("", status=500)
        return GOOD(req)

    with FakeLLMServer(held) as server:
        spec = f"openai:m@{server.openai_url}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "medjudge", "judge", str(path), "-j", spec, "--samples", "1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "OPENAI_API_KEY": "sk-test"},
        )
        try:
            assert arrived.wait(WAIT_S), "the run's first call never arrived"
            proc.send_signal(signal.SIGKILL)
            proc.wait(WAIT_S)
        finally:
            let_go.set()
        conn = sqlite3.connect(path)
        try:
            (before,) = conn.execute("SELECT id, status, finished_at FROM judge_runs").fetchall()
        finally:
            conn.close()
        assert before[1:] == ("running", None)
        r = judge(path, server.openai_url)
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert "took over the run lease of" in r.stdout  # type: ignore[attr-defined]
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT id, status FROM judge_runs ORDER BY id").fetchall()
    finally:
        conn.close()
    assert rows == [(before[0], "killed"), (before[0] + 1, "done")]
