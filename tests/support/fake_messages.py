"""What the fake LLM server (:mod:`.fakellm`) receives and answers: a :class:`FakeRequest` as
read off the wire, a :class:`Reply` (text, status, headers, a delay or a dropped connection) and
the default responder, which answers with a small instance of the JSON schema a request asks
for."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HOLD_MAX_S = 120.0
"""The longest a held reply waits for its event: a client that never gives up gets the reply
then (and its test fails on the text), rather than hanging the test."""
OPENAI_CHAT_PATH = "/v1/chat/completions"
ANTHROPIC_MESSAGES_PATH = "/v1/messages"


@dataclass
class FakeRequest:
    """One request received by the fake server.

    Attributes:
        method: HTTP method (``"GET"`` / ``"POST"``).
        path: URL path without the query string, e.g. ``"/v1/chat/completions"``.
        json: Parsed JSON body (``None`` for an empty or non-JSON body).
        headers: Request headers with lower-cased names.
        index: Global, 0-based sequence number of the request on this server.
        received_at: ``time.monotonic()`` when the request was read.
        query: The query string (without ``?``), e.g. ``"api-version=2024-10-21"``.
    """

    method: str
    path: str
    json: Any
    headers: dict[str, str]
    index: int
    received_at: float
    query: str = ""

    @property
    def api(self) -> str:
        """``"openai"``, ``"anthropic"`` or ``"other"``, judged from the path and headers."""
        if self.path == OPENAI_CHAT_PATH or self.is_openai_chat:
            return "openai"
        if self.path == ANTHROPIC_MESSAGES_PATH or "anthropic-version" in self.headers:
            return "anthropic"
        if self.path.startswith("/v1/"):
            return "openai"
        return "other"

    @property
    def is_openai_chat(self) -> bool:
        """A chat completion request (``/v1/chat/completions`` or Azure's deployment path)."""
        return self.path.endswith("/chat/completions")

    @property
    def model(self) -> str:
        """The ``model`` field of the body, or ``"fake-model"``."""
        model = self.json.get("model") if isinstance(self.json, dict) else None
        return model if isinstance(model, str) else "fake-model"

    @property
    def prompt_text(self) -> str:
        """All message text concatenated (system prompt first), separated by newlines."""
        body = self.json if isinstance(self.json, dict) else {}
        parts: list[str] = []
        parts.extend(_texts(body.get("system")))
        for message in body.get("messages") or []:
            if isinstance(message, dict):
                parts.extend(_texts(message.get("content")))
        return "\n".join(p for p in parts if p)

    @property
    def json_schema(self) -> dict[str, Any] | None:
        """The JSON schema the reply must follow: an OpenAI ``response_format`` of type
        ``json_schema``, or the ``input_schema`` of the tool an Anthropic ``tool_choice``
        forces; ``None`` for neither."""
        body = self.json if isinstance(self.json, dict) else {}
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            spec = fmt.get("json_schema") or {}
            schema = spec.get("schema")
            return schema if isinstance(schema, dict) else None
        tool = self.forced_tool
        schema = tool.get("input_schema") if tool is not None else None
        return schema if isinstance(schema, dict) else None

    @property
    def forced_tool(self) -> dict[str, Any] | None:
        """The tool an Anthropic request forces with ``tool_choice`` (``{"type": "tool",
        "name": ...}``), if it is among its ``tools``."""
        body = self.json if isinstance(self.json, dict) else {}
        choice = body.get("tool_choice")
        if not isinstance(choice, dict) or choice.get("type") != "tool":
            return None
        for tool in body.get("tools") or []:
            if isinstance(tool, dict) and tool.get("name") == choice.get("name"):
                return tool
        return None


def _texts(content: Any) -> list[str]:
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        out: list[str] = []
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                out.append(block["text"])
        return out
    return []


@dataclass
class Reply:
    """What the fake server should answer.

    Attributes:
        text: Assistant text for a 200 reply; the error message for other statuses.
        status: HTTP status. Anything but 200 produces an error body in the format of the API
            that was called (OpenAI ``{"error": {...}}`` / Anthropic ``{"type": "error", ...}``).
        headers: Extra response headers (e.g. ``{"Retry-After": "1"}``).
        delay: Seconds to sleep before answering (added to the server's ``latency``).
        body: If given, sent verbatim as the JSON body instead of the generated one.
        input_tokens: Override the reported prompt token count (default: word count).
        output_tokens: Override the reported completion token count (default: word count).
        finish_reason: OpenAI ``finish_reason`` / Anthropic ``stop_reason`` override.
        drop: Close the connection without answering (simulates a connection error).
        hold: Answer only once this event is set (at most :data:`HOLD_MAX_S`): a reply the
            test releases after the client gave up, so that a timeout test never depends on
            a delay outlasting the client's timeout on a slow machine.
    """

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: dict[str, Any] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    drop: bool = False
    hold: threading.Event | None = None

    @classmethod
    def held(cls, until: threading.Event, text: str = "too late") -> Reply:
        """A reply held until ``until`` is set: the client times out first, however slow the
        machine (a test sets the event once the client gave up)."""
        return cls(text=text, hold=until)

    @classmethod
    def rate_limited(cls, retry_after: float = 0.1, *, ms: bool = False) -> Reply:
        """A 429 reply carrying ``Retry-After`` (seconds) or, with ``ms``, ``retry-after-ms``."""
        if ms:
            headers = {"retry-after-ms": str(int(round(retry_after * 1000)))}
        else:
            headers = {"Retry-After": f"{retry_after:g}"}
        return cls(text="Rate limit exceeded (fake).", status=429, headers=headers)

    @classmethod
    def server_error(
        cls, status: int = 500, message: str = "Internal server error (fake)."
    ) -> Reply:
        """A 5xx reply."""
        return cls(text=message, status=status)

    @classmethod
    def error(cls, status: int, message: str, **kwargs: Any) -> Reply:
        """An arbitrary error reply (``kwargs`` are further ``Reply`` fields)."""
        return cls(text=message, status=status, **kwargs)

    @classmethod
    def disconnect(cls, delay: float = 0.0) -> Reply:
        """Close the connection without sending a response."""
        return cls(drop=True, delay=delay)


Responder = Callable[[FakeRequest], "Reply | str | dict[str, Any]"]


def example_from_schema(schema: Any) -> Any:
    """Build a small instance that satisfies a (simple) JSON schema.

    Handles ``type`` object/array/string/integer/number/boolean/null, ``enum``, ``const``,
    ``required``, ``minimum``, ``minItems`` (distinct integers with ``uniqueItems``) and
    ``anyOf``/``oneOf`` (first branch). Good enough
    for a default fake reply; tests that need specific values should script a responder.
    """
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example_from_schema(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties") or {}
        required = schema.get("required") or list(props)
        return {name: example_from_schema(props.get(name, {})) for name in required}
    if kind == "array":
        item = schema.get("items", {})
        n = int(schema.get("minItems", 0))
        if schema.get("uniqueItems") and item.get("type") == "integer":
            return list(range(int(item.get("minimum", 0)), int(item.get("minimum", 0)) + n))
        return [example_from_schema(item) for _ in range(n)]
    if kind == "string":
        return "x" * int(schema.get("minLength", 0))
    if kind == "integer":
        return int(schema.get("minimum", 0))
    if kind == "number":
        return float(schema.get("minimum", 0))
    if kind == "boolean":
        return False
    return None


def default_responder(request: FakeRequest) -> Reply:
    """Answer with an instance of the requested JSON schema, else ``"OK"``."""
    schema = request.json_schema
    if schema is not None:
        return Reply(json.dumps(example_from_schema(schema)))
    return Reply("OK")
