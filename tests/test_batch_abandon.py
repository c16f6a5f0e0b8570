"""A batch can no longer block a judge version: ``judge --abandon-batch ID`` releases its
calls, a batch the provider answers 404 for is abandoned by the next ``--batch`` run (said so),
and a rejected upload or creation is rolled back. The real SDKs against tests/support/fakebatch.py, a
real study file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.fakebatch import BatchScript, FakeBatchServer
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
KEY = "sk-test-abandon-1a2b3c4d"
RESPONDER = routing(pairwise_responder(prefer_marked("Answer A")))
CHAT = ("/v1/chat/completions", "/v1/messages")
N_CALLS = 2 * 2 * 3  # 2 pairwise items × AB/BA × 3 samples


def spec(server: FakeBatchServer, provider: str) -> str:
    url = server.openai_url if provider == "openai" else server.anthropic_url
    return f"{provider}:m@{url}"


def judge(study: Path, *args: str) -> object:
    return cli.invoke(
        app,
        ["judge", str(study), *args],
        env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
    )


def run(study: Path, server: FakeBatchServer, provider: str, *extra: str) -> object:
    return judge(study, "-j", spec(server, provider), "--samples", "3", "--price", "2,2", *extra)


def query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def chat_calls(server: FakeBatchServer) -> int:
    return sum(server.count(p) for p in CHAT)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "b.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


@pytest.mark.parametrize("then", ["plain", "batch"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_abandoned_batch_releases_its_calls(db: Path, provider: str, then: str) -> None:
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=1000)) as s:
        r = run(db, s, provider, "--batch")
        assert r.exit_code == 5, r.output  # type: ignore[attr-defined]
        (batch,) = s.created()
        r = run(db, s, provider)
        assert r.exit_code == 5 and chat_calls(s) == 0, "a plain run skips the batch's calls"  # type: ignore[attr-defined]
        r = judge(db, "--abandon-batch", batch.id)
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert f"batch {batch.id} of " in r.stdout and f"{N_CALLS} call(s) released" in r.stdout  # type: ignore[attr-defined]
        (state, error) = query(db, "SELECT state, error FROM judge_batches")[0]
        assert state == "failed" and error.startswith("abandoned: ")
        if then == "plain":
            r = run(db, s, provider)
            assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
            assert chat_calls(s) == N_CALLS
        else:
            s.script = BatchScript(polls=0)
            r = run(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
            assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
            assert len(s.created()) == 2 and len(s.created()[1].requests) == N_CALLS
        assert query(db, "SELECT count(*) FROM judge_calls WHERE status = 'ok'") == [(N_CALLS,)]
        r = judge(db, "--abandon-batch", batch.id)
        assert r.exit_code == 1 and f"no open batch {batch.id!r}" in r.stderr  # type: ignore[attr-defined]


def test_abandon_needs_a_known_batch_and_no_judge(db: Path) -> None:
    r = judge(db, "--abandon-batch", "batch_nope")
    assert r.exit_code == 1 and "no open batch 'batch_nope' (open batches: none)" in r.stderr  # type: ignore[attr-defined]
    r = judge(db, "--abandon-batch", "1", "-j", "openai:gpt-4o")
    assert r.exit_code == 2 and "runs no judge" in r.output  # type: ignore[attr-defined]
    r = judge(db)
    assert r.exit_code == 2 and "give at least one judge" in r.output  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_the_provider_no_longer_knows_is_abandoned(db: Path, provider: str) -> None:
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=1000)) as s:
        r = run(db, s, provider, "--batch")
        assert r.exit_code == 5, r.output  # type: ignore[attr-defined]
        (lost,) = s.created()
        s.forget(lost.id)
        s.script = BatchScript(polls=0)
        r = run(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert f"batch {lost.id} abandoned: the provider no longer knows it (HTTP 404)" in r.stdout  # type: ignore[attr-defined]
        assert f"its {N_CALLS} call(s) are asked again" in r.stdout  # type: ignore[attr-defined]
        assert len(s.created()) == 1, "one new batch carried the calls again"
    states = query(db, "SELECT state, substr(error, 1, 11) FROM judge_batches ORDER BY id")
    assert states == [("failed", "abandoned: "), ("collected", None)]


def test_a_rejected_upload_is_rolled_back(db: Path) -> None:
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=0)) as s:
        s.fail_upload = 500
        r = run(db, s, "openai", "--batch")
        assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
        assert "upload rejected" in r.stderr and not s.created()  # type: ignore[attr-defined]
        assert query(db, "SELECT count(*) FROM judge_batches") == [(0,)], "nothing waits"
        assert query(db, "SELECT count(*) FROM judge_batch_calls") == [(0,)]
        r = run(db, s, "openai")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert chat_calls(s) == N_CALLS, "a plain run asks the calls (no exit 5)"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_rejected_creation_is_rolled_back(db: Path, provider: str) -> None:
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=0)) as s:
        s.fail_create = 500
        r = run(db, s, provider, "--batch")
        assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
        assert "batch creation failed" in r.stderr and not s.created()  # type: ignore[attr-defined]
        assert query(db, "SELECT count(*) FROM judge_batches") == [(0,)], "nothing waits"
        s.fail_create = None
        r = run(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert len(s.created()) == 1
