"""What the SDK-backed providers share: one constructor path from a registry entry, an
endpoint and a key to a spread of vendor SDK clients.

The endpoint is always handed to the SDK explicitly (the entry's default URL when the spec has
no ``@URL``), so the SDKs never pick one up from ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``
behind the study's back, and the key is always given (the placeholder when none is to be
sent), so they never read one from the environment either. A key is refused before any
request when HTTP cannot carry it or when it would go over plain http to another machine.

Concurrency contract: as for every provider (see :mod:`.providers`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from medjudge.judging.llm.adaptive import AdaptiveLimit
from medjudge.judging.llm.client_spread import ClientSpread
from medjudge.judging.llm.key_routing import KeyRing, check_transport, route_key
from medjudge.judging.llm.provider_registry import ClientArgs, ProviderEntry
from medjudge.judging.llm.provider_types import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    PLACEHOLDER_KEY,
    ProviderConfigError,
    check_key,
)
from medjudge.judging.llm.retrying import RetryingProvider
from medjudge.judging.llm.specs import JudgeSpec

__all__ = ["SDKProvider"]


class SDKProvider(RetryingProvider):
    """A provider talking to one endpoint through one vendor SDK (subclasses: the protocol).

    Args:
        model: Model name sent in the request (Azure: the deployment).
        entry: The provider's registry entry (its SDK client, key variable, default URL).
        base_url: The spec's ``@URL``; ``None`` for the entry's own default endpoint.
        api_key: The key, as routed by :func:`~.key_routing.route_key`. ``None``: routed here
            with the environment's keys — at the entry's own endpoint its ``key_env`` variable
            (required when it has one), anywhere else the placeholder (no secret is sent).
        key_source: Where the key comes from, for messages (never the key).
        api_version: The API version for providers that have one (Azure).
        timeout: Per-attempt timeout in seconds (given to the SDK and enforced with
            ``asyncio.wait_for``).
        max_retries: Retries after the first attempt.
        backoff_base: First backoff in seconds (doubles per retry, with jitter).
        backoff_max: Cap on any single wait, including a server's ``Retry-After``.
        max_concurrency: Cap on in-flight requests, or ``None``.
        adaptive: Bounds the attempts in flight, lowered while the server is overloaded
            (:mod:`.adaptive`), or ``None``.
        name: Display/spec name; defaults to ``PROVIDER:MODEL[@BASE_URL]``.
        on_close: Called (or awaited) by :meth:`aclose` after the client is closed.

    Raises:
        ProviderConfigError: no key for the entry's own endpoint; a key HTTP cannot carry; a key
            that would go over plain http to a host that is not loopback.
    """

    def __init__(
        self,
        model: str,
        *,
        entry: ProviderEntry,
        base_url: str | None = None,
        api_key: str | None = None,
        key_source: str | None = None,
        api_version: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_concurrency: int | None = None,
        name: str | None = None,
        on_close: Callable[[], Any] | None = None,
        adaptive: AdaptiveLimit | None = None,
    ) -> None:
        if entry.client is None:
            raise ProviderConfigError(f"{entry.name}: no SDK client for this provider")
        base_url = self._normalise_base_url(base_url.rstrip("/")) if base_url else None
        if name is None:
            name = f"{entry.name}:{model}" + (f"@{base_url}" if base_url else "")
        endpoint = entry.endpoint(base_url)
        if endpoint is None:
            raise ProviderConfigError(f"{name}: this provider needs an endpoint (@URL)")
        if api_key is None:  # built without a routed key: the rules with the environment's keys
            route = route_key(JudgeSpec(entry.name, model, base_url), KeyRing.from_environment())
            api_key, key_source = route.key, route.source
        key = api_key if api_key is not None else PLACEHOLDER_KEY
        source = key_source or (f"{entry.key_env} or settings.toml" if entry.key_env else "given")
        check_key(key, source, name)
        check_transport(endpoint, key != PLACEHOLDER_KEY, name, source)
        super().__init__(
            model,
            name=name,
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_concurrency=max_concurrency,
            secrets=(key,),
            on_close=on_close,
            adaptive=adaptive,
        )
        self.entry = entry
        self.base_url = base_url
        """The spec's ``@URL`` (``None``: the entry's own endpoint)."""
        self.endpoint = endpoint
        """The URL actually called."""
        self.home = entry.is_home(base_url)
        """Whether that is the provider's own endpoint."""
        self.sends_no_key = key == PLACEHOLDER_KEY
        """Whether the calls carry no key (the placeholder: none was named for the URL)."""
        args = ClientArgs(key, endpoint, model, self.timeout, api_version, self.home)
        factory = entry.client
        self._clients: ClientSpread[Any] = ClientSpread(lambda: self._wrap(factory(args)))

    @staticmethod
    def _normalise_base_url(base_url: str) -> str:
        """The ``@URL`` as this protocol's SDK wants it (Anthropic: without ``/v1``)."""
        return base_url

    def _wrap(self, client: Any) -> Any:
        """What the spread holds for one SDK client (OpenAI: a :class:`~.openai_post.ChatPost`)."""
        return client

    async def _close_client(self) -> None:
        await self._clients.aclose()
