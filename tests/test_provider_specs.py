"""The providers' pure parts, without a server: Retry-After and backoff, the chat request's
checks, and judge specs (``openai:gpt-4o``, ``local:…``, ``…@URL``) parsed and refused."""

from __future__ import annotations

import time

import pytest

from medjudge.judging.llm.providers import ChatRequest, backoff_delay, parse_retry_after
from medjudge.judging.llm.specs import JudgeSpec, SpecError, parse_judge_spec

# --------------------------------------------------------------------------- retry helpers


def test_parse_retry_after() -> None:
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= (parse_retry_after({"Retry-After": date}) or 0) <= 31


def test_backoff_delay() -> None:
    assert backoff_delay(0, base=0.5, cap=30, rng=lambda: 0.0) == 0.25
    assert backoff_delay(3, base=0.5, cap=30, rng=lambda: 0.999) == pytest.approx(4.0, rel=0.01)
    assert backoff_delay(50, base=0.5, cap=30, rng=lambda: 0.999) <= 30
    assert backoff_delay(0, base=0.5, cap=30, retry_after=2.0, rng=lambda: 0.0) == 2.0
    assert 2.0 <= backoff_delay(0, base=0.5, cap=30, retry_after=2.0) <= 2.2
    assert backoff_delay(0, base=0.5, cap=5, retry_after=60.0) == 5


def test_chat_request_validation() -> None:
    with pytest.raises(ValueError):
        ChatRequest(messages=[])
    with pytest.raises(ValueError):
        ChatRequest(messages=[{"role": "robot", "content": "x"}])
    with pytest.raises(ValueError):
        ChatRequest.user("x", max_tokens=0)
    with pytest.raises(ValueError):
        ChatRequest.user("x", json_schema={"name": "has space", "schema": {}})
    with pytest.raises(ValueError):
        ChatRequest.user("x", json_schema={"name": "ok"})


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    ("text", "expected", "name"),
    [
        ("openai:gpt-4o", JudgeSpec("openai", "gpt-4o"), "openai:gpt-4o"),
        (
            "anthropic:claude-3-5-sonnet-20241022",
            JudgeSpec("anthropic", "claude-3-5-sonnet-20241022"),
            "anthropic:claude-3-5-sonnet-20241022",
        ),
        (
            "openai:llama3@http://127.0.0.1:8000/v1",
            JudgeSpec("openai", "llama3", base_url="http://127.0.0.1:8000/v1"),
            "openai:llama3@http://127.0.0.1:8000/v1",
        ),
        (
            "  OpenAI:llama3:8b@HTTP://LocalHost:8000/v1/  ",
            JudgeSpec("openai", "llama3:8b", base_url="http://localhost:8000/v1"),
            "openai:llama3:8b@http://localhost:8000/v1",
        ),
        (
            "anthropic:claude-x@http://host:9000",
            JudgeSpec("anthropic", "claude-x", base_url="http://host:9000"),
            "anthropic:claude-x@http://host:9000",
        ),
        (
            "anthropic:claude-3-5-sonnet@20240620",
            JudgeSpec("anthropic", "claude-3-5-sonnet@20240620"),
            "anthropic:claude-3-5-sonnet@20240620",
        ),
        (
            "openai:m@https://[::1]:8443/v1",
            JudgeSpec("openai", "m", base_url="https://[::1]:8443/v1"),
            "openai:m@https://[::1]:8443/v1",
        ),
        (
            "local:/models/SmolLM2-135M.Q4_1.gguf",
            JudgeSpec("local", "SmolLM2-135M.Q4_1", path="/models/SmolLM2-135M.Q4_1.gguf"),
            "local:/models/SmolLM2-135M.Q4_1.gguf",
        ),
        (
            "local:models/tiny.gguf",
            JudgeSpec("local", "tiny", path="models/tiny.gguf"),
            "local:models/tiny.gguf",
        ),
        (
            "local:/data/my model.GGUF",
            JudgeSpec("local", "my model", path="/data/my model.GGUF"),
            "local:/data/my model.GGUF",
        ),
        ("local:smollm2", JudgeSpec("local", "smollm2"), "local:smollm2"),
    ],
)
def test_parse_valid_specs(text: str, expected: JudgeSpec, name: str) -> None:
    spec = parse_judge_spec(text)
    assert spec == expected
    assert spec.name == name == str(spec)
    assert parse_judge_spec(spec.name) == spec  # round trip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("gpt-4o", "no provider"),
        ("mistral:large", "unknown provider"),
        ("openai:", "empty model"),
        ("openai:   ", "empty model"),
        ("openai:@http://127.0.0.1:8000/v1", "empty model"),
        ("openai:llama3@", "empty server URL"),
        ("openai:llama3@localhost:8000", "http:// or https://"),
        ("openai:llama3@127.0.0.1:8000/v1", "http:// or https://"),
        ("openai:llama3@ftp://host/v1", "http:// or https://"),
        ("openai:llama3@http://", "no host"),
        ("openai:llama3@http://host:99999/v1", "malformed"),
        ("openai:llama3@http://host:port/v1", "malformed"),
        ("openai:llama3@http://user:pw@host/v1", "credentials"),
        ("openai:llama3@http://host/v1?key=1", "query"),
        ("openai:two words", "whitespace"),
        ("local:", "empty local"),
        ("local:/models/model.bin", ".gguf"),
        ("local:mistral", ".gguf"),
    ],
)
def test_parse_invalid_specs(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_judge_spec(text)


def test_spec_error_is_value_error_and_judgespec_validates() -> None:
    assert issubclass(SpecError, ValueError)
    with pytest.raises(SpecError):
        JudgeSpec("cohere", "x")
    with pytest.raises(SpecError):
        JudgeSpec("openai", "")
    with pytest.raises(SpecError):
        JudgeSpec("local", "wrong", path="/m/right.gguf")
    with pytest.raises(SpecError):
        JudgeSpec("openai", "m", path="/m/x.gguf")
    with pytest.raises(AttributeError):
        parse_judge_spec("openai:gpt-4o").model = "other"  # type: ignore[misc]
