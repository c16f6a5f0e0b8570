"""A scriptable fake LLM server speaking the OpenAI and Anthropic HTTP APIs.

Used by tests to drive the *real* ``openai`` and ``anthropic`` SDKs without network access.

Endpoints:

* ``POST /v1/chat/completions`` -- OpenAI chat completions (non-streaming); also any other
  path ending in ``/chat/completions`` (Azure OpenAI's
  ``/openai/deployments/DEPLOYMENT/chat/completions?api-version=...``).
* ``GET /v1/models`` -- model list (Anthropic-shaped when the ``anthropic-version`` header is
  present, OpenAI-shaped otherwise).
* ``POST /v1/messages`` -- Anthropic messages (non-streaming); a request that forces a tool
  (``tool_choice``) gets a ``tool_use`` block holding the reply when its text is a JSON object.

Anything else answers 404 in the error format of whichever API the request looks like. The
``GET /props`` a judge run asks first answers 404 and stays out of the request log
(:mod:`.llamacpp` serves it).

Scripting::

    with FakeLLMServer(latency=0.05) as server:
        server.responder = lambda req: Reply("hello") if req.index == 0 else Reply.server_error()
        client = openai.AsyncOpenAI(base_url=server.openai_url, api_key="x")
        ...
        assert server.count("/v1/chat/completions") == 1

Concurrency contract: the server is a ``ThreadingHTTPServer``; every connection is handled in
its own daemon thread, so delays (``latency``, ``Reply.delay``, ``Reply.hold``) wait in that
thread and do not serialise other requests (>= 64 concurrent requests are fine). ``responder`` is therefore
called concurrently from several threads and must be thread-safe (pure functions of the
request, or guard shared state with a lock). ``requests`` / ``count()`` are protected by an
internal lock; ``requests`` returns a snapshot copy.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self

from .fake_messages import (
    ANTHROPIC_MESSAGES_PATH,
    HOLD_MAX_S,
    OPENAI_CHAT_PATH,
    FakeRequest,
    Reply,
    Responder,
    default_responder,
    example_from_schema,
)

__all__ = [
    "ANTHROPIC_MESSAGES_PATH",
    "OPENAI_CHAT_PATH",
    "FakeLLMServer",
    "FakeRequest",
    "Reply",
    "Responder",
    "default_responder",
    "example_from_schema",
]

MODELS_PATH = "/v1/models"
PROPS_PATH = "/props"
"""llama.cpp's server properties (``total_slots``), which a judge run asks a self-hosted server
once before its calls: 404 here and not in the request log (:mod:`.llamacpp` serves and logs
it)."""
_CHAT_PATHS = (OPENAI_CHAT_PATH, ANTHROPIC_MESSAGES_PATH)


_ERROR_TYPES_OPENAI = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}
_ERROR_TYPES_ANTHROPIC = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _error_body(api: str, status: int, message: str) -> dict[str, Any]:
    fallback = "invalid_request_error"
    if api == "anthropic":
        kind = _ERROR_TYPES_ANTHROPIC.get(status, "api_error" if status >= 500 else fallback)
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = _ERROR_TYPES_OPENAI.get(status, "server_error" if status >= 500 else fallback)
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _count_tokens(text: str) -> int:
    return max(1, len(text.split())) if text else 0


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(
        self, address: tuple[str, int], fake: FakeLLMServer, handler: type[_Handler]
    ) -> None:
        self.fake = fake
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:  # noqa: ARG002
        """Stay quiet: clients that time out, hang up or are killed are expected in tests."""
        return


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on, the body waits for
    # the client's delayed ACK (~40 ms on Linux) — a latency no real provider adds.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:  # noqa: N802
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def _body(self) -> tuple[bytes, Any]:
        """The request body, raw and as JSON (None when it is not JSON)."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, None

    def _reply(self, status: int, content_type: str, data: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # client gave up (timeout) -- expected in tests
            self.close_connection = True

    def _handle(self) -> None:
        fake = self.server.fake
        _, parsed = self._body()
        path, _, query = self.path.partition("?")
        request = fake._record(
            method=self.command,
            path=path,
            body=parsed,
            headers={k.lower(): v for k, v in self.headers.items()},
            query=query,
        )
        status, headers, payload, drop = fake._respond(request)
        if drop:
            self.close_connection = True
            return
        self._reply(status, "application/json", json.dumps(payload).encode(), headers)


class FakeLLMServer:
    """A threaded fake OpenAI/Anthropic server on ``127.0.0.1`` and a free port.

    Args:
        responder: ``fn(FakeRequest) -> Reply`` (a ``str`` is taken as ``Reply(text)``, a
            ``dict`` as ``Reply(body=...)``). Defaults to :func:`default_responder`. Can be
            replaced at any time through the ``responder`` attribute.
        latency: Seconds every reply is delayed by (in the handler thread).
        models: Model ids listed by ``GET /v1/models``.

    Use as a context manager, or call :meth:`start` / :meth:`stop`.
    """

    handler: ClassVar[type[_Handler]] = _Handler
    """Answers each HTTP request (a subclass serves more endpoints)."""
    logs_props: ClassVar[bool] = False
    """Whether ``GET /props`` goes in the request log (``requests``, ``count()``, ``index``)."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        models: tuple[str, ...] = ("fake-model",),
    ) -> None:
        self.responder: Responder | None = responder
        self.latency = latency
        self.models = models
        self._lock = threading.Lock()
        self._requests: list[FakeRequest] = []
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> Self:
        """Bind the socket and start serving in a daemon thread."""
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(("127.0.0.1", 0), self, self.handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------- addresses
    @property
    def port(self) -> int:
        """The bound TCP port."""
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for ``openai.AsyncOpenAI(base_url=...)`` (ends in ``/v1``)."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_url(self) -> str:
        """Base URL for ``anthropic.AsyncAnthropic(base_url=...)`` (no ``/v1``)."""
        return self.base_url

    # ----------------------------------------------------------------- request log
    @property
    def requests(self) -> list[FakeRequest]:
        """A snapshot of all requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def count(self, path: str | None = None) -> int:
        """Number of requests received, optionally only those to ``path``."""
        with self._lock:
            if path is None:
                return len(self._requests)
            return sum(1 for r in self._requests if r.path == path)

    def clear(self) -> None:
        """Forget the request log (``index`` numbering restarts at 0)."""
        with self._lock:
            self._requests.clear()

    # ----------------------------------------------------------------- internals
    def _record(
        self, *, method: str, path: str, body: Any, headers: dict[str, str], query: str = ""
    ) -> FakeRequest:
        logged = self.logs_props or (method, path) != ("GET", PROPS_PATH)
        with self._lock:
            request = FakeRequest(
                method=method,
                path=path,
                json=body,
                headers=headers,
                index=len(self._requests) if logged else -1,
                received_at=time.monotonic(),
                query=query,
            )
            if logged:
                self._requests.append(request)
        return request

    def _respond(self, request: FakeRequest) -> tuple[int, dict[str, str], dict[str, Any], bool]:
        api = request.api
        if request.path == MODELS_PATH and request.method == "GET":
            reply: Reply = Reply(body=self._models_body(api))
        elif request.method == "POST" and (request.path in _CHAT_PATHS or request.is_openai_chat):
            try:
                reply = _as_reply((self.responder or default_responder)(request))
            except Exception as exc:  # a broken responder should fail loudly in the test
                reply = Reply(text=f"fake responder raised {type(exc).__name__}: {exc}", status=500)
        else:
            reply = Reply(text=f"Unknown path {request.method} {request.path}", status=404)

        if reply.hold is not None:
            reply.hold.wait(HOLD_MAX_S)
        wait = self.latency + reply.delay
        if wait > 0:
            time.sleep(wait)
        if reply.drop:
            return 0, {}, {}, True
        if reply.body is not None:
            payload = reply.body
        elif reply.status != 200:
            payload = _error_body(api, reply.status, reply.text or f"HTTP {reply.status}")
        elif api == "anthropic":
            payload = self._anthropic_body(request, reply)
        else:
            payload = self._openai_body(request, reply)
        return reply.status, dict(reply.headers), payload, False

    def _models_body(self, api: str) -> dict[str, Any]:
        if api == "anthropic":
            data = [
                {
                    "type": "model",
                    "id": m,
                    "display_name": m,
                    "created_at": "2025-01-01T00:00:00Z",
                }
                for m in self.models
            ]
            return {
                "data": data,
                "has_more": False,
                "first_id": self.models[0] if self.models else None,
                "last_id": self.models[-1] if self.models else None,
            }
        models: list[dict[str, Any]] = [
            {"id": m, "object": "model", "created": 0, "owned_by": "fakellm"} for m in self.models
        ]
        return {"object": "list", "data": models}

    @staticmethod
    def _usage(request: FakeRequest, reply: Reply) -> tuple[int, int]:
        n_in = reply.input_tokens
        if n_in is None:
            n_in = _count_tokens(request.prompt_text)
        n_out = reply.output_tokens
        if n_out is None:
            n_out = _count_tokens(reply.text)
        return n_in, n_out

    def _openai_body(self, request: FakeRequest, reply: Reply) -> dict[str, Any]:
        n_in, n_out = self._usage(request, reply)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": reply.finish_reason or "stop",
                }
            ],
            "usage": {
                "prompt_tokens": n_in,
                "completion_tokens": n_out,
                "total_tokens": n_in + n_out,
            },
        }

    def _anthropic_body(self, request: FakeRequest, reply: Reply) -> dict[str, Any]:
        """A message; when the request forces a tool and the reply's text is a JSON object,
        as the API answers then: one ``tool_use`` block whose ``input`` is that object."""
        n_in, n_out = self._usage(request, reply)
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
        stop = reply.finish_reason or "end_turn"
        tool = request.forced_tool
        if tool is not None:
            try:
                value = json.loads(reply.text)
            except ValueError:
                value = None
            if isinstance(value, dict):
                content = [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{uuid.uuid4().hex[:24]}",
                        "name": tool["name"],
                        "input": value,
                    }
                ]
                stop = reply.finish_reason or "tool_use"
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": n_in, "output_tokens": n_out},
        }


def _as_reply(value: Reply | str | dict[str, Any]) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(text=value)
    if isinstance(value, dict):
        return Reply(body=value)
    raise TypeError(f"responder must return Reply, str or dict, not {type(value).__name__}")
