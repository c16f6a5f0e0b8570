"""The retry policy and the base class of the SDK-backed providers.

Retries: the SDKs' own retries are disabled (``max_retries=0``); :class:`RetryingProvider` runs
the loop itself so that attempts are counted and the policy is ours: 408/409/429/5xx, timeouts
and connection errors are retried with exponential backoff and jitter, honouring
``retry-after-ms`` / ``Retry-After`` (capped by ``backoff_max``); other 4xx fail at once.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from medjudge.judging.llm.adaptive import AdaptiveLimit, overload
from medjudge.judging.llm.http_limits import wire_failure
from medjudge.judging.llm.provider_types import (
    RETRYABLE_STATUSES,
    ChatRequest,
    ChatResult,
    ProviderConfigError,
    ProviderError,
    ProviderTimeoutError,
    redact,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

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


_TOO_LONG = re.compile(
    r"context[ _]length|context window|maximum context|prompt is too long|too many tokens|"
    r"input is too long|exceeds the (model'?s )?(maximum|context)|reduce the length",
    re.IGNORECASE,
)


def too_long_for_context(status: int, body: object, detail: str | None) -> bool:
    """Whether an HTTP error says the request does not fit the model's context window
    (OpenAI's ``context_length_exceeded`` code, Anthropic's "prompt is too long", vLLM's and
    llama.cpp's wordings): the same request fails the same way every time."""
    if status not in (400, 413, 422):
        return False
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    if isinstance(inner, Mapping) and inner.get("code") == "context_length_exceeded":
        return True
    return bool(detail and _TOO_LONG.search(detail))


def error_param_from_body(body: object) -> str | None:
    """Extract OpenAI's ``error.param`` from a decoded error body."""
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            param = inner.get("param")
            if isinstance(param, str):
                return param
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
        adaptive: AdaptiveLimit | None = None,
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
        self.adaptive = adaptive
        """Bounds the attempts in flight, lower while the server is overloaded (each attempt
        takes a slot; the waits between retries do not hold one)."""
        # Parameters this model refused (learned from 400s): never sent again.
        self._dropped_params: set[str] = set()
        self.sdk_requests = 0
        """Attempts made by :meth:`call_sdk` (batch API requests)."""

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

    def _on_the_wire(self, exc: Exception) -> ProviderError | None:
        """A failure on the wire, named the same for every SDK and transport (a refused reply,
        JSON too deep, not HTTP, a reset: :func:`~.http_limits.wire_failure`), else ``None``."""
        named = wire_failure(exc, getattr(self, "endpoint", None) or self.name)
        if named is None:
            return None
        message, kind, retryable = named
        return self._error(message, kind=kind, retryable=retryable)

    def _status_error(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str] | None,
    ) -> ProviderError:
        detail = error_message_from_body(body)
        text = f"HTTP {status}" + (f": {detail}" if detail else "")
        if status in (401, 403) and getattr(self, "sends_no_key", False):
            text += " (no key was sent: none is named for this URL; --key-env NAME sends one)"
        if too_long_for_context(status, body, detail):  # never retried: it cannot fit
            err = self._error(text, status=status, kind="too_long")
            err.param = error_param_from_body(body)
            return err
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

    async def _attempt(self, req: ChatRequest) -> ChatResult | ProviderError:
        """One attempt under the timeout, in a slot of the adaptive limit (if any): its result,
        or the error it ended with."""
        epoch = await self.adaptive.acquire() if self.adaptive is not None else 0
        err: ProviderError | None = None
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(self._send(req), timeout=self.timeout)
            result.latency_s = time.perf_counter() - started
            return result
        except TimeoutError:
            err = self._error(f"no reply within {self.timeout:g} s", kind="timeout", retryable=True)
        except ProviderError as exc:
            err = exc
        except Exception as exc:
            err = self._on_the_wire(exc) or self._translate(exc)
            if err is None:
                raise
        finally:
            if self.adaptive is not None:
                crowded = overload(err) if err is not None else None
                self.adaptive.release(epoch, replied=err is None, overloaded=crowded)
        return err

    async def _complete(self, req: ChatRequest) -> ChatResult:
        attempts = 0
        retries_used = 0
        adaptations = 0
        while True:
            attempts += 1
            outcome = await self._attempt(req)
            if isinstance(outcome, ChatResult):
                result = outcome
                result.attempts = attempts
                # A server that echoes the key in its reply: scrubbed before anything stores it.
                result.text = redact(result.text, self._secrets)
                return result
            err = outcome
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
                "retry: %s%s: attempt %d failed (%s); retrying in %.2f s",
                self.name,
                f": {req.label}" if req.label else "",
                attempts,
                err.message.removeprefix(f"{self.name}: "),
                delay,
            )
            await asyncio.sleep(delay)

    def scrub(self, text: str) -> str:
        """``text`` without this provider's key (or anything shaped like a key)."""
        return redact(text, self._secrets)

    async def call_sdk(
        self,
        what: str,
        send: Callable[[], Awaitable[T]],
        *,
        timeout: float | None = None,
        retry_if: Callable[[ProviderError], bool] | None = None,
    ) -> T:
        """Run one SDK request other than a chat call (a batch API call) under the same policy:
        per-attempt timeout, retries with backoff for retryable failures, errors translated and
        redacted, nothing chained.

        Args:
            what: What the request does, for error messages ("upload the batch file").
            send: Makes the request (called once per attempt).
            timeout: Per-attempt timeout (default: the provider's).
            retry_if: Narrows which retryable errors are retried — for a request that must not
                be repeated when its outcome is unknown (creating a batch after a timeout or a
                dropped connection may have succeeded).

        Raises:
            ProviderError: The request failed (after its retries, if retryable).
        """
        if self._closed:
            raise ProviderError(f"{self.name}: provider is closed", kind="closed")
        attempts = 0
        while True:
            attempts += 1
            self.sdk_requests += 1
            err: ProviderError | None = None
            limit = timeout or self.timeout
            try:
                return await asyncio.wait_for(send(), timeout=limit)
            except TimeoutError:
                err = self._error(
                    f"{what}: no reply within {limit:g} s", kind="timeout", retryable=True
                )
            except ProviderError as exc:
                err = exc
            except Exception as exc:
                err = self._on_the_wire(exc) or self._translate(exc)
                if err is None:
                    raise
                err.message = err.message.replace(f"{self.name}: ", f"{self.name}: {what}: ", 1)
                err.args = (err.message,)
            err.attempts = attempts
            again = err.retryable and (retry_if is None or retry_if(err))
            if not again or attempts > self.max_retries:
                raise err
            delay = backoff_delay(
                attempts - 1,
                base=self.backoff_base,
                cap=self.backoff_max,
                retry_after=err.retry_after,
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
