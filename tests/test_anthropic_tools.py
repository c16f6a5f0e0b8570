"""Anthropic structured output: a request with a JSON schema asks for one tool whose
input schema is the verdict's, forced by ``tool_choice`` (as the OpenAI path sends
``response_format``), and the reply is the ``tool_use`` block's input. Text replies (a
compatible server that ignores tools, old replies) still parse; a server that refuses tools is
asked without them."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.provider_types import ChatRequest
from medjudge.judging.llm.providers_anthropic import AnthropicProvider

from .support.fakebatch import FakeBatchServer
from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
SCHEMA = {
    "name": "verdict",
    "schema": {
        "type": "object",
        "properties": {"label": {"enum": ["entailed", "neutral"]}, "reason": {"type": "string"}},
        "required": ["label", "reason"],
    },
}


def ask(server: FakeLLMServer, req: ChatRequest) -> str:
    async def go() -> str:
        provider = AnthropicProvider("m", base_url=server.anthropic_url, backoff_base=0.001)
        try:
            return (await provider.complete(req)).text
        finally:
            await provider.aclose()

    return asyncio.run(go())


def request() -> ChatRequest:
    return ChatRequest.user("Entailed?", system="Answer in JSON.", json_schema=SCHEMA)


def test_the_schema_goes_as_a_forced_tool_and_its_input_is_the_reply() -> None:
    answer = {"label": "entailed", "reason": "said so"}
    with FakeLLMServer(lambda req: Reply(json.dumps(answer))) as server:
        text = ask(server, request())
        body = server.requests[0].json
    assert body["tools"] == [
        {
            "name": "verdict",
            "description": body["tools"][0]["description"],
            "input_schema": SCHEMA["schema"],
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "verdict"}
    assert json.loads(text) == answer


def test_a_server_that_ignores_the_tool_is_read_from_its_text() -> None:
    def text_only(req: FakeRequest) -> Reply:
        return Reply(body={
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": '{"label": "neutral", "reason": "r"}'}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 3},
        })  # fmt: skip

    with FakeLLMServer(text_only) as server:
        assert json.loads(ask(server, request())) == {"label": "neutral", "reason": "r"}


def test_a_server_that_refuses_tools_is_asked_without_them() -> None:
    def no_tools(req: FakeRequest) -> Reply:
        if "tools" in req.json:
            return Reply.error(400, "tools: this server does not support tool use")
        return Reply('{"label": "neutral", "reason": "r"}')

    with FakeLLMServer(no_tools) as server:
        text = ask(server, request())
        sent = [("tools" in r.json) for r in server.requests]
    assert sent == [True, False] and json.loads(text)["label"] == "neutral"


def test_an_anthropic_judge_answers_through_the_tool(tmp_path: Path) -> None:
    """End to end: every request forces the verdict tool; the stored reply is its input."""
    study = tmp_path / "a.db"
    small_study(study, pairwise=2, statements=1).close()
    good = routing(pairwise_responder(prefer_marked("Answer A")))
    with FakeLLMServer(good) as server:
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"anthropic:m@{server.anthropic_url}", "--samples", "1"],
        )
        sent = server.requests
    assert r.exit_code == 0, r.output
    assert sent and all(req.forced_tool is not None for req in sent)
    conn = sqlite3.connect(study)
    try:
        rows = conn.execute("SELECT status, raw FROM judge_calls").fetchall()
    finally:
        conn.close()
    assert rows and all(status == "ok" and raw.startswith("{") for status, raw in rows)


def test_a_model_that_only_follows_the_schema_gets_verdicts(tmp_path: Path) -> None:
    """The fake's default judge answers nothing but an instance of the schema it is given, as
    small models do when the server constrains them: through the tool, every reply parses."""
    study = tmp_path / "s.db"
    small_study(study, pairwise=1, statements=1).close()
    with FakeLLMServer() as server:
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"anthropic:m@{server.anthropic_url}", "--samples", "1"],
        )
    assert r.exit_code == 0, r.output
    assert "missing: 0" in r.stdout


def test_anthropic_batches_ask_for_the_tool_too(tmp_path: Path) -> None:
    study = tmp_path / "b.db"
    small_study(study, pairwise=1, statements=0).close()
    good = routing(pairwise_responder(prefer_marked("Answer A")))
    with FakeBatchServer(good) as server:
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"anthropic:m@{server.anthropic_url}", "--samples", "1"]
            + ["--batch", "--wait", "--poll-interval", "0.01"],
        )
        sent = server.batch_requests()
    assert r.exit_code == 0, r.output
    assert sent and all(req["params"]["tool_choice"]["type"] == "tool" for req in sent)
    assert "missing: 0" in r.stdout
