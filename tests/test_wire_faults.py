"""Replies that go wrong on the wire are failed calls, not crashes (issue #43): a reply larger
than the limit is refused while it is read (an endless body took 1.40 GB of memory), JSON
nested 100,000 deep and a server that does not speak HTTP end in one line, not a traceback, a
redirect to another server is not followed (the key never reaches it), and a reset connection
is called a reset, not a timeout. The real SDKs talk to the fake servers of
``tests/support/wire.py``."""

from __future__ import annotations

import asyncio
import os
import resource
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.llm.http_limits import MAX_REPLY_BYTES
from medjudge.judging.llm.provider_types import ChatRequest, ProviderError

from .support.fakellm import FakeLLMServer, FakeRequest
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study
from .support.wire import Fault, WireServer

cli = CliRunner()
KEY = "sk-test-wire-faults-0123"
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
PROVIDERS = ["openai", "anthropic"]


def url(server: FakeLLMServer, provider: str) -> str:
    return server.openai_url if provider == "openai" else server.anthropic_url


def for_item(n: int, fault: Fault) -> Callable[[FakeRequest], Fault | None]:
    """``fault`` for the calls of pairwise item ``n``, normal replies for the others."""

    def pick(req: FakeRequest) -> Fault | None:
        return fault if f"Question {n}?" in req.prompt_text else None

    return pick


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "w.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


def judge(study: Path, spec: str, *extra: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", spec, "--samples", "1", "--concurrency", "2", *extra],
        env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY, "WIRE_KEY": KEY},
    )


def errors(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT error FROM judge_calls WHERE status = 'error'").fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def one_line_failure(r: Result, code: int, *words: str) -> None:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output and KEY not in r.output, r.output
    text = r.stdout if code == 4 else r.stderr
    lines = [line for line in text.splitlines() if all(w in line for w in words)]
    assert lines, text


# --------------------------------------------------------------------------- size


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _judge_peak(study: Path, server: WireServer) -> tuple[int, str, str, float]:
    """The real ``medjudge judge`` in its own process (address space capped at 4 GiB): its
    exit code, output, error output and peak RSS in MB."""
    out, err = study.parent / "out.txt", study.parent / "err.txt"
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen(
            [sys.executable, "-m", "medjudge", "judge", str(study), "--samples", "1"]
            + ["-j", f"openai:m@{server.openai_url}", "--timeout", "60", "--retry-failed"],
            stdout=o,
            stderr=e,
            stdin=subprocess.DEVNULL,
            preexec_fn=_capped,
        )
        _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code, out.read_text(), err.read_text(), usage.ru_maxrss / 1024


def test_an_endless_reply_is_refused_while_read_in_a_modest_memory(study: Path) -> None:
    """The real command: it finishes, the call is recorded as failed with the limit, and the
    process's peak RSS stays within what the same run with ordinary replies takes, plus the
    limit and its buffers — where an endless body took 4,630 MB."""
    with WireServer(GOOD) as plain:
        code, _, stderr, baseline_mb = _judge_peak(study, plain)
    assert code == 0, stderr
    with WireServer(GOOD, fault=for_item(0, Fault("endless"))) as server:
        code, stdout, stderr, peak_mb = _judge_peak(study, server)
        sent = server.bytes_sent
    assert code == 4, stdout + stderr
    assert "Traceback" not in stderr, stderr
    limit = f"reply larger than {MAX_REPLY_BYTES >> 20} MB"
    assert limit in stdout, stdout
    assert errors(study) and all(limit in e for e in errors(study)), errors(study)
    assert peak_mb < baseline_mb + 200, (
        f"peak RSS {peak_mb:.0f} MB (ordinary replies: {baseline_mb:.0f})"
    )
    assert sent < 200 << 20, f"the server got to send {sent >> 20} MB"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_body_declared_too_large_is_refused_before_it_is_read(provider: str, study: Path) -> None:
    with WireServer(GOOD, fault=for_item(0, Fault("declared_large"))) as server:
        r = judge(study, f"{provider}:m@{url(server, provider)}")
        sent = server.bytes_sent
    one_line_failure(r, 4, f"reply larger than {MAX_REPLY_BYTES >> 20} MB")
    assert sent < 200 << 20


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_gzip_reply_is_bounded_after_it_is_unpacked(provider: str, study: Path) -> None:
    """64 KB on the wire, 64 MB unpacked: refused at the limit; a normal gzip reply is read."""
    bomb = for_item(0, Fault("gzip_bomb"))

    def fault(req: FakeRequest) -> Fault | None:
        return bomb(req) or Fault("gzip")

    with WireServer(GOOD, fault=fault) as server:
        r = judge(study, f"{provider}:m@{url(server, provider)}")
    one_line_failure(r, 4, "not judged", f"reply larger than {MAX_REPLY_BYTES >> 20} MB")
    assert "2 ok" in r.stdout, r.stdout


# --------------------------------------------------------------------------- not JSON, not HTTP


@pytest.mark.parametrize("provider", PROVIDERS)
def test_json_nested_100000_deep_is_a_failed_call(provider: str, study: Path) -> None:
    with WireServer(GOOD, fault=for_item(0, Fault("deep"))) as server:
        r = judge(study, f"{provider}:m@{url(server, provider)}")
    one_line_failure(r, 4, "not judged", "nested too deeply")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_that_does_not_speak_http(provider: str, study: Path) -> None:
    with WireServer(GOOD, fault=lambda req: Fault("garbage")) as server:
        r = judge(study, f"{provider}:m@{url(server, provider)}")
        asked, where = server.count(), server.base_url
    one_line_failure(r, 1, "the judge run failed", "does not answer in HTTP", where)
    assert asked == 4, "not HTTP is not retried: one request per call"


# --------------------------------------------------------------------------- redirects


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_redirect_to_another_server_is_not_followed(provider: str, study: Path) -> None:
    with FakeLLMServer(GOOD) as other:
        target = url(other, provider).removesuffix("/v1")
        with WireServer(GOOD, fault=lambda req: Fault("redirect", target)) as first:
            r = judge(study, f"{provider}:m@{url(first, provider)}", "--key-env", "WIRE_KEY")
            assert first.requests and all(
                KEY in (q.headers.get("authorization", "") + q.headers.get("x-api-key", ""))
                for q in first.requests
            ), "the first server got the key"
        seen, where = other.requests, other.base_url
    assert not any("authorization" in q.headers or "x-api-key" in q.headers for q in seen), (
        "the key reached the other server"
    )
    assert not seen, "the redirect was followed"
    one_line_failure(r, 1, "redirected to another server", where)
    conn = sqlite3.connect(study)
    assert conn.execute("SELECT count(*) FROM judge_calls WHERE status = 'ok'").fetchone() == (0,)
    conn.close()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_redirect_on_the_same_server_is_followed(provider: str, study: Path) -> None:
    redirected: list[str] = []

    def once(req: FakeRequest) -> Fault | None:
        if req.query == "moved=1":
            return None
        redirected.append(req.path)
        return Fault("redirect", server.base_url, query="moved=1")

    with WireServer(GOOD, fault=once) as server:
        r = judge(study, f"{provider}:m@{url(server, provider)}")
    assert r.exit_code == 0, r.output
    assert redirected


# --------------------------------------------------------------------------- resets


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reset_connection_is_called_a_reset(provider: str) -> None:
    from medjudge.judging.llm.providers import make_provider
    from medjudge.judging.llm.specs import JudgeSpec

    async def call(base_url: str) -> ProviderError:
        p = make_provider(JudgeSpec(provider, "m", base_url), max_retries=0, timeout=30)
        try:
            await p.complete(ChatRequest(system="", messages=[{"role": "user", "content": "x"}]))
        except ProviderError as exc:
            return exc
        finally:
            await p.aclose()
        raise AssertionError("the call succeeded")

    with WireServer(GOOD, fault=lambda req: Fault("reset")) as server:
        err = asyncio.run(call(url(server, provider)))
    assert "connection reset" in err.message, err.message
    assert "timed out" not in err.message and "timeout" not in err.message, err.message
    assert err.kind == "connection" and err.retryable
