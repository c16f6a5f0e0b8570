"""Providers through the real openai/anthropic SDKs against the fake LLM server (no SDK mocks)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import pytest

from medjudge.judging.llm import retrying
from medjudge.judging.llm.providers import (
    ChatRequest,
    ChatResult,
    ProviderTimeoutError,
)
from medjudge.judging.llm.providers_anthropic import AnthropicProvider
from medjudge.judging.llm.providers_openai import OpenAIProvider

from .support.fakellm import FakeLLMServer, FakeRequest, Reply, default_responder
from .support.providers import (
    ANTHROPIC_PATH,
    FAST,
    KINDS,
    OPENAI_PATH,
    PLANTED,
    build,
    by_index,
    call,
    failing,
    fake_server,
    path_of,
    run,
)

fake = pytest.fixture(fake_server)

# --------------------------------------------------------------------------- success


def test_openai_success_reports_tokens_and_sends_request(fake: FakeLLMServer) -> None:
    fake.responder = lambda req: Reply("The answer is yes.", input_tokens=42, output_tokens=5)
    req = ChatRequest(
        system="You are a careful physician.",
        messages=[{"role": "user", "content": "Is aspirin an NSAID?"}],
        max_tokens=77,
        temperature=0.25,
        seed=7,
    )
    result = run(call(build("openai", fake, model="gpt-test"), req))

    assert result.text == "The answer is yes."
    assert (result.input_tokens, result.output_tokens) == (42, 5)
    assert result.attempts == 1
    assert result.model == "gpt-test"
    assert result.finish_reason == "stop"
    assert 0 < result.latency_s < 5
    (sent,) = fake.requests
    assert sent.path == OPENAI_PATH
    assert sent.json["model"] == "gpt-test"
    assert sent.json["messages"] == [
        {"role": "system", "content": "You are a careful physician."},
        {"role": "user", "content": "Is aspirin an NSAID?"},
    ]
    assert sent.json["max_tokens"] == 77  # compatible servers get the classic parameter
    assert sent.json["temperature"] == 0.25
    assert sent.json["seed"] == 7
    assert "response_format" not in sent.json
    assert sent.headers["authorization"] == "Bearer not-needed"  # placeholder for local servers


def test_anthropic_success_reports_tokens_and_sends_request(fake: FakeLLMServer) -> None:
    fake.responder = lambda req: Reply("Yes, it is.", input_tokens=30, output_tokens=4)
    req = ChatRequest(
        system="Be brief.",
        messages=[{"role": "user", "content": "Is aspirin an NSAID?"}],
        max_tokens=64,
        temperature=0.0,
    )
    provider = build("anthropic", fake, model="claude-test", api_key=PLANTED)
    assert provider.supports_json_schema is True  # through a forced tool
    result = run(call(provider, req))
    assert "tools" not in fake.requests[0].json  # no schema asked: no tool

    assert result.text == "Yes, it is."
    assert (result.input_tokens, result.output_tokens) == (30, 4)
    assert result.attempts == 1 and result.model == "claude-test"
    assert result.finish_reason == "end_turn"
    (sent,) = fake.requests
    assert sent.path == ANTHROPIC_PATH
    assert sent.json["system"] == "Be brief."
    assert sent.json["messages"] == [{"role": "user", "content": "Is aspirin an NSAID?"}]
    assert sent.json["max_tokens"] == 64
    assert sent.json["temperature"] == 0.0  # sent through extra_body (no SDK keyword in 2.x)
    assert "anthropic-version" in sent.headers
    assert PLANTED in sent.headers.get("authorization", "") + sent.headers.get("x-api-key", "")


def test_anthropic_input_tokens_include_cache(fake: FakeLLMServer) -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 3,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 10,
            "output_tokens": 2,
        },
    }
    fake.responder = lambda req: Reply(body=body)
    result = run(call(build("anthropic", fake)))
    assert result.text == "ab"
    assert (result.input_tokens, result.output_tokens) == (113, 2)


def test_openai_json_schema_is_sent_in_request_body(fake: FakeLLMServer) -> None:
    schema = {
        "type": "object",
        "properties": {"score": {"type": "integer", "minimum": 1}, "why": {"type": "string"}},
        "required": ["score", "why"],
    }
    req = ChatRequest.user("Rate it.", json_schema={"name": "rating", "schema": schema})
    provider = build("openai", fake)
    assert provider.supports_json_schema is True
    result = run(call(provider, req))

    (sent,) = fake.requests
    assert sent.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "rating", "schema": schema, "strict": False},
    }
    assert json.loads(result.text) == {"score": 1, "why": ""}  # fake's default follows the schema


def test_anthropic_does_not_send_response_format(fake: FakeLLMServer) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    run(
        call(
            build("anthropic", fake),
            ChatRequest.user("q", json_schema={"name": "x", "schema": schema}),
        )
    )
    (sent,) = fake.requests
    assert "response_format" not in sent.json and "output_config" not in sent.json


# --------------------------------------------------------------------------- retries


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ms", [False, True], ids=["retry-after", "retry-after-ms"])
def test_429_honours_retry_after_then_succeeds(fake: FakeLLMServer, kind: str, ms: bool) -> None:
    wait = 0.4
    fake.responder = by_index(Reply.rate_limited(wait, ms=ms), Reply("fine"))
    result = run(call(build(kind, fake)))

    assert result.text == "fine" and result.attempts == 2
    first, second = fake.requests
    assert fake.count(path_of(kind)) == 2
    gap = second.received_at - first.received_at
    assert gap >= wait  # backoff_base alone would be ~10 ms
    # latency is measured around the final attempt only: the whole call took the gap and more
    assert result.latency_s < gap


def test_retry_after_is_capped_by_backoff_max(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait the client chose is checked, not how long the test took (a loaded machine
    stretches both attempts)."""
    chosen: list[tuple[float | None, float]] = []
    real = retrying.backoff_delay

    def noted(*args: Any, **kwargs: Any) -> float:
        delay = real(*args, **kwargs)
        chosen.append((kwargs.get("retry_after"), delay))
        return delay

    monkeypatch.setattr(retrying, "backoff_delay", noted)
    fake.responder = by_index(Reply.rate_limited(30.0), Reply("fine"))
    result = run(call(build("openai", fake, backoff_max=0.2)))
    assert result.attempts == 2
    assert chosen == [(30.0, 0.2)]  # the server's 30 s, capped


@pytest.mark.parametrize("kind", KINDS)
def test_500_then_success(fake: FakeLLMServer, kind: str) -> None:
    fake.responder = by_index(Reply.server_error(), Reply("recovered"))
    result = run(call(build(kind, fake)))
    assert result.text == "recovered"
    assert result.attempts == 2 and fake.count(path_of(kind)) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_non_retryable_400_fails_at_once(fake: FakeLLMServer, kind: str) -> None:
    fake.responder = lambda req: Reply.error(400, "messages: field required")
    err = run(failing(build(kind, fake)))
    assert fake.count() == 1
    assert err.retryable is False and err.status == 400 and err.kind == "bad_request"
    assert err.attempts == 1
    assert "messages: field required" in str(err)


@pytest.mark.parametrize("kind", KINDS)
def test_retries_exhausted(fake: FakeLLMServer, kind: str) -> None:
    fake.responder = lambda req: Reply.server_error(503, "overloaded")
    err = run(failing(build(kind, fake, max_retries=2)))
    assert fake.count() == 3
    assert err.retryable is True and err.status == 503 and err.kind == "server"
    assert err.attempts == 3


@pytest.mark.parametrize("kind", KINDS)
def test_slow_reply_times_out(fake: FakeLLMServer, kind: str) -> None:
    """The reply is held until the client has given up: it can only fail by its timeout."""
    gave_up = threading.Event()
    fake.responder = lambda req: Reply.held(gave_up)
    try:
        err = run(failing(build(kind, fake, timeout=0.3, max_retries=0)))
    finally:
        gave_up.set()
    assert isinstance(err, ProviderTimeoutError)
    assert err.kind == "timeout" and err.retryable is True and err.status is None


@pytest.mark.parametrize("kind", KINDS)
def test_timeout_is_retried(fake: FakeLLMServer, kind: str) -> None:
    """The first reply is held until the retry arrives (the client gave up on it); the retry
    is answered at once, well within its 2 s."""
    gave_up = threading.Event()

    def respond(req: FakeRequest) -> Reply:
        if req.index == 0:
            return Reply.held(gave_up)
        gave_up.set()
        return Reply("in time")

    fake.responder = respond
    try:
        result = run(call(build(kind, fake, timeout=2.0, max_retries=1)))
    finally:
        gave_up.set()
    assert result.text == "in time" and result.attempts == 2


@pytest.mark.parametrize("kind", KINDS)
def test_dropped_connection_is_retried(fake: FakeLLMServer, kind: str) -> None:
    fake.responder = by_index(Reply.disconnect(), Reply("ok"))
    result = run(call(build(kind, fake)))
    assert result.text == "ok" and result.attempts == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_dropped_connection_is_named_a_connection_failure(fake: FakeLLMServer, kind: str) -> None:
    """A server that closes the connection is a failed connection, not a timeout (the OpenAI
    SDK's aiohttp transport reports it as a connect timeout: client_spread.failed_connection)."""
    fake.responder = by_index(Reply.disconnect())
    for _ in range(2):  # the first call takes the SDK's own path, later ones the reused request
        err = run(failing(build(kind, fake, max_retries=0)))
        assert err.kind == "connection" and err.retryable is True, err.message
        assert "closed the connection without a reply" in err.message, err.message


@pytest.mark.parametrize("kind", KINDS)
def test_judges_send_through_the_sdks_aiohttp_transport(fake: FakeLLMServer, kind: str) -> None:
    """Both SDKs' clients carry the SDK's aiohttp transport (``DefaultAioHttpClient``): the
    SDK's vendored copy, or the ``httpx_aiohttp`` package it used before vendoring it (the
    oldest SDKs pyproject.toml allows)."""
    provider = build(kind, fake)
    run(call(provider))
    client = provider._clients.first
    sdk_client = client.client if kind == "openai" else client
    transport = sdk_client._client._transport
    assert type(transport).__name__ == "AiohttpTransport", type(transport)
    module = type(transport).__module__
    assert module.startswith((f"{kind}._vendor.httpx_aiohttp", "httpx_aiohttp")), module


def test_failed_connection_tells_timeouts_from_refusals() -> None:
    import aiohttp

    try:  # the SDKs' HTTP library: httpx2 from openai 3, httpx before (as client_spread)
        import httpx2
    except ImportError:
        import httpx as httpx2  # type: ignore[no-redef]

    from medjudge.judging.llm.client_spread import failed_connection

    def chained(*errors: BaseException) -> BaseException:
        for outer, inner in zip(errors, errors[1:], strict=False):
            outer.__cause__ = inner
        return errors[0]

    refused = aiohttp.ClientConnectorError(
        aiohttp.client_reqrep.ConnectionKey("h", 1, False, True, None, None, None),
        OSError(111, "refused"),
    )
    gone = aiohttp.ServerDisconnectedError()
    slow = aiohttp.SocketTimeoutError("read")
    assert failed_connection(chained(httpx2.ConnectTimeout("x"), refused))
    assert failed_connection(chained(RuntimeError(), httpx2.ConnectTimeout("x"), gone))
    assert not failed_connection(chained(httpx2.ReadTimeout("x"), slow))
    assert not failed_connection(httpx2.ReadTimeout("x"))


@pytest.mark.parametrize("kind", KINDS)
def test_connection_refused_is_a_retryable_error(kind: str) -> None:
    with socket.socket() as sock:  # bind a free port and release it: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    gone_url = f"http://127.0.0.1:{port}"
    provider = (
        OpenAIProvider("m", base_url=gone_url + "/v1", max_retries=1, **FAST)
        if kind == "openai"
        else AnthropicProvider("m", base_url=gone_url, max_retries=1, **FAST)
    )
    err = run(failing(provider))
    assert err.kind == "connection" and err.retryable is True and err.attempts == 2


# --------------------------------------------------------------------------- parameter adaptation


def test_openai_drops_refused_temperature_and_renames_max_tokens(fake: FakeLLMServer) -> None:
    def respond(req: FakeRequest) -> Reply:
        if "temperature" in req.json:
            return Reply(
                body={
                    "error": {
                        "message": "Unsupported value: 'temperature' does not support 0.",
                        "type": "invalid_request_error",
                        "param": "temperature",
                        "code": "unsupported_value",
                    }
                },
                status=400,
            )
        if "max_tokens" in req.json:
            return Reply(
                body={
                    "error": {
                        "message": "Unsupported parameter: 'max_tokens' is not supported with "
                        "this model. Use 'max_completion_tokens' instead.",
                        "type": "invalid_request_error",
                        "param": "max_tokens",
                        "code": "unsupported_parameter",
                    }
                },
                status=400,
            )
        return Reply("adapted")

    fake.responder = respond

    async def scenario() -> tuple[ChatResult, ChatResult]:
        provider = build("openai", fake, max_retries=0)
        try:
            first = await provider.complete(ChatRequest.user("q", max_tokens=9))
            second = await provider.complete(ChatRequest.user("q", max_tokens=9))
        finally:
            await provider.aclose()
        return first, second

    first, second = run(scenario())
    assert first.text == "adapted" and first.attempts == 3
    assert second.attempts == 1  # learned: no more refused parameters
    last = fake.requests[-1].json
    assert "temperature" not in last and last["max_completion_tokens"] == 9


def test_anthropic_drops_refused_temperature(fake: FakeLLMServer) -> None:
    def respond(req: FakeRequest) -> Reply:
        if "temperature" in req.json:
            return Reply.error(400, "temperature: Extra inputs are not permitted")
        return Reply("ok")

    fake.responder = respond
    result = run(call(build("anthropic", fake, max_retries=0)))
    assert result.text == "ok" and result.attempts == 2


# --------------------------------------------------------------------------- concurrency


@pytest.mark.parametrize("kind", KINDS)
def test_64_concurrent_calls_run_in_parallel(kind: str) -> None:
    """The server answers nobody until all 64 requests are in (a barrier, not a clock): the
    calls finish only if the provider sends them at once; serialised, the barrier times out."""
    barrier = threading.Barrier(64, timeout=60)

    def together(request: FakeRequest) -> Reply:
        barrier.wait()
        return default_responder(request)

    with FakeLLMServer(together) as server:

        async def scenario() -> list[ChatResult]:
            provider = build(kind, server, max_retries=0, timeout=120)
            try:
                return await asyncio.gather(
                    *(provider.complete(ChatRequest.user(f"question {i}")) for i in range(64))
                )
            finally:
                await provider.aclose()

        results = run(scenario())
        assert len(results) == 64 and all(r.text == "OK" for r in results)
        assert server.count(path_of(kind)) == 64
    assert not barrier.broken


def test_max_concurrency_limits_in_flight_requests() -> None:
    """Six calls at most two at a time: the server counts the requests it holds at once."""
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}
    two_in = threading.Barrier(2, timeout=60)

    def counted(request: FakeRequest) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        try:
            two_in.wait()  # each pair meets here: a third request would have to be in flight
        finally:
            with lock:
                state["now"] -= 1
        return default_responder(request)

    with FakeLLMServer(counted) as server:

        async def scenario() -> None:
            provider = build("openai", server, max_concurrency=2)
            try:
                await asyncio.gather(*(provider.complete(ChatRequest.user("q")) for _ in range(6)))
            finally:
                await provider.aclose()

        run(scenario())
        assert server.count() == 6
    assert state["peak"] == 2


# --------------------------------------------------------------------------- the fake itself


def test_fake_server_models_and_unknown_paths(fake: FakeLLMServer) -> None:
    import urllib.error
    import urllib.request

    with urllib.request.urlopen(fake.openai_url + "/models") as resp:
        assert json.load(resp)["data"][0]["id"] == "fake-model"
    req = urllib.request.Request(fake.openai_url + "/models", headers={"anthropic-version": "x"})
    with urllib.request.urlopen(req) as resp:
        assert json.load(resp)["data"][0]["type"] == "model"
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(fake.base_url + "/nope")
    assert info.value.code == 404
    info.value.close()
    assert fake.count() == 3 and fake.count("/v1/models") == 2
