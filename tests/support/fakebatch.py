"""A scriptable fake of the OpenAI Batch API and Anthropic Message Batches, on loopback.

The real ``openai`` and ``anthropic`` SDKs reach it through ``base_url`` (no patching). It also
answers synchronous chat calls exactly like :class:`~tests.support.fakellm.FakeLLMServer` (it is one),
so a batch run and a synchronous run can be compared on the same server and responder.

Endpoints, as the SDKs call them:

* OpenAI: ``POST /v1/files`` (multipart upload, ``purpose=batch``),
  ``GET /v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches/{id}``,
  ``GET /v1/batches`` (cursor pages: ``limit``, ``after``; newest first).
* Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``,
  ``GET /v1/messages/batches/{id}/results`` (JSONL), ``GET /v1/messages/batches``
  (``limit``, ``after_id``; newest first).

Each request of a batch is answered by the same ``responder`` as a synchronous call (it gets a
:class:`~tests.support.fakellm.FakeRequest` whose ``json`` is the request's body). How a batch goes is
scripted per batch with :class:`BatchScript` (``server.script`` is one script for every batch,
or a function of the batch's 0-based number): how many status polls it stays in progress, and
whether it completes, expires (after answering ``done`` of its requests: a partial result) or
fails validation. Replies with a non-200 status become failed requests (OpenAI's error file,
Anthropic's ``errored`` results). Duplicate ``custom_id``s and batches over ``max_requests``
are refused as the providers refuse them.

Concurrency contract: as for :class:`FakeLLMServer`; batch state is guarded by a lock.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fakellm import (
    ANTHROPIC_MESSAGES_PATH,
    OPENAI_CHAT_PATH,
    FakeLLMServer,
    FakeRequest,
    Reply,
    _as_reply,
    _error_body,
    _Handler,
    default_responder,
)

__all__ = ["BatchScript", "FakeBatchServer"]


@dataclass
class BatchScript:
    """How one batch goes.

    Attributes:
        polls: Status polls answered "in progress" before the batch ends.
        outcome: ``completed``, ``expired`` (the 24 h window ran out) or ``failed`` (OpenAI:
            the input file did not validate; nothing is answered).
        done: With ``expired``: how many of its requests were answered before it expired.
        hang_on_create: Seconds to wait before answering the create call — the batch is
            accepted first (a client killed meanwhile never learns its id).
        drop_on_create: Accept the batch, then close the connection without an answer.
    """

    polls: int = 1
    outcome: str = "completed"
    done: int = 0
    hang_on_create: float = 0.0
    drop_on_create: bool = False


@dataclass
class _Batch:
    api: str
    id: str
    number: int
    requests: list[dict[str, Any]]
    metadata: dict[str, str] | None
    input_file_id: str | None
    script: BatchScript
    created_at: float = field(default_factory=time.time)
    polls: int = 0
    status: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[dict[str, Any]] | None = None


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Drop(Exception):
    """Close the connection without an answer."""


class _BatchHandler(_Handler):
    """``_Handler`` plus the files and batches endpoints (``FakeBatchServer.handle_batch``)."""

    def _handle(self) -> None:
        fake = self.server.fake
        assert isinstance(fake, FakeBatchServer)
        raw, parsed = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = fake._record(
            method=self.command, path=self.path.split("?", 1)[0], body=parsed, headers=headers
        )
        fake._extra_headers.value = {}
        try:
            answer = fake.handle_batch(self.command, self.path, headers, raw)
        except _Drop:
            self.close_connection = True
            return
        if answer is not None and fake.latency:
            time.sleep(fake.latency)
        if answer is None:
            status, extra, payload, drop = fake._respond(request)
            if drop:
                self.close_connection = True
                return
            answer = (status, "application/json", json.dumps(payload).encode())
        else:
            extra = fake._extra_headers.value
        self._reply(*answer, extra)


class FakeBatchServer(FakeLLMServer):
    """:class:`FakeLLMServer` plus the files and batches endpoints of both providers.

    Args:
        responder: Answers each request (synchronous or in a batch); see ``FakeLLMServer``.
        script: A :class:`BatchScript` for every batch, or ``fn(batch_number) -> BatchScript``.
        max_requests: Requests a batch may carry (the providers: 50,000 / 100,000).
        latency: Seconds every HTTP reply is delayed by.
    """

    handler = _BatchHandler

    def __init__(
        self,
        responder: Callable[[FakeRequest], Reply | str | dict[str, Any]] | None = None,
        *,
        script: BatchScript | Callable[[int], BatchScript] | None = None,
        max_requests: int = 100_000,
        latency: float = 0.0,
    ) -> None:
        super().__init__(responder, latency=latency)
        self.script = script or BatchScript()
        self.max_requests = max_requests
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self._batch_lock = threading.Lock()
        self.fail_upload: int | None = None
        """Answer every upload (``POST /v1/files``) with this HTTP status (a gateway that
        rejects the upload; with ``retry-after-ms: 1``, so the client's retries are quick)."""
        self._extra_headers = threading.local()
        self.fail_create: int | None = None
        """Answer every batch creation with this HTTP status, creating nothing."""

    # ----------------------------------------------------------------- for tests
    def created(self, api: str | None = None) -> list[_Batch]:
        """Batches created so far (of one API), in creation order."""
        with self._batch_lock:
            return sorted(
                (b for b in self.batches.values() if api is None or b.api == api),
                key=lambda b: b.number,
            )

    def forget(self, batch_id: str) -> None:
        """Forget a batch: from now on it is answered 404, as a provider that lost it."""
        with self._batch_lock:
            del self.batches[batch_id]

    def batch_requests(self) -> list[dict[str, Any]]:
        """Every request sent inside any batch (``custom_id`` and ``body``)."""
        return [r for b in self.created() for r in b.requests]

    # ----------------------------------------------------------------- dispatch
    def _script_for(self, number: int) -> BatchScript:
        s = self.script
        return s(number) if callable(s) else s

    def _answer(self, api: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One request of a batch: (status, response body) as a synchronous call would get."""
        path = OPENAI_CHAT_PATH if api == "openai" else ANTHROPIC_MESSAGES_PATH
        request = FakeRequest("POST", path, body, {}, -1, time.monotonic())
        try:
            reply = _as_reply((self.responder or default_responder)(request))
        except Exception as exc:
            reply = Reply(text=f"fake responder raised {type(exc).__name__}: {exc}", status=500)
        if reply.status != 200:
            return reply.status, _error_body(api, reply.status, reply.text or "error")
        if reply.body is not None:
            return 200, reply.body
        if api == "anthropic":
            return 200, self._anthropic_body(request, reply)
        return 200, self._openai_body(request, reply)

    def handle_batch(
        self, method: str, url: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, str, bytes] | None:
        """Serve a files/batches request; None when the path is not one of them."""
        parts = urlsplit(url)
        path, query = parts.path, {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == "/v1/files" and method == "POST":
            if self.fail_upload is not None:
                return self._failure("openai", self.fail_upload, "upload rejected (fake gateway)")
            return self._upload(headers, raw)
        if method == "POST" and path in ("/v1/batches", "/v1/messages/batches"):
            if self.fail_create is not None:
                api = "openai" if path == "/v1/batches" else "anthropic"
                return self._failure(api, self.fail_create, "batch creation failed (fake)")
        if path.startswith("/v1/files/") and path.endswith("/content") and method == "GET":
            data = self.files.get(path.split("/")[3])
            if data is None:
                return self._json(404, _error_body("openai", 404, "No such file"))
            return 200, "application/octet-stream", data
        if path == "/v1/batches" and method == "POST":
            return self._create_openai(json.loads(raw or b"{}"))
        if path == "/v1/batches" and method == "GET":
            return self._list("openai", int(query.get("limit", 20)), query.get("after"))
        if path.startswith("/v1/batches/") and method == "GET":
            return self._retrieve("openai", path.split("/")[3])
        if path == "/v1/messages/batches" and method == "POST":
            return self._create_anthropic(json.loads(raw or b"{}"))
        if path == "/v1/messages/batches" and method == "GET":
            return self._list("anthropic", int(query.get("limit", 20)), query.get("after_id"))
        if path.startswith("/v1/messages/batches/"):
            bits = path.split("/")
            if len(bits) == 6 and bits[5] == "results":
                return self._anthropic_results(bits[4])
            return self._retrieve("anthropic", bits[4])
        return None

    @staticmethod
    def _json(status: int, payload: Any) -> tuple[int, str, bytes]:
        return status, "application/json", json.dumps(payload).encode()

    def _failure(self, api: str, status: int, message: str) -> tuple[int, str, bytes]:
        """An error answer that the client may retry at once (``retry-after-ms: 1``)."""
        self._extra_headers.value = {"retry-after-ms": "1"}
        return self._json(status, _error_body(api, status, message))

    # ----------------------------------------------------------------- OpenAI
    def _upload(self, headers: dict[str, str], raw: bytes) -> tuple[int, str, bytes]:
        head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields: dict[str, bytes] = {}
        filename = "upload"
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
                filename = part.get_filename() or filename
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return self._json(400, _error_body("openai", 400, "purpose must be batch"))
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        with self._batch_lock:
            self.files[file_id] = fields["file"]
        body = {
            "id": file_id,
            "object": "file",
            "bytes": len(fields["file"]),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": "batch",
            "status": "processed",
        }
        return self._json(200, body)

    def _create_openai(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        data = self.files.get(body.get("input_file_id", ""))
        if data is None:
            return self._json(400, _error_body("openai", 400, "input_file_id not found"))
        lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        errors: list[dict[str, Any]] = []
        seen: set[str] = set()
        for n, line in enumerate(lines, start=1):
            if line.get("url") != body.get("endpoint") or line.get("method") != "POST":
                errors.append({"code": "invalid_url", "line": n, "message": "wrong url"})
            if line.get("custom_id") in seen:
                errors.append({"code": "duplicate_custom_id", "line": n, "message": "duplicate"})
            seen.add(line.get("custom_id"))
        if len(lines) > self.max_requests:
            errors.append({"code": "too_many_requests", "line": None, "message": "too many"})
        batch = self._register("openai", lines, body.get("metadata"), body["input_file_id"])
        with self._batch_lock:
            if errors or batch.script.outcome == "failed":
                batch.status = "failed"
                batch.errors = errors or [{"code": "invalid", "line": 1, "message": "scripted"}]
        self._hang(batch)
        return self._json(200, self._openai_batch(batch))

    def _register(
        self, api: str, requests: list[dict[str, Any]], metadata: Any, file_id: str | None
    ) -> _Batch:
        with self._batch_lock:
            number = len(self.batches)
            prefix = "batch_" if api == "openai" else "msgbatch_"
            batch = _Batch(
                api=api,
                id=f"{prefix}{uuid.uuid4().hex[:24]}",
                number=number,
                requests=requests,
                metadata=metadata,
                input_file_id=file_id,
                script=self._script_for(number),
                status="validating" if api == "openai" else "in_progress",
            )
            self.batches[batch.id] = batch
        return batch

    def _hang(self, batch: _Batch) -> None:
        if batch.script.hang_on_create:
            time.sleep(batch.script.hang_on_create)
        if batch.script.drop_on_create:
            raise _Drop

    def _advance(self, batch: _Batch) -> None:
        """One status poll: stay in progress, or end as scripted and compute the results."""
        with self._batch_lock:
            if batch.status in ("failed", "completed", "expired", "ended"):
                return
            batch.polls += 1
            if batch.polls <= batch.script.polls:
                batch.status = "in_progress"
                return
        expired = batch.script.outcome == "expired"
        answered = batch.requests[: batch.script.done] if expired else batch.requests
        results = []
        for r in answered:
            body = r["body"] if batch.api == "openai" else r["params"]
            status, payload = self._answer(batch.api, body)
            results.append({"custom_id": r["custom_id"], "status": status, "body": payload})
        with self._batch_lock:
            batch.results = results
            if batch.api == "anthropic":
                batch.status = "ended"
                return
            batch.status = "expired" if expired else "completed"
            ok: list[dict[str, Any]] = []
            bad: list[dict[str, Any]] = []
            for res in results:
                line = {
                    "id": f"batch_req_{uuid.uuid4().hex[:16]}",
                    "custom_id": res["custom_id"],
                    "response": {
                        "status_code": res["status"],
                        "request_id": uuid.uuid4().hex,
                        "body": res["body"],
                    },
                    "error": None,
                }
                (ok if res["status"] == 200 else bad).append(line)
            for r in batch.requests[len(answered) :]:
                bad.append(
                    {
                        "id": f"batch_req_{uuid.uuid4().hex[:16]}",
                        "custom_id": r["custom_id"],
                        "response": None,
                        "error": {
                            "code": "batch_expired",
                            "message": "This request could not be executed before the "
                            "completion window expired.",
                        },
                    }
                )
            for lines, attr in ((ok, "output_file_id"), (bad, "error_file_id")):
                if lines:
                    file_id = f"file-{uuid.uuid4().hex[:24]}"
                    self.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                    setattr(batch, attr, file_id)

    def _openai_batch(self, b: _Batch) -> dict[str, Any]:
        n_ok = sum(1 for r in b.results if r["status"] == 200)
        ended = b.status in ("completed", "expired", "failed")
        return {
            "id": b.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": {"object": "list", "data": b.errors} if b.errors else None,
            "input_file_id": b.input_file_id,
            "completion_window": "24h",
            "status": b.status,
            "output_file_id": b.output_file_id,
            "error_file_id": b.error_file_id,
            "created_at": int(b.created_at),
            "in_progress_at": int(b.created_at) if b.polls else None,
            "expires_at": int(b.created_at) + 86400,
            "completed_at": int(time.time()) if b.status == "completed" else None,
            "expired_at": int(time.time()) if b.status == "expired" else None,
            "failed_at": int(time.time()) if b.status == "failed" else None,
            "request_counts": {
                "total": len(b.requests),
                "completed": n_ok if ended else 0,
                "failed": len(b.requests) - n_ok if ended and b.status != "failed" else 0,
            },
            "metadata": b.metadata,
        }

    # ----------------------------------------------------------------- Anthropic
    def _create_anthropic(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        requests = body.get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if len(set(ids)) != len(ids):
            return self._json(400, _error_body("anthropic", 400, "custom_id values must be unique"))
        if not requests or len(requests) > self.max_requests:
            return self._json(400, _error_body("anthropic", 400, "too many requests"))
        batch = self._register("anthropic", requests, None, None)
        self._hang(batch)
        return self._json(200, self._anthropic_batch(batch))

    def _anthropic_batch(self, b: _Batch) -> dict[str, Any]:
        ended = b.status == "ended"
        ok = sum(1 for r in b.results if r["status"] == 200)
        counts = {
            "processing": 0 if ended else len(b.requests),
            "succeeded": ok,
            "errored": len(b.results) - ok,
            "canceled": 0,
            "expired": len(b.requests) - len(b.results) if ended else 0,
        }
        return {
            "id": b.id,
            "type": "message_batch",
            "processing_status": b.status,
            "request_counts": counts,
            "created_at": _iso(b.created_at),
            "expires_at": _iso(b.created_at + 86400),
            "ended_at": _iso(time.time()) if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.base_url}/v1/messages/batches/{b.id}/results" if ended else None,
        }

    def _anthropic_results(self, batch_id: str) -> tuple[int, str, bytes]:
        b = self.batches.get(batch_id)
        if b is None or b.status != "ended":
            return self._json(404, _error_body("anthropic", 404, "no results"))
        lines = []
        for r in b.results:
            if r["status"] == 200:
                result: dict[str, Any] = {"type": "succeeded", "message": r["body"]}
            else:
                result = {"type": "errored", "error": r["body"]}
            lines.append({"custom_id": r["custom_id"], "result": result})
        for r in b.requests[len(b.results) :]:
            lines.append({"custom_id": r["custom_id"], "result": {"type": "expired"}})
        data = "".join(json.dumps(x) + "\n" for x in lines).encode()
        return 200, "application/binary", data

    # ----------------------------------------------------------------- both
    def _retrieve(self, api: str, batch_id: str) -> tuple[int, str, bytes]:
        b = self.batches.get(batch_id)
        if b is None or b.api != api:
            return self._json(404, _error_body(api, 404, f"No batch {batch_id}"))
        self._advance(b)
        return self._json(
            200, self._openai_batch(b) if api == "openai" else self._anthropic_batch(b)
        )

    def _list(self, api: str, limit: int, after: str | None) -> tuple[int, str, bytes]:
        newest_first = [b for b in reversed(self.created(api))]
        start = 0
        if after is not None:
            start = next((i + 1 for i, b in enumerate(newest_first) if b.id == after), 0)
        page = newest_first[start : start + limit]
        shape = self._openai_batch if api == "openai" else self._anthropic_batch
        data = [shape(b) for b in page]
        body: dict[str, Any] = {
            "data": data,
            "has_more": start + limit < len(newest_first),
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
        }
        if api == "openai":
            body["object"] = "list"
        return self._json(200, body)
