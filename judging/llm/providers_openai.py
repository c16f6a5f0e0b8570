"""OpenAI (and OpenAI-compatible server) provider, through ``openai.AsyncOpenAI`` (openai 3.x).

Concurrency contract: as for every provider (see :mod:`.providers`): bind to one event loop;
``complete()`` may run concurrently from many tasks; ``aclose()`` is idempotent.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from typing import Any

import openai

from medjudge.judging.llm.client_spread import ClientSpread, failed_connection, http_client
from medjudge.judging.llm.openai_post import ChatPost
from medjudge.judging.llm.provider_types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    PLACEHOLDER_KEY,
    ChatRequest,
    ChatResult,
    ProviderConfigError,
    ProviderError,
    check_key,
)
from medjudge.judging.llm.retrying import RetryingProvider
from medjudge.store.json_types import JsonObject

__all__ = ["OpenAIProvider", "OPENAI_KEY_ENV"]

OPENAI_KEY_ENV = "OPENAI_API_KEY"

log = logging.getLogger(__name__)


class OpenAIProvider(RetryingProvider):
    """Chat completions via the official ``openai`` SDK.

    Works against api.openai.com and any OpenAI-compatible server (llama.cpp, vLLM, ...). The
    SDK's own retries are off; retries, backoff and ``Retry-After`` are handled by
    :class:`~.providers.RetryingProvider`.

    Args:
        model: Model name sent in the request.
        base_url: Server URL ending in ``/v1`` for compatible servers; ``None`` for OpenAI.
        api_key: API key. ``None`` means: a placeholder if ``base_url`` is set, else the
            ``OPENAI_API_KEY`` environment variable.
        timeout: Per-attempt timeout in seconds (given to the SDK and enforced with
            ``asyncio.wait_for``).
        max_retries: Retries after the first attempt.
        backoff_base: First backoff in seconds (doubles per retry, with jitter).
        backoff_max: Cap on any single wait, including a server's ``Retry-After``.
        max_concurrency: Cap on in-flight requests, or ``None``.
        name: Display/spec name; defaults to ``openai:MODEL[@BASE_URL]``.
        on_close: Called (or awaited) by :meth:`aclose` after the client is closed.

    Raises:
        ProviderConfigError: No key given and ``OPENAI_API_KEY`` unset (for api.openai.com).
    """

    provider_label = "openai"
    supports_json_schema = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_concurrency: int | None = None,
        name: str | None = None,
        on_close: Callable[[], Any] | None = None,
    ) -> None:
        base_url = base_url.rstrip("/") if base_url else None
        if name is None:
            name = f"openai:{model}" + (f"@{base_url}" if base_url else "")
        if api_key is None:
            if base_url is not None:
                api_key = PLACEHOLDER_KEY
            else:
                api_key = os.environ.get(OPENAI_KEY_ENV) or None
                if api_key is None:
                    raise ProviderConfigError(
                        f"{name}: no OpenAI API key. Set the {OPENAI_KEY_ENV} environment "
                        "variable (or use openai:MODEL@URL for an OpenAI-compatible server).",
                        provider=name,
                    )
        check_key(api_key, f"{OPENAI_KEY_ENV} or settings.toml", name)
        super().__init__(
            model,
            name=name,
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_concurrency=max_concurrency,
            secrets=(api_key,),
            on_close=on_close,
        )
        self.base_url = base_url
        # api.openai.com wants max_completion_tokens (max_tokens is refused by reasoning
        # models); compatible servers are safest with the classic max_tokens. A 400 naming
        # the parameter flips it (see _adapt).
        self._token_param = "max_completion_tokens" if base_url is None else "max_tokens"
        self._clients = ClientSpread(
            lambda: ChatPost(
                openai.AsyncOpenAI(
                    api_key=api_key,
                    base_url=base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=http_client(openai),
                ),
                self.timeout,
            )
        )

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
        return self._clients.first.client

    async def _send(self, req: ChatRequest) -> ChatResult:
        # The SDK-built request, reused with this call's body (judging/llm/openai_post.py):
        # its auth, base URL, headers and error mapping, but neither the per-call rebuild of
        # the request nor response models — the JSON is read once here (#12).
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
        usage = data.get("usage") or {}
        return ChatResult(
            text=text if isinstance(text, str) else str(text),
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            latency_s=0.0,
            model=data.get("model") or self.model,
            attempts=0,
            finish_reason=choice.get("finish_reason"),
        )

    # ------------------------------------------------------------------ errors
    def _translate(self, exc: Exception) -> ProviderError | None:
        if isinstance(exc, openai.APITimeoutError) and not failed_connection(exc):
            return self._error("request timed out", kind="timeout", retryable=True)
        if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one too
            cause = exc.__cause__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            where = self.base_url or "api.openai.com"
            return self._error(
                f"cannot connect to {where}{detail[:300]}", kind="connection", retryable=True
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

    async def _close_client(self) -> None:
        await self._clients.aclose()
