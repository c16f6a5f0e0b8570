"""The fake LLM server as a llama.cpp server (``llama-server``): slots and ``GET /props``.

llama.cpp's server decodes ``total_slots`` sequences at once (``--parallel``) and queues every
request beyond them inside the server: a queued request is never refused, it waits its turn
while the client's timeout runs. :class:`LlamaCppServer` answers ``GET /props`` with the JSON
it is given (``None``: 404, as vLLM and Ollama answer), and logs it (the plain fake server
answers it 404 and leaves it out of its log); :class:`ServerSlots` is a responder
that works on at most ``slots`` requests at once and queues the others, and records the most
requests the server had at once (queued ones included).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from .fakellm import FakeLLMServer, FakeRequest, Reply, Responder

__all__ = ["LlamaCppServer", "ServerSlots", "props"]


def props(total_slots: object) -> dict[str, Any]:
    """A ``/props`` body as llama.cpp's server sends it (the fields a client may read)."""
    return {
        "default_generation_settings": {"n_ctx": 4096},
        "total_slots": total_slots,
        "model_alias": "fake-model",
        "build_info": "b0000-fake",
    }


class LlamaCppServer(FakeLLMServer):
    """The fake OpenAI/Anthropic server plus llama.cpp's ``GET /props``.

    Args:
        responder: As :class:`~.fakellm.FakeLLMServer`'s.
        props: The JSON ``GET /props`` answers (see :func:`props`); ``None``: 404.
    """

    logs_props = True

    def __init__(self, responder: Responder | None = None, *, props: Any = None) -> None:
        super().__init__(responder)
        self.props = props

    def _respond(self, request: FakeRequest) -> tuple[int, dict[str, str], dict[str, Any], bool]:
        if request.method == "GET" and request.path == "/props" and self.props is not None:
            return 200, {}, self.props, False
        return super()._respond(request)

    def chat_requests(self) -> list[FakeRequest]:
        """The chat requests received (OpenAI's and Anthropic's), in arrival order."""
        return [r for r in self.requests if r.method == "POST"]


class ServerSlots:
    """A responder working on at most ``slots`` requests at once, as llama.cpp does: the others
    wait in the server, never refused.

    The first requests hold their slot until ``crowd`` requests are at the server at once (an
    event, not a timer, ``wait_s`` at most), so a client that sends more at once is always
    seen doing it; each request then works ``work_s`` in its slot before it is answered.

    Attributes:
        most: The most requests the server had at once (working and queued).
        bodies: Each request's body as canonical JSON, in arrival order.
    """

    def __init__(
        self,
        answer: Callable[[FakeRequest], Reply],
        slots: int,
        *,
        crowd: int | None = None,
        work_s: float = 0.0,
        wait_s: float = 10.0,
    ) -> None:
        self.answer, self.work_s, self.wait_s = answer, work_s, wait_s
        self.crowd = slots if crowd is None else crowd
        self.places = threading.Semaphore(slots)
        self.lock = threading.Lock()
        self.at_server = self.most = 0
        self.bodies: list[str] = []
        self.crowded = threading.Event()
        self.closing = threading.Event()

    def __call__(self, req: FakeRequest) -> Reply:
        with self.lock:
            self.at_server += 1
            self.most = max(self.most, self.at_server)
            self.bodies.append(json.dumps(req.json, sort_keys=True))
            if self.at_server >= self.crowd:
                self.crowded.set()
        try:
            with self.places:  # queued in the server until a slot is free
                self.crowded.wait(timeout=self.wait_s)
                self.closing.wait(timeout=self.work_s)  # the request's work, in its slot
                return self.answer(req)
        finally:
            with self.lock:
                self.at_server -= 1
