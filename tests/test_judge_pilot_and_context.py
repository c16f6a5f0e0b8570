"""Pilots and requests too long for the context.

- `judge --items ID,…` and `judge --first N` judge only those items (the server is asked about
  nothing else); an unknown id is named.
- A request the server rejects as too long for the model's context (OpenAI's
  `context_length_exceeded`, Anthropic's "prompt is too long") is a distinct error: not retried
  within the run, not asked again by later runs (only `--retry-failed` does), counted as "not
  judged (too long for the context)" in the run's summary, `status` and the report, and it
  does not trip the "calls keep failing" stop.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
KEY = "sk-test-pilot"


def judge(path: Path, spec: str, *extra: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(path), "-j", spec, "--samples", "1", "--concurrency", "2", *extra],
        env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
    )


def judged_items(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT DISTINCT i.ext_id FROM judge_calls c JOIN items i ON i.id = c.item_id "
            "ORDER BY i.id"
        )
        return [r[0] for r in rows]
    finally:
        conn.close()


def test_judge_items_and_first(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    small_study(path, pairwise=6, statements=0).close()
    with FakeLLMServer(GOOD) as server:
        r = judge(path, f"openai:m@{server.openai_url}", "--items", "p4,p1")
        assert r.exit_code == 0, r.output
        assert judged_items(path) == ["p1", "p4"]
        asked = server.count()
        r = judge(path, f"openai:m@{server.openai_url}", "--first", "3")
        assert r.exit_code == 0, r.output
        assert judged_items(path) == ["p0", "p1", "p2", "p4"]
        assert server.count() == asked + 4, "p0 and p2 asked, p1 cached (2 orders each)"
        r = judge(path, f"openai:m@{server.openai_url}", "--items", "p1,nope")
        assert r.exit_code == 1 and "--items: no item 'nope' in this study" in r.stderr


TOO_LONG: dict[str, dict[str, Any]] = {
    "openai": {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your "
            "messages resulted in 9001 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    },
    "anthropic": {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 205000 tokens > 200000 maximum",
        },
    },
}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_request_too_long_for_the_context(provider: str, tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    small_study(path, pairwise=8, statements=0).close()
    long_ones = ("Question 2?", "Question 3?", "Question 4?", "Question 5?", "Question 6?")

    def responder(req: FakeRequest) -> Reply:
        if any(q in req.prompt_text for q in long_ones):
            return Reply(status=400, body=TOO_LONG[provider])
        return GOOD(req)

    with FakeLLMServer(responder) as server:
        url = server.openai_url if provider == "openai" else server.anthropic_url
        spec = f"{provider}:m@{url}"
        r = judge(path, spec)
        # 10 rejected calls in a row would have stopped the run ("5 calls in a row failed
        # alike"); an item's length is not the server's state.
        assert r.exit_code == 4, r.output
        assert server.count() == 16, "each call asked once: the rejection is not retried"
        assert "not judged: " in r.stdout and "× too long for the context)" in r.stdout
        status = json.loads(cli.invoke(app, ["status", str(path), "--json"]).stdout)
        (j,) = [j for j in status["judges"] if j["name"].startswith(provider)]
        assert j["not_judged_why"] == {"too long for the context": len(long_ones)}
        report = json.loads(
            cli.invoke(app, ["report", str(path), "-f", "json", "--n-boot", "100"]).stdout
        )
        (v,) = [v for v in report["judges"]["versions"] if v["name"].startswith(provider)]
        assert v["not_judged_why"] == {"too long for the context": len(long_ones)}
        r = judge(path, spec)
        assert server.count() == 16, "a later run does not ask them again"
        r = judge(path, spec, "--retry-failed")
        assert server.count() == 16 + 2 * len(long_ones), "--retry-failed asks them again"


def test_a_judge_version_appears_once_a_call_is_stored(tmp_path: Path) -> None:
    """A run that fails before its first call (no API key) leaves no judge in `status` or
    the report; the first stored call makes it appear."""
    path = tmp_path / "v.db"
    small_study(path, pairwise=2, statements=0).close()
    r = cli.invoke(app, ["judge", str(path), "-j", "openai:gpt-4o", "--samples", "1"], env={})
    assert r.exit_code != 0 and "no API key" in r.output
    status = json.loads(cli.invoke(app, ["status", str(path), "--json"]).stdout)
    assert status["judges"] == []
    report = json.loads(
        cli.invoke(app, ["report", str(path), "-f", "json", "--n-boot", "100"]).stdout
    )
    assert report["judges"]["versions"] == []
    with FakeLLMServer(GOOD) as server:
        url = server.openai_url
        assert judge(path, f"openai:gpt-4o@{url}").exit_code == 0
    status = json.loads(cli.invoke(app, ["status", str(path), "--json"]).stdout)
    assert [j["name"] for j in status["judges"]] == [f"openai:gpt-4o@{url}"]
