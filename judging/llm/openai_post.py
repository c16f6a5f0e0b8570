"""``POST /chat/completions`` on one ``openai.AsyncOpenAI`` client, the request built once.

Every judge call is the same request but for its body: same URL, auth, headers and timeout.
The SDK's own ``client.post`` rebuilds all of that per call (options copied twice, URL merged
and parsed, headers merged and validated, JSON encoded through its transform): about a fifth
of a judge run's CPU. :class:`ChatPost` lets the SDK build the request once, from the
client's own options (auth, base URL, default and platform headers, timeout), and then sends
that request with each call's body through the SDK's HTTP client, mapping failures to the
SDK's own exceptions (``APIStatusError`` and subclasses with the server's body,
``APITimeoutError``, ``APIConnectionError``), so error handling upstream is unchanged.

The SDK's own path is used instead, for every call, when the client needs per-request work
(a key provider, a custom auth flow, an idempotency header) or when the installed SDK does not
have the members this relies on; and for a client's first call, which fetches the platform
headers the template carries.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import openai
from openai import _base_client as sdk

__all__ = ["ChatPost", "HTTP"]

log = logging.getLogger(__name__)

HTTP: Any = getattr(sdk, "httpx2", None) or sdk.httpx  # type: ignore[attr-defined]
"""The installed SDK's HTTP library (``httpx2`` in openai 3, ``httpx`` before)."""

_PATH = "/chat/completions"


def _exceptions(name: str, fallback: Any) -> Any:
    """The SDK's tuple of HTTP exceptions of one family (its helpers know both HTTP libraries)."""
    helper = getattr(sdk, name, None)
    return helper() if callable(helper) else fallback


class ChatPost:
    """Chat completion requests on one SDK client (see the module docstring).

    Args:
        client: The SDK client (its options are used as they are).
        timeout: Per-request timeout in seconds.
    """

    def __init__(self, client: openai.AsyncOpenAI, timeout: float) -> None:
        self.client = client
        self.timeout = timeout
        self._template: Any = None
        self._fast = self._can_reuse(client)
        self._timeouts = _exceptions("timeout_exceptions", (HTTP.TimeoutException,))
        self._request_errors = _exceptions("request_exceptions", (HTTP.RequestError,))

    @staticmethod
    def _can_reuse(client: Any) -> bool:
        try:
            return (
                getattr(client, "_provider_runtime", None) is None
                and getattr(client, "_api_key_provider", None) is None
                and client.custom_auth is None
                and not client._idempotency_header
                and callable(client._build_request)
                and callable(client._make_status_error_from_response)
                and hasattr(client, "_platform")
            )
        except Exception:  # an SDK without these members: its own path, always
            return False

    async def close(self) -> None:
        """Close the SDK client."""
        await self.client.close()

    async def __call__(self, body: dict[str, Any]) -> Any:
        """Send ``body``; the raw HTTP response of a 2xx reply.

        Raises:
            openai.APIStatusError: the server answered 4xx/5xx (with its body and headers).
            openai.APITimeoutError: the request timed out.
            openai.APIConnectionError: the server could not be reached.
        """
        template = self._template
        if template is None and self._fast and self.client._platform is not None:
            template = self._template = self._make_template()
        if template is None:
            return await self.client.post(
                _PATH, body=body, cast_to=HTTP.Response, options={"timeout": self.timeout}
            )
        method, url, headers, extensions = template
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        request = HTTP.Request(
            method, url, headers=headers, content=content, extensions=dict(extensions)
        )
        try:
            response = await self.client._client.send(request)
        except self._timeouts as exc:
            raise openai.APITimeoutError(request=request) from exc
        except self._request_errors as exc:
            raise openai.APIConnectionError(request=request) from exc
        if response.status_code >= 400:
            await response.aread()
            raise self.client._make_status_error_from_response(response) from None
        return response

    def _make_template(self) -> Any:
        """The SDK-built request for this client, without a body: (method, URL, headers, extensions)."""
        try:
            from openai._models import FinalRequestOptions

            options = FinalRequestOptions.construct(
                method="post", url=_PATH, json_data={}, timeout=self.timeout
            )
            request = self.client._build_request(options)
        except Exception as exc:  # noqa: BLE001 - an SDK that builds requests otherwise
            log.debug("the SDK's own request path for every call: %s", exc)
            self._fast = False
            return None
        headers = HTTP.Headers(
            [(k, v) for k, v in request.headers.multi_items() if k.lower() != "content-length"]
        )
        return request.method, request.url, headers, dict(request.extensions)
