"""Anthropic (and Anthropic-compatible server) provider, via ``anthropic.AsyncAnthropic`` (2.x).

anthropic 2.x notes: ``messages.create`` has no ``temperature``/``top_p`` keyword any more, so
the temperature is sent through ``extra_body`` (llama.cpp's ``/v1/messages`` honours it) and
dropped for the rest of the provider's life if the server answers 400 about it. The key is sent
as ``Authorization: Bearer``. ``usage.input_tokens`` excludes cached prompt tokens, so
``ChatResult.input_tokens`` adds ``cache_read_input_tokens`` and ``cache_creation_input_tokens``.

Concurrency contract: as for every provider (see :mod:`.providers`): bind to one event loop;
``complete()`` may run concurrently from many tasks; ``aclose()`` is idempotent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anthropic

from medjudge.judging.llm.client_spread import failed_connection
from medjudge.judging.llm.provider_registry import ProviderEntry, entry_for
from medjudge.judging.llm.provider_types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    ChatRequest,
    ChatResult,
    ProviderError,
    read_usage,
    reply_text,
)
from medjudge.judging.llm.sdk_provider import SDKProvider
from medjudge.store.json_types import JsonObject

__all__ = ["AnthropicProvider"]

log = logging.getLogger(__name__)


class AnthropicProvider(SDKProvider):
    """Messages API via the official ``anthropic`` SDK.

    Structured output: a request's ``json_schema`` becomes one tool whose ``input_schema`` is
    the schema, and ``tool_choice`` forces it, so the model answers with a ``tool_use`` block
    whose ``input`` is the verdict object (the Anthropic counterpart of OpenAI's
    ``response_format``); its JSON is the reply's text. A reply without that block (a
    compatible server that ignores tools) is read from its text blocks as before, and a server
    that refuses ``tools`` with a 400 is not sent them again. Keys and endpoints: see
    :class:`~.sdk_provider.SDKProvider`.

    Args:
        model: Model name sent in the request.
        entry: The registry entry (default: ``anthropic``).
        base_url: Server root for Anthropic-compatible servers, *without* ``/v1`` (a trailing
            ``/v1`` is stripped); ``None`` for api.anthropic.com.
        api_key: API key (see :class:`~.sdk_provider.SDKProvider`).
        **options: The other arguments of :class:`~.sdk_provider.SDKProvider`.

    Raises:
        ProviderConfigError: No key for api.anthropic.com, or a key that cannot or must not be
            sent (see :class:`~.sdk_provider.SDKProvider`).
    """

    provider_label = "anthropic"
    supports_json_schema = True

    def __init__(
        self,
        model: str,
        *,
        entry: ProviderEntry | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        name: str | None = None,
        on_close: Callable[[], Any] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            model,
            entry=entry or entry_for("anthropic"),
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            name=name,
            on_close=on_close,
            **options,
        )

    @staticmethod
    def _normalise_base_url(base_url: str) -> str:
        return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url

    # ------------------------------------------------------------------ one attempt
    def _build_kwargs(self, req: ChatRequest) -> dict[str, Any]:
        system_parts = [req.system] if req.system else []
        messages: list[dict[str, Any]] = []
        for message in req.messages:
            if message["role"] == "system":
                system_parts.append(str(message["content"]))
            else:
                messages.append({"role": message["role"], "content": message["content"]})
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": req.max_tokens,
            "messages": messages,
            "timeout": self.timeout,
        }
        if system_parts:
            kwargs["system"] = "\n\n".join(system_parts)
        # Sent as extra_body: the same JSON on the wire, without the SDK's type transform.
        extra: dict[str, Any] = {}
        if "temperature" not in self._dropped_params:
            extra["temperature"] = req.temperature
        tool = self._tool(req)
        if tool is not None:
            extra["tools"] = [tool]
            extra["tool_choice"] = {"type": "tool", "name": tool["name"]}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def _tool(self, req: ChatRequest) -> dict[str, Any] | None:
        """The tool that carries the reply's schema (``None``: no schema, or refused)."""
        schema = req.json_schema
        if schema is None or "tools" in self._dropped_params:
            return None
        return {
            "name": schema["name"],
            "description": "Record your answer: call this tool once, with every field filled.",
            "input_schema": schema["schema"],
        }

    def request_body(self, req: ChatRequest) -> JsonObject:
        """The JSON body of ``req`` exactly as :meth:`complete` sends it (for batch requests)."""
        kwargs = self._build_kwargs(req)
        kwargs.pop("timeout", None)
        kwargs.update(kwargs.pop("extra_body", {}))
        return kwargs

    @property
    def client(self) -> anthropic.AsyncAnthropic:
        """The SDK client (for the batch API)."""
        client: anthropic.AsyncAnthropic = self._clients.first
        return client

    async def _send(self, req: ChatRequest) -> ChatResult:
        with self._clients.lease() as client:
            response = await client.messages.create(**self._build_kwargs(req))
        blocks = getattr(response, "content", None)
        if blocks is None:
            raise self._error("malformed response: no content", kind="bad_response")
        text = reply_text([_as_dict(block) for block in blocks])
        usage = getattr(response, "usage", None)
        input_tokens, output_tokens, unknown = read_usage(
            [
                getattr(usage, field, None)
                for field in (
                    "input_tokens",
                    "cache_read_input_tokens",
                    "cache_creation_input_tokens",
                )
            ],
            getattr(usage, "output_tokens", None),
        )
        return ChatResult(
            text=text,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_s=0.0,
            model=getattr(response, "model", None) or self.model,
            attempts=0,
            finish_reason=getattr(response, "stop_reason", None),
            usage_unknown=unknown,
        )

    # ------------------------------------------------------------------ errors
    def _translate(self, exc: Exception) -> ProviderError | None:
        if isinstance(exc, anthropic.APITimeoutError) and not failed_connection(exc):
            return self._error("request timed out", kind="timeout", retryable=True)
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            return self._error(
                f"cannot connect to {self.endpoint}{detail[:300]}",
                kind="connection",
                retryable=True,
            )
        if isinstance(exc, anthropic.APIStatusError):
            return self._status_error(exc.status_code, exc.body, exc.response.headers)
        if isinstance(exc, anthropic.APIResponseValidationError):
            return self._error("malformed response from server", kind="bad_response")
        if isinstance(exc, anthropic.AnthropicError):
            return self._error(f"{type(exc).__name__}: {exc}", kind="sdk")
        return None

    def _adapt(self, err: ProviderError) -> bool:
        text = err.message.lower()
        if "temperature" in text and "temperature" not in self._dropped_params:
            log.warning("%s: server refused 'temperature'; not sending it again", self.name)
            self._dropped_params.add("temperature")
            return True
        if "tool" in text and "tools" not in self._dropped_params:
            log.warning("%s: server refused 'tools'; asking for JSON in the prompt only", self.name)
            self._dropped_params.add("tools")
            return True
        return False


def _as_dict(block: Any) -> dict[str, Any]:
    """A content block of the SDK's response as the plain JSON the API sent."""
    if isinstance(block, dict):
        return block
    dump = getattr(block, "model_dump", None)
    if callable(dump):
        data: dict[str, Any] = dump()
        return data
    return {"type": getattr(block, "type", None), "text": getattr(block, "text", None)}
