"""A fake LLM server whose replies go wrong on the wire (issue #43): an endless body, a body
declared larger than any judge reply, JSON nested 100,000 deep, bytes that are not HTTP, a
connection reset (``SO_LINGER`` 0), a redirect, and usage figures missing or unusable.

Which requests go wrong is scripted with ``server.fault``: a function of the request giving a
:class:`Fault` (or ``None``: answered as :class:`~tests.support.fakellm.FakeLLMServer` answers).

Concurrency contract: as for :class:`~tests.support.fakellm.FakeLLMServer`; an endless body is
written until the client hangs up or the server stops.
"""

from __future__ import annotations

import functools
import gzip
import json
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .fakellm import FakeLLMServer, FakeRequest, _Handler

__all__ = ["Fault", "WireServer", "deep_json"]

FaultKind = Literal[
    "endless", "declared_large", "deep", "garbage", "reset", "redirect", "gzip", "gzip_bomb"
]

CHUNK = b" " * 65536


@functools.cache
def gzip_bomb() -> bytes:
    """A gzip body of about 64 KB that unpacks into 64 MB of (the start of) JSON."""
    return gzip.compress(b'{"choices": [' + b" " * (64 << 20), compresslevel=9)


def deep_json(depth: int = 100_000) -> bytes:
    """``{"a":[[[…]]]}`` nested ``depth`` deep."""
    return b'{"a":' + b"[" * depth + b"]" * depth + b"}"


@dataclass(frozen=True)
class Fault:
    """How one reply goes wrong.

    Attributes:
        kind: ``endless`` (a 200 whose body never ends), ``declared_large`` (a 200 declaring a
            200 MB body), ``deep`` (a 200 whose JSON body is nested 100,000 deep), ``garbage``
            (bytes that are not HTTP), ``reset`` (the connection reset, no reply), ``redirect``
            (a 307 to ``location``), ``gzip`` (the normal reply, gzip-compressed), ``gzip_bomb``
            (64 KB of gzip that unpacks into 64 MB).
        location: Where a redirect points (a full URL; the request's path is appended).
        query: The query string the redirect adds.
    """

    kind: FaultKind
    location: str = ""
    query: str = ""


class _WireHandler(_Handler):
    server: Any

    def _handle(self) -> None:
        fake: WireServer = self.server.fake
        _, parsed = self._body()
        path, _, query = self.path.partition("?")
        request = fake._record(
            method=self.command,
            path=path,
            body=parsed,
            headers={k.lower(): v for k, v in self.headers.items()},
            query=query,
        )
        fault = fake.fault(request) if fake.fault is not None else None
        if fault is None:
            status, headers, payload, drop = fake._respond(request)
            if drop:
                self.close_connection = True
                return
            self._reply(status, "application/json", json.dumps(payload).encode(), headers)
            return
        self.close_connection = True
        try:
            self._misbehave(fake, fault, request)
        except OSError:  # the client hung up: what a refused reply looks like from here
            return

    def _misbehave(self, fake: WireServer, fault: Fault, request: FakeRequest) -> None:
        if fault.kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        if fault.kind == "garbage":
            self.wfile.write(b"\x00\xff\xfeSSH-2.0-not-http \x1b[31m\r\n\r\n" * 64)
            self.wfile.flush()
            return
        if fault.kind == "redirect":
            self.send_response(307)
            query = f"?{fault.query}" if fault.query else ""
            self.send_header("Location", fault.location.rstrip("/") + request.path + query)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        if fault.kind == "deep":
            self._reply(200, "application/json", deep_json(), {})
            return
        if fault.kind in ("gzip", "gzip_bomb"):
            if fault.kind == "gzip":
                status, headers, payload, _ = fake._respond(request)
                data = gzip.compress(json.dumps(payload).encode())
            else:
                status, headers, data = 200, {}, gzip_bomb()
            self._reply(status, "application/json", data, {**headers, "Content-Encoding": "gzip"})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if fault.kind == "declared_large":
            self.send_header("Content-Length", str(200 << 20))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b'{"choices": [')
        sent = 0
        while not fake.stopping.is_set() and (fault.kind == "endless" or sent < 200 << 20):
            self.wfile.write(CHUNK)
            sent += len(CHUNK)
            with fake.lock:
                fake.bytes_sent += len(CHUNK)


class WireServer(FakeLLMServer):
    """A :class:`FakeLLMServer` whose ``fault`` requests go wrong (see the module).

    Attributes:
        fault: The fault of a request, or ``None`` for a normal reply.
        usage: What the replies' usage becomes: ``None`` as the fake server reports it,
            ``"missing"`` left out, or a value put in every token field (``-5``, ``"12"``).
    """

    handler = _WireHandler

    def __init__(
        self,
        responder: Callable[[FakeRequest], Any] | None = None,
        *,
        fault: Callable[[FakeRequest], Fault | None] | None = None,
        usage: object = None,
    ) -> None:
        super().__init__(responder)
        self.fault = fault
        self.usage = usage
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.bytes_sent = 0
        """Body bytes written by endless and large replies."""

    def stop(self) -> None:
        """Stop the endless bodies too."""
        self.stopping.set()
        super().stop()

    def _respond(self, request: FakeRequest) -> tuple[int, dict[str, str], dict[str, Any], bool]:
        status, headers, payload, drop = super()._respond(request)
        if self.usage is not None and status == 200 and "usage" in payload:
            if self.usage == "missing":
                del payload["usage"]
            else:
                payload["usage"] = {k: self.usage for k in payload["usage"]}
        return status, headers, payload, drop
