"""OpenAI (and OpenAI-compatible server) provider, through ``openai.AsyncOpenAI`` (openai 3.x).

Concurrency contract: as for every provider (see :mod:`.providers`): bind to one event loop;
``complete()`` may run concurrently from many tasks; ``aclose()`` is idempotent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import openai

from medjudge.judging.llm.client_spread import failed_connection
from medjudge.judging.llm.openai_post import ChatPost
from medjudge.judging.llm.provider_registry import ProviderEntry, entry_for
from medjudge.judging.llm.provider_types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    ChatRequest,
    ChatResult,
    ProviderError,
    read_usage,
)
from medjudge.judging.llm.sdk_provider import SDKProvider
from medjudge.store.json_types import JsonObject

__all__ = ["OpenAIProvider"]

log = logging.getLogger(__name__)


class OpenAIProvider(SDKProvider):
    """Chat completions via the official ``openai`` SDK.

    Works against api.openai.com, every OpenAI-compatible service of the registry (Azure
    OpenAI, Gemini, OpenRouter, vLLM, Ollama, ...) and any OpenAI-compatible server
    (llama.cpp, ...). The SDK's own retries are off; retries, backoff and ``Retry-After`` are
    handled by :class:`~.providers.RetryingProvider`. Keys and endpoints: see
    :class:`~.sdk_provider.SDKProvider`.

    Args:
        model: Model name sent in the request (Azure: the deployment).
        entry: The registry entry (default: ``openai``).
        base_url: Server URL ending in ``/v1`` for compatible servers; ``None`` for the
            entry's own endpoint.
        api_key: API key (see :class:`~.sdk_provider.SDKProvider`).
        **options: The other arguments of :class:`~.sdk_provider.SDKProvider`.

    Raises:
        ProviderConfigError: No key for the provider's own endpoint, or a key that cannot or
            must not be sent (see :class:`~.sdk_provider.SDKProvider`).
    """

    provider_label = "openai"
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
            entry=entry or entry_for("openai"),
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            name=name,
            on_close=on_close,
            **options,
        )
        # The provider's own endpoint gets its entry's token parameter (api.openai.com wants
        # max_completion_tokens: reasoning models refuse max_tokens); compatible servers are
        # safest with the classic max_tokens. A 400 naming the parameter flips it (_adapt).
        self._token_param = self.entry.token_param if self.home else "max_tokens"

    def _wrap(self, client: Any) -> ChatPost:
        return ChatPost(client, self.timeout)

    # ------------------------------------------------------------------ one attempt
    def _build_kwargs(self, req: ChatRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if req.system:
            messages.append({"role": "system", "content": req.system})
        messages.extend(dict(m) for m in req.messages)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            self._token_param: req.max_tokens,
            "timeout": self.timeout,
        }
        if "temperature" not in self._dropped_params:
            kwargs["temperature"] = req.temperature
        if req.seed is not None and "seed" not in self._dropped_params:
            kwargs["seed"] = req.seed
        if req.json_schema is not None:
            # Sent as extra_body: the same JSON on the wire, but it skips the SDK's recursive
            # type transform of the (plain-JSON) schema, which cost ~1 ms of CPU per call and
            # kept the runner far from calls × latency / concurrency at high concurrency.
            kwargs["extra_body"] = {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": req.json_schema["name"],
                        "schema": req.json_schema["schema"],
                        "strict": False,
                    },
                }
            }
        return kwargs

    def request_body(self, req: ChatRequest) -> JsonObject:
        """The JSON body of ``req`` exactly as :meth:`complete` sends it (for batch files)."""
        kwargs = self._build_kwargs(req)
        kwargs.pop("timeout", None)
        kwargs.update(kwargs.pop("extra_body", {}))
        return kwargs

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The SDK client (for the batch API)."""
        client: openai.AsyncOpenAI = self._clients.first.client
        return client

    async def _send(self, req: ChatRequest) -> ChatResult:
        # The SDK-built request, reused with this call's body (judging/llm/openai_post.py):
        # its auth, base URL, headers and error mapping, but neither the per-call rebuild of
        # the request nor response models — the JSON is read once here.
        with self._clients.lease() as post:
            raw = await post(self.request_body(req))
        try:
            data = json.loads(raw.content)
        except ValueError:
            raise self._error("malformed response: not JSON", kind="bad_response") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise self._error("malformed response: no choices", kind="bad_response")
        choice = choices[0]
        message = choice.get("message") or {}
        text = message.get("content") or message.get("refusal") or ""
        usage = data.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        tokens_in, tokens_out, unknown = read_usage(
            [usage.get("prompt_tokens")], usage.get("completion_tokens")
        )
        return ChatResult(
            text=text if isinstance(text, str) else str(text),
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            latency_s=0.0,
            model=data.get("model") or self.model,
            attempts=0,
            finish_reason=choice.get("finish_reason"),
            usage_unknown=unknown,
        )

    # ------------------------------------------------------------------ errors
    def _translate(self, exc: Exception) -> ProviderError | None:
        if isinstance(exc, openai.APITimeoutError) and not failed_connection(exc):
            return self._error("request timed out", kind="timeout", retryable=True)
        if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one too
            cause = exc.__cause__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            return self._error(
                f"cannot connect to {self.endpoint}{detail[:300]}",
                kind="connection",
                retryable=True,
            )
        if isinstance(exc, openai.APIStatusError):
            return self._status_error(exc.status_code, exc.body, exc.response.headers)
        if isinstance(exc, openai.APIResponseValidationError):
            return self._error("malformed response from server", kind="bad_response")
        if isinstance(exc, openai.OpenAIError):
            return self._error(f"{type(exc).__name__}: {exc}", kind="sdk")
        return None

    def _adapt(self, err: ProviderError) -> bool:
        param = err.param or ""
        text = err.message.lower()
        refused = param or next(
            (p for p in ("max_tokens", "temperature", "seed") if f"'{p}'" in text), ""
        )
        if refused in ("max_tokens", "max_completion_tokens"):
            other = "max_tokens" if refused == "max_completion_tokens" else "max_completion_tokens"
            if self._token_param == refused:
                log.warning("%s: server refused %r; sending %r instead", self.name, refused, other)
                self._token_param = other
                return True
            return False
        if refused in ("temperature", "seed") and refused not in self._dropped_params:
            log.warning("%s: server refused %r; not sending it again", self.name, refused)
            self._dropped_params.add(refused)
            return True
        return False
