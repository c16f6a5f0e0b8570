"""Judge calls through the providers' batch APIs (``medjudge judge --batch``).

Storage and kill-safety contract (#14; the tables: :mod:`medjudge.store.batches`):
- A run first polls the batches the study already has for its judges and collects every
  finished one into the call cache (``judge_calls``, the same cache keys as synchronous calls);
  then it sends only the calls that are neither cached nor in an open batch.
- Every batch is recorded with its calls and a fresh token *before* it is submitted; the
  provider's id is recorded as soon as it is known. A batch still recorded as ``intent`` (the
  command died between the two, or the provider's answer was lost) is first looked for at the
  provider — OpenAI by the token in its metadata, Anthropic by its creation time and size, its
  results checked against the token in every ``custom_id`` — and submitted again only when the
  provider has no such batch. So a killed command never submits a batch twice, and a run after
  everything is collected makes no request at all.
- One batch carries a cache key once (both providers refuse duplicate ``custom_id``\\ s), and
  no more requests or bytes than the provider accepts (:data:`.batch_api.LIMITS`).
- A request that failed or expired becomes a failed sample (``--retry-failed`` sends it again,
  in a new batch); a batch the provider refused frees its calls and fails the run.
- Costs are at batch prices (:data:`.pricing.BATCH_DISCOUNT`); ``--max-cost`` holds the
  worst-case cost of what a run submits.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from medjudge.judging.llm.batch_api import LIMITS, BatchAPI, BatchResult, make_batch_api
from medjudge.judging.llm.calls import LocalCostGuard, call_row, chat_request, parse_text
from medjudge.judging.llm.pricing import Price, estimate_tokens
from medjudge.judging.llm.provider_types import (
    PLACEHOLDER_KEY,
    ProviderConfigError,
    ProviderError,
)
from medjudge.judging.llm.providers import make_provider
from medjudge.judging.protocol import replies
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig
from medjudge.store import batches as store
from medjudge.store.judgments import cached_calls
from medjudge.store.study import Study, dumps, utcnow


@runtime_checkable
class BatchProgress(Protocol):
    """A display that can show batches in progress (the CLI's bar; optional for others)."""

    def batch_progress(self, done: int, total: int, pending: int) -> None:
        """Requests the provider reports done of those in ``pending`` open batches."""


@dataclass(frozen=True)
class PlannedBatch:
    """A batch about to be submitted: its token, calls and their request lines."""

    judge: JudgeConfig
    token: str
    calls: list[CallSpec]
    lines: list[bytes]

    @property
    def n_bytes(self) -> int:
        """Its size as the provider counts it."""
        return sum(len(x) for x in self.lines)


def custom_id(token: str, key: str) -> str:
    """The id of a call inside a batch: the batch's token and the cache key's first 48 hex
    digits (64 characters at most, as Anthropic requires)."""
    return f"{token}-{key[:48]}"


def new_token() -> str:
    """A fresh batch token (12 hex digits)."""
    return secrets.token_hex(6)


def split(
    judge: JudgeConfig,
    calls: Sequence[CallSpec],
    api: BatchAPI,
    max_requests: int,
    max_bytes: int,
) -> list[PlannedBatch]:
    """One judge's calls in batches under the limits, each cache key once."""
    out: list[PlannedBatch] = []
    seen: set[str] = set()
    cur: list[CallSpec] = []
    lines: list[bytes] = []
    size = 0
    token = new_token()
    json_schema = api.provider == "openai"
    for c in calls:
        if c.key in seen:
            continue
        seen.add(c.key)
        line = api.line(custom_id(token, c.key), chat_request(c, json_schema))
        if cur and (len(cur) >= max_requests or size + len(line) > max_bytes):
            out.append(PlannedBatch(judge, token, cur, lines))
            cur, lines, size, token = [], [], 0, new_token()
            line = api.line(custom_id(token, c.key), chat_request(c, json_schema))
        cur.append(c)
        lines.append(line)
        size += len(line)
    if cur:
        out.append(PlannedBatch(judge, token, cur, lines))
    return out


def _payload(call: CallSpec, retry: bool) -> dict[str, Any]:
    """What a batch call keeps until collected; its messages are in its request line."""
    row = call_row(call)
    keep = ("judge", "provider", "model", "template", "template_hash", "params")
    return {
        **{k: row[k] for k in keep},
        "item_id": call.item_id,
        "task": call.task,
        "sample": call.sample,
        "kind": call.kind,
        "parse_args": call.parse_args,
        "retry": retry,
    }


def messages_of(provider: str, line: str) -> str:
    """The stored form of a call's messages (as a synchronous call stores them), read back
    from its request line."""
    entry = json.loads(line)
    if provider == "anthropic":
        params = entry["params"]
        system = str(params.get("system", ""))
        user = [m for m in params["messages"] if m["role"] == "user"]
    else:
        body = entry["body"]["messages"]
        system = next((str(m["content"]) for m in body if m["role"] == "system"), "")
        user = [m for m in body if m["role"] == "user"]
    return dumps(
        [{"role": "system", "content": system}]
        + [{"role": "user", "content": m["content"]} for m in user]
    )


def _row(
    key: str, p: dict[str, Any], result: BatchResult | None, price: Price, run_id: int | None
) -> dict[str, Any]:
    """The ``judge_calls`` row of one batch request's outcome."""
    row: dict[str, Any] = {
        "key": key,
        **{k: p[k] for k in ("judge", "provider", "model", "template", "template_hash")},
        "params": p["params"],
        "messages": messages_of(p["provider"], p["line"]),
        "item_id": p["item_id"],
        "task": p["task"],
        "sample": p["sample"],
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "latency_s": 0.0,
        "attempts": 1,
        "raw": None,
        "parsed": None,
        "error": None,
        "created_at": utcnow(),
        "status": "failed",
        "run_id": run_id,
        "retry": p.get("retry", False),
    }
    if result is None:
        row["error"] = "batch request: the provider returned no result for it"
        return row
    if result.text is None:
        row["error"] = result.error or "batch request failed"
        return row
    row.update(
        raw=result.text,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        cost_usd=price.cost(result.input_tokens, result.output_tokens),
    )
    try:
        parsed = parse_text(p["kind"], p["parse_args"], result.text)
    except replies.ReplyError as exc:
        row["error"] = f"unparseable reply: {exc}"
        return row
    row.update(status="ok", parsed=dumps(parsed))
    return row


class BatchRun:
    """One ``judge --batch`` run: poll, collect, submit, and with ``wait`` poll until done."""

    def __init__(
        self,
        study: Study,
        judges: Sequence[JudgeConfig],
        options: Any,
        prices: dict[str, Price],
        summary: Any,
        run_id: int | None,
        display: Any,
    ) -> None:
        """``options``/``summary``: the runner's RunOptions and RunSummary."""
        self.study = study
        self.judges = [j for j in judges]
        self.options = options
        self.prices = {name: p.batch() for name, p in prices.items()}
        self.summary = summary
        self.run_id = run_id
        self.display = display
        self.apis: dict[str, BatchAPI] = {}
        self.dry_run = False

    def limits(self, provider: str) -> tuple[int, int]:
        """Requests and bytes per batch (the provider's, or smaller ones from the options)."""
        n, size = LIMITS[provider]
        return (
            min(n, self.options.batch_max_requests or n),
            min(size, self.options.batch_max_bytes or size),
        )

    async def open(self, *, dry_run: bool = False) -> None:
        """Check the judges; their clients are made when first needed, so a run with nothing
        to poll or send loads no SDK and needs no key (nor does a dry run: it sends nothing).

        Raises:
            ProviderConfigError: a local judge (it has no batch API).
        """
        for j in self.judges:
            if j.spec.provider == "local":
                raise ProviderConfigError(
                    f"{j.rater}: --batch needs an OpenAI or Anthropic judge (or a compatible "
                    "server with a batch API); a local model has none"
                )
        self.dry_run = dry_run

    def api(self, rater: str) -> BatchAPI:
        """The batch client of a judge (made on first use).

        Raises:
            ProviderConfigError: no API key for the judge's provider.
        """
        if rater not in self.apis:
            j = next(j for j in self.judges if j.rater == rater)
            keys = {"openai": PLACEHOLDER_KEY, "anthropic": PLACEHOLDER_KEY}
            sync = make_provider(
                j.spec,
                api_keys=keys if self.dry_run else self.options.api_keys,
                timeout=self.options.timeout_s,
                max_retries=self.options.max_retries,
            )
            self.apis[rater] = make_batch_api(sync)
        return self.apis[rater]

    async def aclose(self) -> None:
        """Close the clients and count their HTTP requests into the summary."""
        for api in self.apis.values():
            self.summary.requests += api.requests()
            await api.aclose()

    # ------------------------------------------------------------------ planning
    def missing(self, calls: Sequence[CallSpec]) -> list[CallSpec]:
        """Calls neither cached nor in an open batch (each key once)."""
        stored = cached_calls(self.study, {c.key for c in calls})
        flying = store.keys_in_flight(self.study, [j.rater for j in self.judges])
        again = ("error", "failed") if self.options.retry_failed else ("error",)
        out: dict[str, CallSpec] = {}
        for c in calls:
            if c.key in flying or c.key in out:
                continue
            if c.key not in stored or stored[c.key].status in again:
                out[c.key] = c
        return list(out.values())

    def plan(self, todo: Sequence[CallSpec]) -> list[PlannedBatch]:
        """The batches that would carry ``todo``, per judge, under the limits."""
        out: list[PlannedBatch] = []
        for j in self.judges:
            mine = [c for c in todo if c.judge.rater == j.rater]
            if not mine:
                continue
            api = self.api(j.rater)
            out += split(j, mine, api, *self.limits(api.provider))
        return out

    # ------------------------------------------------------------------ the run
    async def run(self, calls: Sequence[CallSpec]) -> str:
        """Collect, submit what is missing and (with ``wait``) wait; returns the run's status:
        ``done``, ``pending`` (batches still at the provider), ``stopped`` (``--max-cost``) or
        ``failed``."""
        await self.poll_all()
        if self.summary.failure:
            return "failed"
        todo = self.missing(calls)
        stopped = await self.submit(self.plan(todo))
        if self.summary.failure:
            return "failed"
        while self.options.batch_wait and self.pending():
            await asyncio.sleep(self.options.batch_poll_s)
            await self.poll_all()
            if self.summary.failure:
                return "failed"
        self.summary.batches_pending = len(self.pending())
        if stopped:
            self.summary.stopped = f"--max-cost {self.options.max_cost:g} reached"
            return "stopped"
        return "pending" if self.summary.batches_pending else "done"

    def pending(self) -> list[store.Batch]:
        """Open batches of this run's judges."""
        return store.open_batches(self.study, [j.rater for j in self.judges])

    async def submit(self, planned: list[PlannedBatch]) -> bool:
        """Record and submit each batch; True when ``--max-cost`` kept some back."""
        guard = LocalCostGuard(self.options.max_cost)
        for pb in planned:
            price = self.prices[pb.judge.rater]
            keep: list[int] = []
            for i, c in enumerate(pb.calls):
                worst = price.cost(estimate_tokens(c.system + c.user), c.judge.max_tokens)
                if not guard.reserve(worst):
                    break
                keep.append(i)
            if not keep:
                break
            calls, lines, token = pb.calls[: len(keep)], pb.lines[: len(keep)], pb.token
            api = self.api(pb.judge.rater)
            rows = [
                store.BatchCall(
                    c.key,
                    custom_id(token, c.key),
                    {**_payload(c, self.options.retry_failed), "line": line.decode()},
                )
                for c, line in zip(calls, lines, strict=True)
            ]
            batch_id = store.record_intent(
                self.study,
                judge=pb.judge.rater,
                provider=api.provider,
                token=token,
                calls=rows,
                n_bytes=sum(len(x) for x in lines),
                run_id=self.run_id,
            )
            if not await self._send(api, batch_id, token, lines):
                return False
            self.summary.batches_submitted += 1
            self.summary.to_call_batched += len(calls)
            if len(keep) < len(pb.calls):
                break
        return guard.stopped()

    async def _send(self, api: BatchAPI, batch_id: int, token: str, lines: list[bytes]) -> bool:
        """Submit one recorded batch; False (and the run's failure) when it could not be."""
        try:
            provider_id, status = await api.submit(
                lines, token, lambda fid: store.record_file(self.study, batch_id, fid)
            )
        except ProviderError as exc:
            if exc.status is not None and not exc.retryable:
                store.record_failed(self.study, batch_id, str(exc))  # refused: nothing to find
            # else: the provider may have accepted it; the next run looks for it by its token
            self.summary.failure = f"submitting a batch failed: {exc}"
            return False
        store.record_submitted(self.study, batch_id, provider_id, status)
        return True

    async def poll_all(self) -> None:
        """Poll every open batch once and collect the finished ones."""
        done = total = 0
        open_now = self.pending()
        for b in open_now:
            api = self.api(b.judge)
            try:
                counts = await self.poll(api, b)
            except ProviderError as exc:
                self.summary.failure = f"polling batch {b.provider_id or b.token} failed: {exc}"
                return
            done += counts[0]
            total += counts[1]
        if isinstance(self.display, BatchProgress) and open_now:
            self.display.batch_progress(done, total, len(self.pending()))

    async def poll(self, api: BatchAPI, b: store.Batch) -> tuple[int, int]:
        """One batch: find it (``intent``), poll it, collect it when it ended.

        Returns:
            Its requests done and in all while it stays at the provider; (0, 0) once collected.
        """
        provider_id = b.provider_id
        calls = store.batch_calls(self.study, b.id)
        if provider_id is None:
            since = datetime.fromisoformat(b.created_at.replace("Z", "+00:00"))
            found = await api.find(b.token, [c.custom_id for c in calls], since)
            known = {x.provider_id for x in store.all_batches(self.study)}
            if found is not None and found not in known:
                store.record_submitted(self.study, b.id, found, "found")
                self.summary.batches_found += 1
                provider_id = found
            else:
                lines = [c.call["line"].encode() for c in calls]
                if await self._send(api, b.id, b.token, lines):
                    self.summary.batches_submitted += 1
                return 0, len(calls)
        status = await api.status(provider_id)
        if status.failure:
            store.record_failed(self.study, b.id, status.failure)
            self.summary.failure = f"batch {provider_id}: {status.failure}"
            return 0, 0
        store.record_status(self.study, b.id, status.status, ended=status.ended)
        if not status.ended:
            return status.done, status.total
        results = {r.custom_id: r for r in await api.results(provider_id, status)}
        if results and not any(c.custom_id in results for c in calls):
            # An adopted Anthropic batch whose requests are not this batch's (custom_ids carry
            # the token): not ours, so this batch's calls are free to be sent again.
            store.record_failed(
                self.study, b.id, f"batch {provider_id} carried none of this batch's calls"
            )
            return 0, 0
        price = self.prices.get(b.judge, Price(0.0, 0.0))
        rows = [_row(c.key, c.call, results.get(c.custom_id), price, self.run_id) for c in calls]
        started = time.monotonic()
        store.record_collected(self.study, b.id, rows)
        self.summary.batches_collected += 1
        self.summary.collect_s += time.monotonic() - started
        for row in rows:
            self._account(row)
        return 0, 0  # collected: no longer at the provider

    def _account(self, row: dict[str, Any]) -> None:
        from medjudge.judging.llm.runner import CallEvent, account

        row = {**row, "attempts": 0}  # a batch request is not an HTTP request of this run
        account(self.summary, row)
        if self.display is not None:
            self.display.call_done(
                CallEvent(row["judge"], row["task"], row["status"], row["cost_usd"]), self.summary
            )
