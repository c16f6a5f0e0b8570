"""The SDK clients' HTTP layer: aiohttp under the SDK, calls spread over several clients.

HTTP transport: both SDKs offer aiohttp as the transport under their httpx client
(``openai[aiohttp]``, ``anthropic[aiohttp]``: ``DefaultAioHttpClient``, "for improved
concurrency performance"). Its C HTTP parser and connection pool cost a judge run a quarter
less CPU than the default httpcore/h11/anyio stack (4,800 calls at concurrency 64, 6.2 s
→ 4.6 s of CPU, wall 9.9 → 9.1 s). :func:`http_client` picks it when aiohttp is installed and
the default client otherwise. The OpenAI SDK's copy of the transport reports every aiohttp
connection failure (refused, reset, server gone) as a *connect timeout*;
:func:`failed_connection` tells them apart for the error messages.

Several clients: the default pool (httpcore) checks every idle connection on every request;
with 64 calls in flight on one client that scan was a third of a judge run's CPU. Calls are
spread over clients of at most :data:`PER_CLIENT` calls in flight each; the clients share one
TLS context, so an extra client costs well under a millisecond instead of the ~20 ms of
loading the CA store again. (On aiohttp the spread neither helps nor hurts: 4, 16 or 64 per
client measured alike.)

Auth, base URL, headers and error mapping stay the SDK's own: every client is made by the
provider's factory with the same arguments.
"""

from __future__ import annotations

import ssl
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from medjudge.judging.llm.http_limits import reply_hooks

if TYPE_CHECKING:
    import httpx2

__all__ = ["PER_CLIENT", "ClientSpread", "failed_connection", "http_client", "shared_tls_context"]

PER_CLIENT = 4
"""Calls in flight on one SDK client before another client is made."""


class _Closable(Protocol):
    def close(self) -> Awaitable[Any]: ...


C = TypeVar("C", bound=_Closable)

_TLS_CONTEXT: ssl.SSLContext | None = None


def shared_tls_context() -> ssl.SSLContext:
    """One TLS context for every client of this process, made as the SDKs' HTTP library makes
    its default one (CA store, ``SSL_CERT_FILE`` and the like honoured)."""
    global _TLS_CONTEXT
    if _TLS_CONTEXT is None:
        try:
            import httpx2 as http
        except ImportError:  # an SDK release on plain httpx
            import httpx as http  # type: ignore[no-redef]
        _TLS_CONTEXT = http.create_ssl_context()
    return _TLS_CONTEXT


def http_client(sdk: ModuleType) -> httpx2.AsyncClient:
    """The HTTP client for one SDK client: the SDK's aiohttp client when aiohttp is installed,
    else its default httpx client; both with :func:`shared_tls_context` and the checks of
    :mod:`.http_limits` on every reply (its size, where it redirects).

    Args:
        sdk: the ``openai`` or ``anthropic`` module.
    """
    hooks = reply_hooks()  # replies bounded, redirects to other servers refused
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        client: httpx2.AsyncClient = sdk.DefaultAsyncHttpxClient(
            verify=shared_tls_context(), event_hooks=hooks
        )
    else:
        client = sdk.DefaultAioHttpClient(verify=shared_tls_context(), event_hooks=hooks)
    return client


def failed_connection(exc: BaseException) -> bool:
    """Whether an exception reported as a timeout came from a connection that failed instead
    (refused, reset, closed by the server): an aiohttp connection error that is no timeout,
    anywhere in its chain of causes."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is None:
        return False
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, aiohttp.ServerTimeoutError):
            return False
        if isinstance(cause, aiohttp.ClientConnectionError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


class ClientSpread(Generic[C]):
    """SDK clients made on demand; each call leases the first one with room.

    Bound to one event loop (no locking: leases are taken and returned between awaits).

    Args:
        make: Makes one client (the same arguments every time).
        per_client: Calls in flight on one client before the next client is used.
    """

    def __init__(self, make: Callable[[], C], per_client: int = PER_CLIENT) -> None:
        self._make = make
        self._per_client = max(1, per_client)
        self.clients: list[C] = [make()]
        self._in_flight: list[int] = [0]

    @property
    def first(self) -> C:
        """The first client (for calls that need one fixed client, e.g. the batch API)."""
        return self.clients[0]

    @contextmanager
    def lease(self) -> Iterator[C]:
        """A client with room for one more call, made if every client is full."""
        in_flight = self._in_flight
        index = next((i for i, n in enumerate(in_flight) if n < self._per_client), -1)
        if index < 0:
            self.clients.append(self._make())
            in_flight.append(0)
            index = len(in_flight) - 1
        in_flight[index] += 1
        try:
            yield self.clients[index]
        finally:
            in_flight[index] -= 1

    async def aclose(self) -> None:
        """Close every client (each one's connections)."""
        for client in self.clients:
            await client.close()
