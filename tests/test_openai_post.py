"""The judge's request path: SDK-built requests reused per call, spread over SDK clients.

The first call on a client goes through the SDK's own ``client.post``; later calls reuse the
request the SDK built (judging/llm/openai_post.py). Both paths must put the same bytes on the
wire and fail the same way, so each error scenario is run with the SDK's path only and on a
warmed-up provider (the reused request), against the fake server, and the outcomes compared.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from medjudge.judging.llm.client_spread import PER_CLIENT, ClientSpread
from medjudge.judging.llm.providers import ChatRequest, ProviderError
from medjudge.judging.llm.providers_anthropic import AnthropicProvider
from medjudge.judging.llm.providers_openai import OpenAIProvider

from .support.fakellm import FakeLLMServer, FakeRequest, Reply


class Backoff(TypedDict):
    backoff_base: float
    backoff_max: float


FAST = Backoff(backoff_base=0.01, backoff_max=1.0)
WARM_UP = "warm-up question"


def scripted(scenario: Callable[[int], Reply | str]) -> Callable[[FakeRequest], Reply | str]:
    """The warm-up call gets "ok"; the n-th request of the scenario gets scenario(n)."""
    seen = {"n": 0}

    def respond(req: FakeRequest) -> Reply | str:
        if WARM_UP in req.prompt_text:
            return "ok"
        n = seen["n"]
        seen["n"] += 1
        return scenario(n)

    return respond


async def outcome(provider: OpenAIProvider, warm: bool) -> tuple[str, Any]:
    """("ok", (text, attempts)) or ("error", (kind, status, retryable, attempts, message))."""
    try:
        if warm:
            await provider.complete(ChatRequest.user(WARM_UP))
        else:
            provider._clients.first._fast = False  # the SDK's own path, for every attempt
        try:
            result = await provider.complete(ChatRequest.user("Is aspirin an NSAID?"))
        except ProviderError as exc:
            got: tuple[str, Any] = (
                "error",
                (
                    exc.kind,
                    exc.status,
                    exc.retryable,
                    exc.attempts,
                    str(exc).replace(provider.name, "PROVIDER"),
                ),
            )
        else:
            got = "ok", (result.text, result.attempts)
        reused = provider._clients.first._template is not None
        assert reused == warm, "the warmed-up provider reused the request"
        return got
    finally:
        await provider.aclose()


_HELD: list[threading.Event] = []


def _held_then_in_time(n: int) -> Reply | str:
    """The first attempt's reply is held until the retry comes (the client gave up on it, at
    its timeout, however slow the machine); the retry is answered at once."""
    if n == 0:
        _HELD.append(threading.Event())
        return Reply.held(_HELD[-1])
    for held in _HELD:
        held.set()
    return "in time"


SCENARIOS: dict[str, tuple[Callable[[int], Reply | str], dict[str, Any]]] = {
    "429 then ok": (lambda n: Reply.rate_limited(0.05) if n == 0 else "fine", {}),
    "500 then ok": (lambda n: Reply.server_error() if n == 0 else "recovered", {}),
    "400 at once": (lambda n: Reply.error(400, "messages: field required"), {}),
    "401 key refused": (lambda n: Reply.error(401, "Incorrect API key provided"), {}),
    "404 model": (lambda n: Reply.error(404, "The model `x` does not exist"), {}),
    "503 exhausted": (lambda n: Reply.server_error(503, "overloaded"), {"max_retries": 2}),
    "timeout then ok": (_held_then_in_time, {"timeout": 2.0, "max_retries": 1}),
    "dropped then ok": (lambda n: Reply.disconnect() if n == 0 else "ok", {}),
    "bad json": (lambda n: Reply(body={"nope": True}), {}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_reused_request_fails_and_recovers_as_the_sdk_path_does(name: str) -> None:
    scenario, options = SCENARIOS[name]
    results = []
    for warm in (False, True):
        with FakeLLMServer(scripted(scenario)) as server:
            provider = OpenAIProvider("m", base_url=server.openai_url, **{**FAST, **options})
            results.append(asyncio.run(outcome(provider, warm)))
    cold, warm_result = results
    assert warm_result == cold


def test_reused_request_carries_the_sdk_headers_and_the_call_body() -> None:
    with FakeLLMServer() as server:
        provider = OpenAIProvider("gpt-test", base_url=server.openai_url, api_key="sk-test-1234")
        reqs = [
            ChatRequest(system="You judge.", messages=[{"role": "user", "content": f"q{i} é ✓"}])
            for i in range(3)
        ]

        async def go() -> None:
            try:
                for r in reqs:
                    await provider.complete(r)
            finally:
                await provider.aclose()

        asyncio.run(go())
        sdk_path, *reused = server.requests
        assert provider._clients.first._template is not None
        for sent, req in zip(server.requests, reqs, strict=True):
            assert sent.json == provider.request_body(req)
        expected = {k: v for k, v in sdk_path.headers.items() if k != "content-length"}
        for sent in reused:
            assert {k: v for k, v in sent.headers.items() if k != "content-length"} == expected
            body = json.dumps(sent.json, ensure_ascii=False, separators=(",", ":")).encode()
            assert int(sent.headers["content-length"]) == len(body)
        assert expected["authorization"] == "Bearer sk-test-1234"
        assert "x-stainless-lang" in expected  # the SDK's own headers


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_concurrent_calls_are_spread_over_clients(kind: str) -> None:
    n = 5 * PER_CLIENT
    with FakeLLMServer(latency=0.2) as server:
        provider = (
            OpenAIProvider("m", base_url=server.openai_url, max_retries=0)
            if kind == "openai"
            else AnthropicProvider("m", base_url=server.anthropic_url, max_retries=0)
        )

        async def go() -> list[str]:
            try:
                results = await asyncio.gather(
                    *(provider.complete(ChatRequest.user(f"q{i}")) for i in range(n))
                )
                return [r.text for r in results]
            finally:
                await provider.aclose()

        texts = asyncio.run(go())
        assert texts == ["OK"] * n and server.count() == n
        assert len(provider._clients.clients) == 5


class FakeClient:
    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


def test_client_spread_leases_the_first_client_with_room() -> None:
    made: list[FakeClient] = []

    def make() -> FakeClient:
        made.append(FakeClient())
        return made[-1]

    spread = ClientSpread(make, per_client=2)
    leases = [spread.lease() for _ in range(5)]
    got = [lease.__enter__() for lease in leases]
    assert got == [made[0], made[0], made[1], made[1], made[2]]
    leases[0].__exit__(None, None, None)  # the first client has room again
    with spread.lease() as again:
        assert again is made[0]
    for lease in leases[1:]:
        lease.__exit__(None, None, None)
    with spread.lease() as first:
        assert first is made[0]
    assert len(spread.clients) == 3
    asyncio.run(spread.aclose())
    assert all(c.closed for c in made)
