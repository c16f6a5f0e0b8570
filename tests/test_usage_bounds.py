"""Token usage outside sane bounds is not trusted: a hostile server's −5 or 9e18 tokens
made the cost negative or overflowed `status` and `report`. Now such usage is recorded as
unknown (0 tokens, $0) and the run says so; the real SDKs talk to the fake server."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.provider_types import MAX_TOKENS_PER_CALL, read_usage

from .support.fakellm import FakeLLMServer, FakeRequest, Reply, default_responder
from .support.studies import small_study

cli = CliRunner()
KEY = "sk-test-usage-bounds"


def test_read_usage() -> None:
    assert read_usage([10, 5, None], 3) == (15, 3, False)
    assert read_usage([None], None) == (0, 0, True), "not reported: unknown (issue #43)"
    assert read_usage([10, None, None], None) == (0, 0, True)
    assert read_usage([None, 5], 3) == (0, 0, True)
    assert read_usage([10, None, None], 3) == (10, 3, False), "cache figures may be left out"
    assert read_usage([12.0], 4) == (12, 4, False)
    for bad in (-5, 9 * 10**18, MAX_TOKENS_PER_CALL + 1, True, "12", 1.5, float("nan")):
        assert read_usage([bad], 1) == (0, 0, True), bad
        assert read_usage([1], bad) == (0, 0, True), bad


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_out_of_bound_usage_is_recorded_as_unknown(provider: str, tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    small_study(path, pairwise=4, statements=0).close()
    seen: list[int] = []

    def hostile(request: FakeRequest) -> Reply:
        reply = default_responder(request)
        seen.append(1)
        bad = -5 if len(seen) % 2 else 9 * 10**18
        return dataclasses.replace(reply, input_tokens=bad, output_tokens=7)

    with FakeLLMServer(responder=hostile) as server:
        url = server.openai_url if provider == "openai" else server.anthropic_url
        r = cli.invoke(
            app,
            ["judge", str(path), "-j", f"{provider}:m@{url}", "--samples", "1"],
            env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
        )
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    assert f"{len(seen)} call(s) came back without usable token figures" in r.stdout
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT input_tokens, output_tokens, cost_usd FROM judge_calls").fetchall()
    conn.close()
    assert rows and all(row == (0, 0, 0.0) for row in rows), rows
    for command in (["status", str(path)], ["report", str(path), "-f", "json", "--n-boot", "100"]):
        done = cli.invoke(app, command)
        assert done.exit_code == 0, done.output
