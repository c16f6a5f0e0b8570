"""Every judge failure is said, with the right exit code: an unreachable server, a 401, a
wrong model name, a server where every call fails — each stops early, names the cause (status,
provider message, URL, never the key), exits non-zero and leaves no run marked "running"."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app

from .support.fakellm import FakeLLMServer, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
KEY = "sk-test-9f8e7d6c5b4a"


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    small_study(path, pairwise=20, statements=0).close()
    return path


def runs(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT status FROM judge_runs ORDER BY id")]
    finally:
        conn.close()


def judge(study: Path, spec: str, *extra: str, key: str = KEY) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", spec, "--samples", "1", "--concurrency", "2", *extra],
        env={"OPENAI_API_KEY": key, "ANTHROPIC_API_KEY": key},
    )


def _check_failed(r: object, study: Path, *words: str) -> str:
    assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
    err = r.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in r.output and KEY not in r.output  # type: ignore[attr-defined]
    line = err.strip().splitlines()[-1]
    assert line.startswith("error: the judge run failed: "), err
    for w in words:
        assert w in line, line
    assert runs(study)[-1] == "failed" and "running" not in runs(study)
    result: str = line
    return result


@pytest.mark.slow  # five calls, each with its retries and back-off
def test_unreachable_server(study: Path) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    r = judge(study, f"openai:m@http://127.0.0.1:{port}/v1", "--timeout", "5")
    _check_failed(r, study, "cannot connect", f"127.0.0.1:{port}", "5 calls in a row")


@pytest.mark.parametrize(
    ("status", "message", "words"),
    [
        (401, "Incorrect API key provided", ("HTTP 401", "Incorrect API key", "first call")),
        (403, "Your account is not allowed", ("HTTP 403",)),
        (404, "The model `gpt-9` does not exist", ("HTTP 404", "gpt-9")),
    ],
)
def test_fatal_errors_stop_at_once(
    study: Path, status: int, message: str, words: tuple[str, ...]
) -> None:
    with FakeLLMServer(lambda req: Reply.error(status, message)) as server:
        r = judge(study, f"openai:gpt-9@{server.openai_url}")
        assert server.count() <= 2, "stopped at the first failures (2 in flight)"
        _check_failed(r, study, server.openai_url, *words)


@pytest.mark.slow
def test_a_server_where_every_call_fails(study: Path) -> None:
    with FakeLLMServer(lambda req: Reply.error(500, "upstream exploded")) as server:
        r = judge(study, f"anthropic:m@{server.anthropic_url}")
        _check_failed(r, study, "HTTP 500", "upstream exploded", "5 calls in a row")
        # 5 failing calls (+ the ones in flight), each with its retries: not 40 calls' worth
        assert server.count() <= (5 + 2) * 5


def test_occasional_errors_do_not_stop_a_run(study: Path, tmp_path: Path) -> None:
    good = routing(pairwise_responder(prefer_marked("Answer A")))
    n = {"i": 0}

    def flaky(req):  # type: ignore[no-untyped-def]
        n["i"] += 1
        return Reply.error(400, "bad luck") if n["i"] % 3 == 0 else good(req)

    with FakeLLMServer(flaky) as server:
        r = judge(study, f"openai:m@{server.openai_url}")
    # The run goes on to the end, but the units of the failed calls have no verdict: exit 4,
    # counted (it used to exit 0 with "missing: 0").
    assert r.exit_code == 4, r.output
    assert "not judged: " in r.stdout and "bad luck" in r.stdout
    assert runs(study)[-1] == "done"


def test_max_cost_exits_3_and_missing_verdicts_exit_4(study: Path) -> None:
    with FakeLLMServer(routing(pairwise_responder(prefer_marked("Answer A")))) as server:
        r = judge(
            study, f"openai:m@{server.openai_url}", "--price", "1000,1000", "--max-cost", "0.5"
        )
        assert r.exit_code == 3, r.output
        assert "stopped: --max-cost 0.5 reached" in r.stdout
    with FakeLLMServer(lambda req: Reply("I will not answer in JSON.")) as server:
        r = judge(study, f"openai:other@{server.openai_url}")
        assert r.exit_code == 4, r.output
        assert "have no verdict: no sample of theirs gave a usable reply" in r.stdout


def test_help_documents_the_exit_codes() -> None:
    r = cli.invoke(app, ["judge", "--help"])
    assert "3 stopped at --max-cost" in " ".join(r.stdout.split())


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("sk-abc\u00a0def1234567", ("non-ASCII character at position 7", "NO-BREAK SPACE")),
        ("sk-\u201cabcdef1234567\u201d", ("position 4", "LEFT DOUBLE QUOTATION MARK")),
        ("sk-abcdef1234567\n", ("space or control character at position 17",)),
    ],
)
def test_a_key_http_cannot_carry_is_named_not_a_traceback(
    study: Path, key: str, words: tuple[str, ...]
) -> None:
    with FakeLLMServer() as server:
        r = judge(study, "openai:gpt-4o", key=key)
        assert server.count() == 0
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert "OPENAI_API_KEY" in r.stderr and all(w in r.stderr for w in words), r.stderr
    assert key.strip() not in r.output and "abcdef1234567" not in r.output
    assert "running" not in runs(study)


@pytest.mark.parametrize(
    "spec", ["openai:gpt-4o@http://127.0.0.1:", "openai:m@notaurl", "anthropic:m@localhost:8000"]
)
def test_a_malformed_judge_url_is_a_usage_error(study: Path, spec: str) -> None:
    r = judge(study, spec)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "Invalid value for --judge: malformed server URL" in r.output
    assert runs(study) == []


def test_model_versions_after_at_are_model_names(study: Path) -> None:
    r = judge(study, "anthropic:claude-3-5-sonnet@20240620", "--dry-run")
    assert r.exit_code == 0, r.output


def test_a_reply_echoing_the_key_is_stored_redacted(study: Path) -> None:
    good = routing(pairwise_responder(prefer_marked("Answer A")))

    def echo(req):  # type: ignore[no-untyped-def]
        reply = good(req)
        key = req.headers.get("authorization", "").removeprefix("Bearer ")
        body = reply.text.replace('"reason": "', f'"reason": "your key {key} ', 1)
        return Reply(body)

    with FakeLLMServer(echo) as server:
        # The key is named for the @URL server: the default key never goes there.
        r = judge(study, f"openai:m@{server.openai_url}", "--key-env", "OPENAI_API_KEY")
    assert r.exit_code == 0, r.output
    wal = Path(str(study) + "-wal")
    raw = study.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert KEY.encode() not in raw
    conn = sqlite3.connect(study)
    texts = [r[0] for r in conn.execute("SELECT raw FROM judge_calls")]
    conn.close()
    assert texts and all("your key ***" in t for t in texts)


def test_retry_failed_asks_only_the_failed_samples_again(study: Path) -> None:
    good = routing(pairwise_responder(prefer_marked("Answer A")))
    seen: dict[str, int] = {}

    def first_garbled(req):  # type: ignore[no-untyped-def]
        ident = req.prompt_text
        seen[ident] = seen.get(ident, 0) + 1
        item = int(ident.split("Question ")[1].split("?")[0])
        if item % 4 == 0 and seen[ident] <= 2:  # unparseable, also on the parse retry
            return Reply("Sorry, no JSON today.")
        return good(req)

    def ledger() -> tuple[int, float, int]:
        conn = sqlite3.connect(study)
        try:
            failed, cost, attempts = conn.execute(
                "SELECT sum(status = 'failed'), sum(cost_usd), sum(attempts) FROM judge_calls"
            ).fetchone()
            return failed, cost, attempts
        finally:
            conn.close()

    with FakeLLMServer(first_garbled) as server:
        spec = f"openai:m@{server.openai_url}"
        r = judge(study, spec, "--price", "1,1")
        assert r.exit_code == 4, r.output  # units of items 0, 4, 8, … have no verdict
        failed, cost, attempts = ledger()
        assert failed == 5 * 2  # items 0, 4, 8, 12, 16 × AB and BA
        server.clear()
        r = judge(study, spec, "--price", "1,1")
        assert r.exit_code == 4 and server.count() == 0, "failed samples are cached by default"
        r = judge(study, spec, "--price", "1,1", "--retry-failed")
        assert r.exit_code == 0, r.output
        assert server.count() == 10, "only the failed samples were asked again"
        failed2, cost2, attempts2 = ledger()
        assert failed2 == 0 and cost2 > cost and attempts2 == attempts + 10
        server.clear()
        r = judge(study, spec, "--price", "1,1", "--retry-failed")
        assert r.exit_code == 0 and server.count() == 0, "nothing left to ask"
    conn = sqlite3.connect(study)
    missing = conn.execute(
        "SELECT count(*) FROM verdicts v WHERE v.id = (SELECT max(id) FROM verdicts v2 "
        "WHERE v2.unit_id = v.unit_id AND v2.rater_id = v.rater_id) AND v.status = 'missing'"
    ).fetchone()[0]
    conn.close()
    assert missing == 0, "the re-resolved verdicts were appended and are the current ones"


def test_a_fatal_error_stops_a_run_sharded_over_workers(tmp_path: Path) -> None:
    """Workers send the parent each call's outcome with its error, so the failure watch stops
    a sharded run on a 401 exactly as it stops one in a single process (it used to get rows
    without the error and fail on them)."""
    import asyncio

    from medjudge.judging.llm.key_routing import KeyRing, NamedKey
    from medjudge.judging.llm.runner import RunOptions, run_judges
    from medjudge.judging.llm.specs import parse_judge_spec
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.store.study import Study

    path = tmp_path / "w.db"
    small_study(path, pairwise=20, statements=0).close()
    with FakeLLMServer(lambda req: Reply.error(401, "Incorrect API key provided")) as server:
        judge_config = JudgeConfig(parse_judge_spec(f"openai:m@{server.openai_url}"), samples=1)
        with Study.open(path) as s:
            keys = KeyRing(run_key=NamedKey("KEY", "--key-env", KEY))
            options = RunOptions(concurrency=2, workers=2, keys=keys, actor="t")
            summary = asyncio.run(run_judges(s, [judge_config], options))
        assert server.count() <= 8, "stopped at the first failures of each worker"
    assert summary.failure is not None and "HTTP 401" in summary.failure
    assert "Incorrect API key" in summary.failure and KEY not in summary.failure
    assert runs(path)[-1] == "failed"


def test_a_404_is_said_once_and_a_refusal_says_no_key_was_sent(tmp_path: Path) -> None:
    """An unknown model (HTTP 404) stopped the run, and its reason was printed twice (the
    "not judged" line and the error); an @URL server refusing calls that carried no key said
    only "HTTP 401", as if a wrong key had been sent."""
    from typer.testing import CliRunner

    from medjudge.cli import app

    from .support.fakellm import FakeLLMServer, Reply
    from .support.studies import small_study

    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    cli = CliRunner()
    with FakeLLMServer(lambda req: Reply("The model `nope` does not exist", status=404)) as s:
        r = cli.invoke(app, ["judge", str(path), "-j", f"openai:nope@{s.openai_url}"])
    assert r.exit_code == 1, r.output
    assert r.output.count("The model `nope` does not exist") == 1, r.output
    assert "not judged: 12 (why: the error below)" in r.stdout
    with FakeLLMServer(lambda req: Reply("Incorrect API key provided", status=401)) as s:
        r = cli.invoke(app, ["judge", str(path), "-j", f"openai:nope@{s.openai_url}"])
    assert r.exit_code == 1, r.output
    assert "HTTP 401: Incorrect API key provided (no key was sent: none is named for this URL" in (
        r.stderr
    )
