"""What medjudge accepts from an HTTP server, on every SDK client (issue #43).

Every vendor SDK client is made with :func:`~.client_spread.http_client`, which gives it
:func:`reply_hooks`: an httpx response hook that runs once a reply's headers are in, before its
body is read, for every request of every provider (the SDKs' own requests, the reused
chat request of :mod:`.openai_post`, the batch APIs).

- **Size.** A reply is read at most :data:`MAX_REPLY_BYTES` into memory (a judge's reply is a
  few kilobytes; an endless body once took 1.40 GB); the content of a batch's results file
  (OpenAI ``GET /files/ID/content``, Anthropic ``GET …/batches/ID/results``) at most
  :data:`MAX_TRANSFER_BYTES`. A ``Content-Length`` above the limit is refused before the body
  is read; otherwise the body is counted as it streams in, after decompression too (a small
  gzip body cannot unpack into gigabytes), and refused the moment it passes the limit.
- **Redirects.** Followed only to the same origin (scheme, host and port): a redirect to
  another server is refused, so neither the key nor the prompt reaches a server the judge
  spec does not name, and no reply from it is recorded under the first endpoint.
- **Failures on the wire** are named by :func:`wire_failure` for the retry loop
  (:mod:`.retrying`), whichever SDK or HTTP transport raised them: a refused reply, JSON
  nested too deeply to parse, a server that does not answer in HTTP (neither retried), a
  connection the server reset or closed (retried, and called that, not a timeout).
"""

from __future__ import annotations

import errno
import sys
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

__all__ = [
    "MAX_REPLY_BYTES",
    "MAX_TRANSFER_BYTES",
    "ReplyRefused",
    "WireFailure",
    "reply_hooks",
    "wire_failure",
]

MAX_REPLY_BYTES = 16 << 20
"""The largest reply read, in bytes (16 MB; after decompression)."""
MAX_TRANSFER_BYTES = 512 << 20
"""The largest batch results file read, in bytes (512 MB; a batch of 50,000 judge calls
answers in well under half of it)."""

_TRANSFER_SUFFIXES = ("/content", "/results")
"""Paths of batch results downloads (OpenAI's file content, Anthropic's batch results)."""


class ReplyRefused(Exception):
    """A reply medjudge does not read: larger than its limit, or a redirect to another server.

    Raised from the response hook, inside the SDK's HTTP call; :func:`wire_failure` finds it
    wherever the SDK wrapped it."""


def _mb(limit: int) -> str:
    return f"{limit >> 20} MB"


def limit_for(method: str, path: str) -> int:
    """The size limit of the reply to a request (see the module)."""
    if method == "GET" and path.rstrip("/").endswith(_TRANSFER_SUFFIXES):
        return MAX_TRANSFER_BYTES
    return MAX_REPLY_BYTES


def _origin(url: Any) -> tuple[str, str, int | None]:
    scheme = str(url.scheme).lower()
    default = {"http": 80, "https": 443}.get(scheme)
    return scheme, str(url.host).lower(), url.port or default


def _check_redirect(response: Any) -> None:
    """Refuse a redirect whose target is another origin."""
    request = response.request
    location = response.headers.get("location", "")
    try:
        target = request.url.join(location)
    except Exception:  # noqa: BLE001 - httpx refuses it itself, naming it
        return
    if _origin(target) != _origin(request.url):
        shown = f"{target.scheme}://{target.netloc.decode('ascii', 'replace')}"
        raise ReplyRefused(
            f"redirected to another server ({shown}): not followed (redirects are followed "
            "on the same server only, so the key goes nowhere else)"
        )


class _Inflater:
    """One content coding (gzip or deflate) undone with a bound on what it produces."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        # gzip: its header; deflate: a zlib stream (auto-detected with gzip) or raw deflate.
        self._z = zlib.decompressobj(zlib.MAX_WBITS | (16 if coding == "gzip" else 32))
        self._started = False

    def feed(self, data: bytes, room: int) -> bytes:
        """Inflate ``data``; more than ``room`` bytes out raises :class:`OverflowError`."""
        try:
            out = self._z.decompress(data, room + 1)
        except zlib.error:
            if self.coding != "deflate" or self._started:
                raise
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send
            out = self._z.decompress(data, room + 1)
        self._started = True
        if len(out) > room or self._z.unconsumed_tail:
            raise OverflowError
        return out


class _BoundedStream:
    """A reply's body stream, counted as it is read (raw and decoded) and cut at ``limit``."""

    def __init__(self, inner: Any, limit: int, codings: list[str]) -> None:
        self._inner = inner
        self._limit = limit
        self._inflaters = [_Inflater(c) for c in reversed(codings)]

    def _refuse(self) -> ReplyRefused:
        return ReplyRefused(f"reply larger than {_mb(self._limit)}: not read further")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        raw = decoded = 0
        async for chunk in self._inner:
            raw += len(chunk)
            if raw > self._limit:
                raise self._refuse()
            try:
                for inflater in self._inflaters:
                    chunk = inflater.feed(chunk, self._limit - decoded)
            except OverflowError:
                raise self._refuse() from None
            except zlib.error:
                raise ReplyRefused("reply not decodable (bad compressed data)") from None
            decoded += len(chunk)
            if decoded > self._limit:
                raise self._refuse()
            if chunk:
                yield chunk

    async def aclose(self) -> None:
        """Close the transport's stream (its connection, when the body was not read to the
        end)."""
        await self._inner.aclose()


_CODINGS = frozenset({"gzip", "x-gzip", "deflate"})


async def _check_reply(response: Any) -> None:
    """The response hook: redirects, then the size (see the module)."""
    if response.has_redirect_location:
        _check_redirect(response)
    request = response.request
    limit = limit_for(request.method, request.url.path)
    length = response.headers.get("content-length", "").strip()
    if length.isdigit() and int(length) > limit:
        raise ReplyRefused(f"reply larger than {_mb(limit)} (Content-Length {int(length):,})")
    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    unknown = [c for c in codings if c not in _CODINGS]
    if unknown:
        raise ReplyRefused(f"reply in a content encoding medjudge does not read ({unknown[0]})")
    if codings:  # undone here, bounded; the HTTP library must not undo them again
        del response.headers["content-encoding"]
    codings = ["gzip" if c == "x-gzip" else c for c in codings]
    response.stream = _as_async_stream(
        _BoundedStream(response.stream, limit, codings), response.stream
    )


_STREAM_TYPES: dict[type, type] = {}


def _as_async_stream(stream: _BoundedStream, like: Any) -> Any:
    """``stream`` as an ``AsyncByteStream`` of the HTTP library that made ``like`` (the
    transport's own stream: httpx checks the type, and the SDKs ship their own copy)."""
    base = next((c for c in type(like).__mro__ if c.__name__ == "AsyncByteStream"), None)
    if base is None:  # not an httpx stream: the library takes any async iterable
        return stream
    cls = _STREAM_TYPES.get(base)
    if cls is None:

        class BoundedByteStream(base):  # type: ignore[valid-type,misc]
            def __init__(self, inner: _BoundedStream) -> None:
                self.inner = inner

            def __aiter__(self) -> AsyncIterator[bytes]:
                return self.inner.__aiter__()

            async def aclose(self) -> None:
                await self.inner.aclose()

        cls = _STREAM_TYPES[base] = BoundedByteStream
    return cls(stream)


def reply_hooks() -> dict[str, list[Callable[[Any], Awaitable[None]]]]:
    """The ``event_hooks`` argument of an SDK's HTTP client (see the module)."""
    return {"response": [_check_reply]}


WireFailure = tuple[str, str, bool]
"""What :func:`wire_failure` names: (message, :class:`~.provider_types.ProviderError` kind,
retryable)."""


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and all(cause is not s for s in seen):
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    return seen


def _not_http(exc: BaseException) -> str | None:
    """The first line of a parser's complaint when ``exc`` says the reply was not HTTP."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.http_exceptions.HttpProcessingError):
        text = str(getattr(exc, "message", "") or exc)
    elif type(exc).__name__ == "RemoteProtocolError" and "disconnected" not in str(exc).lower():
        text = str(exc)  # httpx/h11's "illegal status line", "malformed headers"...
    else:
        return None
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.removeprefix("400, message:").strip().rstrip(":")
    return "".join(ch for ch in first if ch.isprintable())[:80] or "not HTTP"


def _reset(exc: BaseException) -> bool:
    return isinstance(exc, ConnectionResetError) or (
        isinstance(exc, OSError) and exc.errno == errno.ECONNRESET
    )


def _closed(exc: BaseException) -> bool:
    """The server closed the connection without a (whole) reply."""
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None and isinstance(exc, aiohttp.ServerDisconnectedError):
        return True
    return type(exc).__name__ == "RemoteProtocolError" and "disconnected" in str(exc).lower()


def wire_failure(exc: BaseException, endpoint: str) -> WireFailure | None:
    """Name a failure on the wire, anywhere in ``exc``'s chain of causes (see the module);
    ``None`` for anything else (the provider's own translation applies).

    Args:
        exc: What the SDK call raised.
        endpoint: The URL called, for the message.
    """
    chain = _chain(exc)
    for cause in chain:
        if isinstance(cause, ReplyRefused):
            return str(cause), "bad_response", False
    for cause in chain:
        if isinstance(cause, RecursionError):
            return "malformed response: JSON nested too deeply to read", "bad_response", False
        detail = _not_http(cause)
        if detail is not None:
            return f"the server at {endpoint} does not answer in HTTP ({detail})", "not_http", False
    for cause in chain:
        if _reset(cause):
            return f"connection reset by the server at {endpoint}", "connection", True
        if _closed(cause):
            return (
                f"the server at {endpoint} closed the connection without a reply",
                "connection",
                True,
            )
    return None
