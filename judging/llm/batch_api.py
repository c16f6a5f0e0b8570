"""The providers' batch APIs through the official SDKs: OpenAI Batch and Anthropic Message Batches.

Each adapter wraps the synchronous provider of the same judge (same key handling, base URL,
request body, error translation and redaction) and offers what :mod:`.batching` needs: the
request line of a call, submit, find a batch by medjudge's token, poll, fetch the results.
SDK calls go through :meth:`~.retrying.RetryingProvider.call_sdk` (retries, timeouts, no key in
any message). OpenAI-compatible servers that implement ``/v1/files`` and ``/v1/batches`` work
through ``openai:MODEL@URL``.

Concurrency contract: an adapter belongs to one event loop, like its provider.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from medjudge.judging.llm.provider_types import (
    ChatRequest,
    Provider,
    ProviderConfigError,
    ProviderError,
    read_usage,
    reply_text,
)

if TYPE_CHECKING:
    from medjudge.judging.llm.providers_anthropic import AnthropicProvider
    from medjudge.judging.llm.providers_openai import OpenAIProvider

LIMITS: dict[str, tuple[int, int]] = {
    "openai": (50_000, 200 * 1024 * 1024),
    "anthropic": (100_000, 256 * 1024 * 1024),
}
"""Requests and bytes per batch the providers accept."""

TRANSFER_TIMEOUT = 600.0
"""Seconds per attempt for uploading a batch or downloading its results (up to 200–256 MB)."""


def refused(err: ProviderError) -> bool:
    """Whether a failed create was surely refused (429: not accepted), so it may be retried;
    after a timeout, a dropped connection or a 5xx the batch may exist: never create it twice,
    the next run looks for it by its token instead."""
    return err.status == 429


TOKEN_KEY = "medjudge_token"
"""The metadata key (OpenAI) under which a batch carries medjudge's token."""


@dataclass
class BatchStatus:
    """Where a batch stands at the provider."""

    status: str
    """The provider's own word (``in_progress``, ``completed``, ``expired``, ``ended``, …)."""
    ended: bool
    """Its results (possibly partial) can be fetched."""
    done: int
    total: int
    failure: str | None = None
    """The whole batch was refused (e.g. its file did not validate): no result will come."""
    files: tuple[str, ...] = ()
    """Where its results are (OpenAI's output and error files)."""


@dataclass
class BatchResult:
    """One request's outcome in a finished batch."""

    custom_id: str
    text: str | None
    """The reply's text; ``None`` when the request failed or expired."""
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None
    finish_reason: str | None = None
    """OpenAI's ``finish_reason`` / Anthropic's ``stop_reason``, if reported."""
    usage_unknown: bool = False
    """The token figures were out of bounds (recorded as 0: :func:`.provider_types.read_usage`)."""


class BatchAPI(Protocol):
    """What :mod:`.batching` needs of a provider's batch API."""

    provider: str
    name: str

    def line(self, custom_id: str, req: ChatRequest) -> bytes:
        """One request as it goes into the batch (its size counts toward the byte limit)."""

    async def submit(
        self, lines: list[bytes], token: str, on_file: Callable[[str], None]
    ) -> tuple[str, str]:
        """Submit a batch; returns the provider's id and status. ``on_file(id)`` is called with
        an uploaded input file's id before the batch is created."""

    async def find(self, token: str, custom_ids: list[str], since: datetime) -> str | None:
        """The id of a batch this token's submission created, if the provider has one."""

    async def status(self, batch_id: str) -> BatchStatus:
        """Poll a batch."""

    async def results(self, batch_id: str, status: BatchStatus) -> list[BatchResult]:
        """Every result of an ended batch (requests without a result are left out)."""

    def requests(self) -> int:
        """HTTP requests made so far (attempts included)."""

    async def aclose(self) -> None:
        """Close the client."""


def _openai_page(client: Any, after: str | None) -> Any:
    """One page of OpenAI's batch list (newest first)."""
    return client.batches.list(limit=100, after=after) if after else client.batches.list(limit=100)


def _anthropic_page(client: Any, after: str | None) -> Any:
    """One page of Anthropic's batch list (newest first)."""
    if after:
        return client.messages.batches.list(limit=100, after_id=after)
    return client.messages.batches.list(limit=100)


def _error_text(body: Any) -> str:
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            if isinstance(inner.get("error"), dict):  # Anthropic: {"type": "error", "error": {}}
                inner = inner["error"]
            return str(inner.get("message") or inner.get("type") or inner)
    return str(body)[:300]


class OpenAIBatchAPI:
    """OpenAI Batch: a JSONL file (``purpose=batch``), ``/v1/batches``, output/error files."""

    provider = "openai"

    def __init__(self, sync: OpenAIProvider) -> None:
        """Use the judge's synchronous provider for the body, the client and errors."""
        self.sync = sync
        self.name = sync.name

    def line(self, custom_id: str, req: ChatRequest) -> bytes:
        """One JSONL line: ``{"custom_id", "method", "url", "body"}``."""
        body = self.sync.request_body(req)
        entry = {
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": body,
        }
        return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()

    async def submit(
        self, lines: list[bytes], token: str, on_file: Callable[[str], None]
    ) -> tuple[str, str]:
        """Upload the file, then create the batch with the token in its metadata."""
        client = self.sync.client
        data = b"".join(lines)
        uploaded = await self.sync.call_sdk(
            "upload the batch file",
            lambda: client.files.create(
                file=(f"medjudge-{token}.jsonl", data), purpose="batch", timeout=TRANSFER_TIMEOUT
            ),
            timeout=TRANSFER_TIMEOUT,
        )
        on_file(uploaded.id)
        batch = await self.sync.call_sdk(
            "create the batch",
            lambda: client.batches.create(
                input_file_id=uploaded.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={TOKEN_KEY: token},
            ),
            retry_if=refused,
        )
        return batch.id, batch.status

    async def find(self, token: str, custom_ids: list[str], since: datetime) -> str | None:
        """Page through the batches (newest first) back to shortly before ``since``."""
        client = self.sync.client
        oldest = since.timestamp() - 600
        after: str | None = None
        while True:
            page = await self.sync.call_sdk("list batches", partial(_openai_page, client, after))
            for b in page.data:
                if (b.metadata or {}).get(TOKEN_KEY) == token:
                    return str(b.id)
            if not page.data or not page.has_more or page.data[-1].created_at < oldest:
                return None
            after = page.data[-1].id

    async def status(self, batch_id: str) -> BatchStatus:
        """Ended: completed, expired, cancelled (results may be partial) or failed."""
        b = await self.sync.call_sdk(
            "poll the batch", lambda: self.sync.client.batches.retrieve(batch_id)
        )
        counts = b.request_counts
        done = (counts.completed + counts.failed) if counts else 0
        total = counts.total if counts else 0
        failure = None
        if b.status == "failed":
            errors = (b.errors.data if b.errors else None) or []
            failure = "; ".join(
                f"line {e.line}: {e.message}" if e.line else str(e.message) for e in errors[:3]
            )
            failure = self.sync.scrub(
                f"the provider refused the batch: {failure or 'no reason given'}"
            )
        ended = b.status in ("completed", "expired", "cancelled", "failed")
        files = tuple(f for f in (b.output_file_id, b.error_file_id) if f)
        return BatchStatus(b.status, ended, done, total, failure, files)

    async def results(self, batch_id: str, status: BatchStatus) -> list[BatchResult]:
        """Read the output file and the error file."""
        client = self.sync.client
        out: list[BatchResult] = []
        for file_id in status.files:
            content = await self.sync.call_sdk(
                "download the batch results",
                partial(client.files.content, file_id, timeout=TRANSFER_TIMEOUT),
                timeout=TRANSFER_TIMEOUT,
            )
            for raw in content.text.splitlines():
                if raw.strip():
                    out.append(self._result(json.loads(raw)))
        return out

    def _result(self, entry: dict[str, Any]) -> BatchResult:
        custom_id = str(entry.get("custom_id"))
        response = entry.get("response") or {}
        body = response.get("body") or {}
        if entry.get("error"):
            err = entry["error"]
            code = err.get("code") if isinstance(err, dict) else None
            what = "expired" if code == "batch_expired" else f"failed ({code or 'error'})"
            text = self.sync.scrub(f"batch request {what}: {_error_text(err)}")
            return BatchResult(custom_id, None, error=text)
        status = response.get("status_code")
        if status != 200:
            text = f"batch request failed: HTTP {status}: {_error_text(body)}"
            return BatchResult(custom_id, None, error=self.sync.scrub(text))
        choices = body.get("choices") or []
        message = (choices[0].get("message") or {}) if choices else {}
        text = message.get("content") or message.get("refusal") or ""
        usage = body.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        tokens_in, tokens_out, unknown = read_usage(
            [usage.get("prompt_tokens")], usage.get("completion_tokens")
        )
        return BatchResult(
            custom_id,
            self.sync.scrub(str(text)),
            tokens_in,
            tokens_out,
            finish_reason=choices[0].get("finish_reason") if choices else None,
            usage_unknown=unknown,
        )

    def requests(self) -> int:
        """HTTP requests made so far (attempts included)."""
        return self.sync.sdk_requests

    async def aclose(self) -> None:
        """Close the client."""
        await self.sync.aclose()


class AnthropicBatchAPI:
    """Anthropic Message Batches: ``/v1/messages/batches`` and its JSONL results."""

    provider = "anthropic"

    def __init__(self, sync: AnthropicProvider) -> None:
        """Use the judge's synchronous provider for the body, the client and errors."""
        self.sync = sync
        self.name = sync.name

    def line(self, custom_id: str, req: ChatRequest) -> bytes:
        """One request: ``{"custom_id", "params"}`` (JSON, as it goes into the create body)."""
        entry = {"custom_id": custom_id, "params": self.sync.request_body(req)}
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()

    async def submit(
        self, lines: list[bytes], token: str, on_file: Callable[[str], None]
    ) -> tuple[str, str]:
        """Create the batch (its requests' custom_ids carry the token)."""
        requests = [json.loads(x) for x in lines]
        b = await self.sync.call_sdk(
            "create the batch",
            lambda: self.sync.client.messages.batches.create(
                requests=requests, timeout=TRANSFER_TIMEOUT
            ),
            timeout=TRANSFER_TIMEOUT,
            retry_if=refused,
        )
        return b.id, b.processing_status

    async def find(self, token: str, custom_ids: list[str], since: datetime) -> str | None:
        """Anthropic batches carry no metadata: a batch created since the intent was recorded,
        with as many requests, that this study does not know is the candidate; its results are
        checked against the custom_ids (which carry the token) when collected."""
        client = self.sync.client
        oldest = since.timestamp() - 60
        after: str | None = None
        while True:
            page = await self.sync.call_sdk("list batches", partial(_anthropic_page, client, after))
            candidates = []
            for b in page.data:
                c = b.request_counts
                n = c.processing + c.succeeded + c.errored + c.canceled + c.expired
                if b.created_at.timestamp() >= oldest and n == len(custom_ids):
                    candidates.append(b)
            if candidates:
                return str(min(candidates, key=lambda b: b.created_at).id)
            if not page.data or not page.has_more or page.data[-1].created_at.timestamp() < oldest:
                return None
            after = page.data[-1].id

    async def status(self, batch_id: str) -> BatchStatus:
        """Ended once ``processing_status`` is ``ended``."""
        b = await self.sync.call_sdk(
            "poll the batch", lambda: self.sync.client.messages.batches.retrieve(batch_id)
        )
        c = b.request_counts
        total = c.processing + c.succeeded + c.errored + c.canceled + c.expired
        return BatchStatus(
            b.processing_status, b.processing_status == "ended", total - c.processing, total
        )

    async def results(self, batch_id: str, status: BatchStatus) -> list[BatchResult]:
        """Stream the JSONL results."""
        client = self.sync.client

        async def read() -> list[BatchResult]:
            out = []
            async for entry in await client.messages.batches.results(
                batch_id, timeout=TRANSFER_TIMEOUT
            ):
                out.append(self._result(entry.model_dump()))
            return out

        return await self.sync.call_sdk(
            "download the batch results", read, timeout=TRANSFER_TIMEOUT
        )

    def _result(self, entry: dict[str, Any]) -> BatchResult:
        custom_id = str(entry.get("custom_id"))
        result = entry.get("result") or {}
        kind = result.get("type")
        if kind != "succeeded":
            detail = f": {_error_text(result.get('error'))}" if kind == "errored" else ""
            return BatchResult(
                custom_id, None, error=self.sync.scrub(f"batch request {kind}{detail}")
            )
        message = result.get("message") or {}
        text = reply_text([b for b in message.get("content") or [] if isinstance(b, dict)])
        usage = message.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        tokens_in, tokens_out, unknown = read_usage(
            [
                usage.get(f)
                for f in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            ],
            usage.get("output_tokens"),
        )
        return BatchResult(
            custom_id,
            self.sync.scrub(text),
            tokens_in,
            tokens_out,
            finish_reason=message.get("stop_reason"),
            usage_unknown=unknown,
        )

    def requests(self) -> int:
        """HTTP requests made so far (attempts included)."""
        return self.sync.sdk_requests

    async def aclose(self) -> None:
        """Close the client."""
        await self.sync.aclose()


def make_batch_api(sync: Provider) -> BatchAPI:
    """The batch adapter for a judge's synchronous provider.

    Raises:
        ProviderConfigError: the judge has no batch API (a local model).
    """
    from medjudge.judging.llm.providers_anthropic import AnthropicProvider
    from medjudge.judging.llm.providers_openai import OpenAIProvider

    if isinstance(sync, AnthropicProvider):
        return AnthropicBatchAPI(sync)
    if isinstance(sync, OpenAIProvider):
        return OpenAIBatchAPI(sync)
    raise ProviderConfigError(f"{getattr(sync, 'name', sync)}: this judge has no batch API")
