"""The providers' tests' shared parts: a provider of each protocol pointed at the fake server
with a fast backoff, a call that closes it, and a responder scripted by request index."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypedDict, TypeVar

import pytest

from medjudge.judging.llm.providers import ChatRequest, ChatResult, Provider, ProviderError
from medjudge.judging.llm.providers_anthropic import AnthropicProvider
from medjudge.judging.llm.providers_openai import OpenAIProvider

from .fakellm import FakeLLMServer, FakeRequest, Reply

T = TypeVar("T")
PLANTED = "sk-test-PLANTED-123"
OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"
KINDS = ("openai", "anthropic")


class Backoff(TypedDict):
    backoff_base: float
    backoff_max: float


FAST = Backoff(backoff_base=0.01, backoff_max=2.0)


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


def fake_server() -> Iterator[FakeLLMServer]:
    """The fake server, for a test module's ``fake`` fixture (``fake = pytest.fixture(...)``)."""
    with FakeLLMServer() as server:
        yield server


def build(kind: str, fake: FakeLLMServer, **kwargs: Any) -> OpenAIProvider | AnthropicProvider:
    """A provider of ``kind`` pointed at the fake server (fast backoff unless overridden)."""
    options = {**FAST, **kwargs}
    options.setdefault("model", "fake-model")
    model = options.pop("model")
    if kind == "openai":
        return OpenAIProvider(model, base_url=fake.openai_url, **options)
    return AnthropicProvider(model, base_url=fake.anthropic_url, **options)


def path_of(kind: str) -> str:
    return OPENAI_PATH if kind == "openai" else ANTHROPIC_PATH


async def call(provider: Provider, req: ChatRequest | None = None) -> ChatResult:
    try:
        return await provider.complete(req or ChatRequest.user("Is aspirin an NSAID?"))
    finally:
        await provider.aclose()


async def failing(provider: Provider, req: ChatRequest | None = None) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await call(provider, req)
    return info.value


def by_index(*replies: Reply | str) -> Callable[[FakeRequest], Reply | str]:
    """Responder answering request i with replies[i] (the last one repeats)."""

    def respond(req: FakeRequest) -> Reply | str:
        return replies[min(req.index, len(replies) - 1)]

    return respond
