"""A reply that stopped at ``--max-tokens`` is recorded and reported as cut off, not as the
parse error its truncated JSON gives ("no entry for 'correctness'"), for both providers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.fakebatch import FakeBatchServer
from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
CUT = "cut off at --max-tokens 64 (raise --max-tokens)"
STOPPED = {"openai": "length", "anthropic": "max_tokens"}
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


def truncated(provider: str):  # type: ignore[no-untyped-def]
    """A judge that runs out of tokens halfway through its JSON."""

    def respond(req: FakeRequest) -> Reply:
        whole = GOOD(req).text
        return Reply(whole[: len(whole) // 3], finish_reason=STOPPED[provider])

    return respond


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_reply_cut_off_at_max_tokens_is_said_so(tmp_path: Path, provider: str) -> None:
    study = tmp_path / "c.db"
    small_study(study, pairwise=2, statements=0).close()
    with FakeLLMServer(truncated(provider)) as server:
        url = server.openai_url if provider == "openai" else server.anthropic_url
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"{provider}:m@{url}", "--samples", "1"]
            + ["--max-tokens", "64"],
        )
        made = server.count()
    assert r.exit_code == 4, r.output  # missing verdicts
    assert made == 4, "not asked again: with the same limit it would be cut off again"
    assert f"4 failed sample(s) were {CUT}: a longer limit makes a new judge version" in r.stdout
    conn = sqlite3.connect(study)
    try:
        errors = {e for (e,) in conn.execute("SELECT error FROM judge_calls")}
    finally:
        conn.close()
    assert errors == {CUT}


def test_a_complete_reply_that_hit_the_limit_is_kept(tmp_path: Path) -> None:
    """The limit reached right at the end of a reply that parses: the verdict stands."""
    study = tmp_path / "c.db"
    small_study(study, pairwise=1, statements=0).close()

    def respond(req: FakeRequest) -> Reply:
        return Reply(GOOD(req).text, finish_reason="length")

    with FakeLLMServer(respond) as server:
        r = cli.invoke(
            app, ["judge", str(study), "-j", f"openai:m@{server.openai_url}", "--samples", "1"]
        )
    assert r.exit_code == 0, r.output
    assert "cut off" not in r.stdout


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_reply_cut_off_is_said_so(tmp_path: Path, provider: str) -> None:
    study = tmp_path / "b.db"
    small_study(study, pairwise=1, statements=0).close()
    with FakeBatchServer(truncated(provider)) as server:
        url = server.openai_url if provider == "openai" else server.anthropic_url
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"{provider}:m@{url}", "--samples", "1"]
            + ["--max-tokens", "64", "--batch", "--wait", "--poll-interval", "0.01"],
        )
    assert r.exit_code == 4, r.output
    assert f"2 failed sample(s) were {CUT}" in r.stdout
    conn = sqlite3.connect(study)
    try:
        errors = {e for (e,) in conn.execute("SELECT error FROM judge_calls")}
    finally:
        conn.close()
    assert errors == {CUT}
