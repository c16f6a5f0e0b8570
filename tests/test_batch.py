"""`judge --batch`: the real openai and anthropic SDKs against a loopback server that
implements the files and batches endpoints (tests/support/fakebatch.py), a real study file."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.fakebatch import BatchScript, FakeBatchServer
from .support.judges import flip_sample, pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row, write_jsonl
from .support.studies import small_study

cli = CliRunner()
KEY = "sk-test-batch-4f3e2d1c0b"
RESPONDER = routing(pairwise_responder(flip_sample(prefer_marked("Answer A"), flipped=1)))


def spec(server: FakeBatchServer, provider: str) -> str:
    url = server.openai_url if provider == "openai" else server.anthropic_url
    return f"{provider}:m@{url}"


def judge(study: Path, server: FakeBatchServer, provider: str, *extra: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", spec(server, provider), "--samples", "3", "--price", "2,2"]
        + list(extra),
        env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
    )


def query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def verdicts(path: Path) -> dict[tuple[str, str], str | None]:
    rows = query(
        path,
        "SELECT i.ext_id, u.criterion, l.value FROM units u JOIN items i ON i.id = u.item_id "
        "JOIN labels l ON l.unit_id = u.id ORDER BY i.id, u.position",
    )
    return {(r[0], r[1]): r[2] for r in rows}


def calls(path: Path) -> dict[str, tuple[Any, ...]]:
    rows = query(
        path,
        "SELECT key, status, parsed, messages, params, template_hash, input_tokens, "
        "output_tokens, cost_usd FROM judge_calls",
    )
    return {r[0]: r[1:] for r in rows}


@pytest.fixture
def studies(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "sync.db", tmp_path / "batch.db"
    small_study(a, pairwise=6, statements=2).close()
    small_study(b, pairwise=6, statements=2).close()
    return a, b


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_run_gives_the_verdicts_of_a_synchronous_run(
    studies: tuple[Path, Path], provider: str
) -> None:
    """Same judge, same scripted server: the same cache keys, replies and verdicts; the batch
    run pays half; no key anywhere in the study."""
    sync_db, batch_db = studies
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=2)) as server:
        r = judge(sync_db, server, provider)
        assert r.exit_code == 0, r.output
        chat = server.count()
        server.clear()
        r = judge(batch_db, server, provider, "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output
        assert len(server.created()) == 1
        paths = {q.path for q in server.requests}
        assert "/v1/chat/completions" not in paths and "/v1/messages" not in paths
        assert len(server.batch_requests()) == chat, "every call went in the batch, once"
    assert verdicts(batch_db) == verdicts(sync_db)
    assert len(verdicts(batch_db)) == 6 * 6 + 2  # (item, criterion): statements collapse
    s, b = calls(sync_db), calls(batch_db)
    assert s.keys() == b.keys()
    for key, (*same, cost) in s.items():
        assert list(b[key][:-1]) == same, "the same request, reply and tokens"
        assert b[key][-1] == pytest.approx(cost / 2), "the batch discount is in the ledger"
    assert query(batch_db, "SELECT state FROM judge_batches") == [("collected",)]
    assert query(batch_db, "SELECT count(*) FROM judge_batch_requests") == [(0,)]
    assert query(batch_db, "SELECT count(*) FROM judge_batch_calls") == [(chat,)]
    assert query(batch_db, "SELECT status FROM judge_runs") == [("done",)]
    assert KEY.encode() not in batch_db.read_bytes()


def test_without_wait_it_returns_then_the_same_command_collects_then_asks_nothing(
    studies: tuple[Path, Path],
) -> None:
    _, db = studies
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=1)) as server:
        r = judge(db, server, "openai", "--batch")
        assert r.exit_code == 5, r.output
        assert "run with --batch again to collect" in r.output
        assert query(db, "SELECT status FROM judge_runs") == [("pending",)]
        assert query(db, "SELECT state, provider_id IS NOT NULL FROM judge_batches") == [
            ("submitted", 1)
        ]
        assert verdicts(db) == {}
        shown = cli.invoke(app, ["status", str(db)]).output
        assert f"batch at the provider: openai:m@{server.openai_url}" in shown
        assert "54 calls" in shown, shown  # 6 × 2 orders × 3 samples + 2 × 3 statements × 3
        before = server.count()
        r = judge(db, server, "openai")  # synchronous: the calls in the batch are paid already
        assert r.exit_code == 5 and server.count() == before, r.output
        r = judge(db, server, "openai", "--batch")  # in progress still
        assert r.exit_code == 5, r.output
        r = judge(db, server, "openai", "--batch")
        assert r.exit_code == 0, r.output
        assert len(server.created()) == 1 and len(verdicts(db)) == 38
        before = server.count()
        r = judge(db, server, "openai", "--batch")
        assert r.exit_code == 0 and server.count() == before, "a third run makes no request"
        assert "batch at the provider" not in cli.invoke(app, ["status", str(db)]).output
        r = judge(db, server, "openai")
        assert r.exit_code == 0 and server.count() == before, "nor does a synchronous one"
    runs = [r[0] for r in query(db, "SELECT status FROM judge_runs")]
    assert runs == ["pending", "pending", "pending", "done", "done", "done"]


def test_max_cost_holds_what_a_batch_run_submits(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    small_study(db, pairwise=4, statements=0).close()
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=0)) as s:
        r = judge(db, s, "openai", "--batch", "--max-cost", "0.01")
        assert r.exit_code == 3, r.output
        first = len(s.batch_requests())
        assert 0 < first < 24
        # worst case per call at batch prices: ≤ (input + 800 output tokens) × $2/M × 0.5
        assert query(db, "SELECT status FROM judge_runs") == [("stopped",)]
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output
        assert len(s.batch_requests()) == 24, "the rest, and nothing twice"


def test_expired_batch_gives_failed_samples_that_retry_failed_sends_again(tmp_path: Path) -> None:
    """A batch that expires after answering part of its requests: the answered ones are
    stored, the rest are failed samples (never votes); --retry-failed sends only those."""
    db = tmp_path / "e.db"
    small_study(db, pairwise=4, statements=0).close()
    scripts = {0: BatchScript(polls=0, outcome="expired", done=10)}
    with FakeBatchServer(RESPONDER, script=lambda n: scripts.get(n, BatchScript(polls=0))) as s:
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 4, r.output
        rows = query(db, "SELECT status, error FROM judge_calls ORDER BY rowid")
        assert [x[0] for x in rows].count("ok") == 10 and len(rows) == 24
        assert all("expired" in (e or "") for st, e in rows if st == "failed")
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 4 and len(s.created()) == 1, "failed samples are cached"
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01", "--retry-failed")
        assert r.exit_code == 0, r.output
        assert [len(b.requests) for b in s.created()] == [24, 14]
    assert query(db, "SELECT count(*) FROM judge_calls WHERE status = 'ok'") == [(24,)]
    assert None not in verdicts(db).values()


def test_identical_calls_go_once_per_batch(tmp_path: Path) -> None:
    """Item q2 is q1 with its answers swapped: q1's AB prompt is q2's BA prompt (same cache
    key). The providers refuse duplicate custom_ids; each key goes once, both items get it."""
    db = tmp_path / "d.db"
    rows = [
        pairwise_row(1, question="Same?", answer_a="Answer A x", answer_b="Plain y"),
        pairwise_row(2, question="Same?", answer_a="Plain y", answer_b="Answer A x"),
    ]
    with Study.create(db) as st:
        import_file(st, write_jsonl(tmp_path / "d.jsonl", rows), "pairwise", actor="t")
    for provider in ("openai", "anthropic"):
        with FakeBatchServer(RESPONDER, script=BatchScript(polls=0)) as s:
            r = judge(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
            assert r.exit_code == 0, r.output
            ids = [x["custom_id"] for x in s.batch_requests()]
            assert len(ids) == len(set(ids)) == 6  # 2 orders × 3 samples, shared by both items
    v = verdicts(db)
    assert v[("p1", "correctness")] == "A" and v[("p2", "correctness")] == "B"


def test_large_runs_are_split_under_the_limits(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    small_study(db, pairwise=7, statements=0).close()
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=0), max_requests=10) as s:
        r = judge(db, s, "openai", "--batch", "--batch-size", "10", "--dry-run")
        assert r.exit_code == 0 and "42 to send in 5 batch(es)" in r.output
        r = judge(
            db, s, "openai", "--batch", "--batch-size", "10", "--wait", "--poll-interval", "0.01"
        )
        assert r.exit_code == 0, r.output
        assert [len(b.requests) for b in s.created()] == [10, 10, 10, 10, 2]
    # and by bytes (the library's parameter): every batch under the limit
    db2 = tmp_path / "s2.db"
    small_study(db2, pairwise=7, statements=0).close()
    with FakeBatchServer(RESPONDER, script=BatchScript(polls=0)) as s, Study.open(db2) as st:
        judge_cfg = JudgeConfig(parse_judge_spec(spec(s, "anthropic")), samples=3)
        options = RunOptions(batch=True, batch_wait=True, batch_poll_s=0.01, batch_max_bytes=20_000)
        summary = asyncio.run(run_judges(st, [judge_cfg], options))
        sizes = query(db2, "SELECT n_bytes, n_calls FROM judge_batches")
        assert len(sizes) > 1 and all(n <= 20_000 for n, _ in sizes)
        assert sum(c for _, c in sizes) == 42 and summary.ok == 42


def test_dry_run_shows_batches_calls_and_the_cost_at_batch_prices(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    small_study(db, pairwise=3, statements=0).close()
    with FakeBatchServer(RESPONDER) as s:
        plain = judge(db, s, "openai", "--dry-run")
        batch = judge(db, s, "openai", "--dry-run", "--batch")
        assert s.count() == 0, "a dry run sends nothing"
    cost = [float(line.rsplit("$", 1)[1]) for line in plain.output.splitlines() if "$" in line]
    out = batch.output
    assert "18 to send in 1 batch(es)" in out and "at batch prices" in out
    bcost = float(out.rsplit("$", 1)[1].split()[0])
    assert bcost == pytest.approx(cost[0] / 2, abs=1e-4)
    r = cli.invoke(app, ["judge", str(db), "-j", "openai:m", "--wait"])
    assert r.exit_code == 2 and "--batch" in r.output


def test_a_refused_batch_fails_the_run_and_frees_its_calls(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    small_study(db, pairwise=2, statements=0).close()
    scripts = {0: BatchScript(polls=0, outcome="failed")}
    with FakeBatchServer(RESPONDER, script=lambda n: scripts.get(n, BatchScript(polls=0))) as s:
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 1, r.output
        assert "refused the batch" in r.stderr and "Traceback" not in r.output
        assert query(db, "SELECT state FROM judge_batches") == [("failed",)]
        assert query(db, "SELECT status FROM judge_runs") == [("failed",)]
        r = judge(db, s, "openai", "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output
        assert len(s.created()) == 2


def test_a_local_judge_has_no_batch_api(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    small_study(db, pairwise=1, statements=0).close()
    r = cli.invoke(app, ["judge", str(db), "-j", "local:smollm2", "--batch"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    err = r.stderr
    assert "--batch needs a judge whose provider has a batch API (openai, anthropic" in err
    assert query(db, "SELECT count(*) FROM judge_runs") == [(0,)], "refused before any run"


# ---------------------------------------------------------------------------------- kills


def _child(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY}
    return subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.slow  # real processes killed mid-run, like tests/test_crash.py
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("when", ["before its id is recorded", "while waiting"])
def test_sigkill_after_submission_never_submits_a_second_batch(
    tmp_path: Path, provider: str, when: str
) -> None:
    """SIGKILL a real `medjudge judge --batch --wait` once the provider has the batch — either
    before the provider's answer (so its id is never recorded) or while it polls — then run it
    again: it finds or polls that batch, never creates a second; a third run asks nothing."""
    db = tmp_path / "k.db"
    small_study(db, pairwise=5, statements=1).close()
    hang = when == "before its id is recorded"
    scripts = {0: BatchScript(polls=3, hang_on_create=60.0 if hang else 0.0)}
    with FakeBatchServer(RESPONDER, script=lambda n: scripts.get(n, BatchScript())) as s:
        args = [
            sys.executable, "-m", "medjudge", "judge", str(db), "-j", spec(s, provider),
            "--samples", "3", "--batch", "--wait", "--poll-interval", "0.05",
        ]  # fmt: skip
        child = _child(args)
        deadline = time.monotonic() + 60
        retrieve = f"/v1/{'batches' if provider == 'openai' else 'messages/batches'}/"
        while not s.created() or (
            not hang and not any(q.path.startswith(retrieve) for q in s.requests)
        ):
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "no batch was submitted"
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)
        child.communicate()
        state = query(db, "SELECT state, provider_id FROM judge_batches")
        if hang:
            assert state == [("intent", None)], "killed before the provider's answer"
        else:
            assert state[0][0] == "submitted" and state[0][1] == s.created()[0].id
        done = subprocess.run(
            args, capture_output=True, text=True, timeout=120,
            env={**os.environ, "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert len(s.created()) == 1, "never a second batch"
        if hang:
            assert "1 found at the provider" in done.stdout
        assert query(db, "SELECT state, provider_id FROM judge_batches") == [
            ("collected", s.created()[0].id)
        ]
        before = s.count()
        third = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert third.returncode == 0, third.stderr
        assert s.count() == before, "a third run makes no request at all"
    assert len(verdicts(db)) == 5 * 6 + 1
    assert query(db, "SELECT count(*) FROM judge_calls WHERE status = 'ok'") == [(5 * 6 + 3 * 3,)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failed_requests_are_failed_samples_and_their_errors_carry_no_key(
    tmp_path: Path, provider: str
) -> None:
    """A request the provider answered with an error (here one that echoes the key) is a failed
    sample: stored with the provider's message, scrubbed; never a vote."""
    from .support.fakellm import FakeRequest, Reply

    db = tmp_path / "r.db"
    small_study(db, pairwise=2, statements=0).close()

    def respond(req: FakeRequest) -> Reply:
        if "Question 1?" in req.prompt_text:
            return Reply.error(400, f"invalid request from key {KEY}")
        return RESPONDER(req)

    with FakeBatchServer(respond, script=BatchScript(polls=0)) as s:
        r = judge(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 4, r.output
    failed = query(db, "SELECT error FROM judge_calls WHERE status = 'failed'")
    assert len(failed) == 6 and all("invalid request from key" in e for (e,) in failed)
    assert KEY.encode() not in db.read_bytes()
    assert query(db, "SELECT count(*) FROM judge_calls WHERE status = 'ok'") == [(6,)]


def test_a_server_without_a_batch_api_is_named_and_nothing_is_left_in_flight(
    tmp_path: Path,
) -> None:
    from .support.fakellm import FakeLLMServer

    db = tmp_path / "n.db"
    small_study(db, pairwise=1, statements=0).close()
    with FakeLLMServer(RESPONDER) as plain:
        r = cli.invoke(app, ["judge", str(db), "-j", f"openai:m@{plain.openai_url}", "--batch"])
        assert r.exit_code == 1, r.output
        line = r.stderr.strip().splitlines()[-1]
        assert "upload the batch file: HTTP 404" in line and plain.openai_url in line, line
        assert query(db, "SELECT state FROM judge_batches") == [("failed",)]
        r = cli.invoke(app, ["judge", str(db), "-j", f"openai:m@{plain.openai_url}"])
        assert r.exit_code == 0, "the calls were not held by the refused batch"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_create_without_an_answer_is_never_sent_again_but_found(
    tmp_path: Path, provider: str
) -> None:
    """The provider accepts the batch but its answer never arrives (the connection drops): a
    retry could create a second batch, so there is none — the run fails saying why, and the
    next run finds the batch by its token and collects it."""
    db = tmp_path / "t.db"
    small_study(db, pairwise=2, statements=0).close()
    scripts = {0: BatchScript(polls=0, drop_on_create=True)}
    with FakeBatchServer(RESPONDER, script=lambda n: scripts.get(n, BatchScript(polls=0))) as s:
        r = judge(db, s, provider, "--batch")
        assert r.exit_code == 1, r.output
        assert "create the batch: the server at" in r.stderr
        assert "closed the connection without a reply" in r.stderr
        assert len(s.created()) == 1, "no second create after a create with no answer"
        assert query(db, "SELECT state, provider_id FROM judge_batches") == [("intent", None)]
        r = judge(db, s, provider, "--batch", "--wait", "--poll-interval", "0.01")
        assert r.exit_code == 0, r.output
        assert "1 found at the provider" in r.output
        assert len(s.created()) == 1
