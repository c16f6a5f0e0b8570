"""What goes into and comes out of a provider call, the errors, and the Provider protocol.

Secrets: no exception raised by a provider carries an API key in its message, ``repr`` or
formatted traceback (see :func:`redact`). Import these from :mod:`judging.providers`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

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
    messages: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 1024
    temperature: float = 0.0
    json_schema: dict[str, Any] | None = None
    seed: int | None = None
    label: str | None = None
    """Which call this is, for the log of retries (never sent)."""

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


MAX_TOKENS_PER_CALL = 10_000_000
"""The most tokens one call may report for its prompt or its reply; a figure beyond it (or
negative, or not a whole number) is a server's error and recorded as unknown."""


def read_usage(inputs: Sequence[object], output: object) -> tuple[int, int, bool]:
    """A reply's token figures: (input tokens, the sum of ``inputs``; output tokens; whether
    the usage is unknown). The first of ``inputs`` (the prompt tokens) and ``output`` must be
    reported; the others (Anthropic's cache figures) count 0 when left out. A figure left out
    that must be there, or one outside 0–:data:`MAX_TOKENS_PER_CALL` (a hostile server's −5,
    9e18 or ``"12"``), makes the whole usage unknown: recorded as 0 tokens, never trusted into
    the cost, which is counted at the estimate instead (:func:`~.pricing.unreported_usage`)."""
    if not inputs or inputs[0] is None or output is None:
        return 0, 0, True

    def one(value: object) -> int | None:
        if value is None:
            return 0
        if isinstance(value, bool):
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and 0 <= value <= MAX_TOKENS_PER_CALL:
            return value
        return None

    ins = [one(v) for v in inputs]
    out = one(output)
    if out is None or any(v is None for v in ins):
        return 0, 0, True
    return sum(v or 0 for v in ins), out, False


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
    usage_unknown: bool = False
    """The server's token figures were out of bounds (:func:`read_usage`): recorded as 0."""


def reply_text(blocks: Sequence[Mapping[str, object]]) -> str:
    """The text of a reply: the input of its first ``tool_use`` block as JSON (structured
    output), else its text blocks joined (a server that ignored the tool, an old reply)."""
    for block in blocks:
        value = block.get("input")
        if block.get("type") == "tool_use" and isinstance(value, dict):
            return json.dumps(value, ensure_ascii=False)
    return "".join(str(block.get("text") or "") for block in blocks if block.get("type") == "text")


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


def check_key(key: str, source: str, name: str) -> None:
    """Refuse a key that HTTP cannot carry, before any request: a pasted key often brings a
    non-breaking space, a smart quote or a newline. The message names the position and the
    character, never the key.

    Args:
        key: The API key.
        source: Where it came from, for the message (e.g. ``OPENAI_API_KEY or settings.toml``).
        name: The judge's name.

    Raises:
        ProviderConfigError: the key holds a character outside printable ASCII.
    """
    for i, ch in enumerate(key):
        if not 33 <= ord(ch) <= 126:
            what = unicodedata.name(ch, f"U+{ord(ch):04X}")
            kind = "non-ASCII" if ord(ch) > 126 else "space or control"
            raise ProviderConfigError(
                f"{name}: the API key ({source}) contains a {kind} character at position "
                f"{i + 1} ({what}); paste the key again as plain text",
                provider=name,
            )


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
