"""Making judge calls: one call with its parse retries, the writer that commits each result,
the cost guard, and the bounded-concurrency loop.

Concurrency and storage contract:
- Calls run as asyncio tasks bounded by a semaphore; providers retry 429/5xx with backoff
  that honours ``Retry-After``, each attempt under a timeout. Each judge's attempts in flight
  are bounded by an :class:`~.adaptive.AdaptiveLimit`: halved while its server answers 429/503
  or times out, grown back slowly as it answers; a self-hosted server that reported fewer
  slots than ``concurrency`` (:mod:`.server_slots`) gets one limit of that many for all its
  judges. Waiting for the semaphore or a limit spends no timeout: each attempt's timeout
  starts once it has its slot (:mod:`.retrying`).
- Every result is handed to :class:`CallWriter`, which commits it on its own connection at the
  end of the event loop's turn (WAL, ``synchronous=NORMAL``: durable when the process is
  killed), so a killed run resumes without paying again for anything it had received. A call
  keeps its concurrency slot until its row is committed, so at any moment at most
  ``concurrency`` calls are paid-for-but-unrecorded (what a kill can make a resumed run pay
  again).
- When a result cannot be stored (disk full, file damaged) no further call is started, and
  the run ends with that :class:`~medjudge.store.db.StudyError`: nothing is paid that cannot
  be kept.
- The cost guard reserves each call's worst-case cost before it starts, so ``max_cost``
  holds however many calls are in flight (and, with :class:`SharedCostGuard`, however many
  worker processes share the run).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from medjudge.judging.llm.adaptive import AdaptiveLimit
from medjudge.judging.llm.key_routing import KeyRing
from medjudge.judging.llm.pricing import Price, estimate_tokens, unreported_usage
from medjudge.judging.llm.providers import ChatRequest, Provider, ProviderError, make_provider
from medjudge.judging.llm.server_slots import endpoint_of
from medjudge.judging.protocol import replies
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig
from medjudge.store.db import (
    BUSY_TIMEOUT_MS,
    StudyError,
    connect,
    set_lock_wait,
    transaction,
    try_begin,
)
from medjudge.store.json_types import JsonObject
from medjudge.store.judgments import TOO_LONG, CallRow, record_call
from medjudge.store.study import dumps, utcnow


class CallWriter:
    """Commits call results on the event loop's own connection: the rows that arrive within one
    turn of the loop are committed together, in one small transaction, right after it.

    A thread with its own connection did this before; every row then crossed to that thread
    and back (each way waiting for the interpreter lock), and the calls' slots stayed taken
    meanwhile: 13% of the slots of a 64-wide run were waiting on a commit, not on the network.
    A WAL commit with ``synchronous=NORMAL`` writes no more than the rows and does not
    wait for the disk, so committing on the loop costs less than handing over.
    """

    def __init__(self, study_path: str) -> None:
        """Open a dedicated connection to the study."""
        self.path = study_path
        self.conn = connect(study_path, synchronous="NORMAL")
        set_lock_wait(self.conn, 0)  # the event loop never waits for the write lock
        self.error: BaseException | None = None
        self._rows: list[CallRow] = []
        self._futures: list[asyncio.Future[None]] = []
        self._scheduled = False
        self._busy_since: float | None = None

    def submit(self, row: CallRow) -> asyncio.Future[None]:
        """Queue a row; the future is done once the row is committed (or could not be)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        self._rows.append(row)
        self._futures.append(future)
        return future

    def _flush(self) -> None:
        """Commit the rows queued so far; after a write error, only settle.

        The loop never waits for the write lock: while another connection holds it (the
        verdicts being written, another process), the rows wait for a later turn, and calls
        whose replies are in go on being read meanwhile.
        """
        self._scheduled = False
        if not self._rows:
            return
        if self.error is None:
            try:
                if not try_begin(self.conn):
                    self._retry_later()
                    return
                self._busy_since = None
                self._write(begun=True)
            except BaseException as exc:  # reported by close(); no further call starts
                self.error = exc
        self._settle()

    def _write(self, *, begun: bool) -> None:
        """The queued rows in one transaction (``begun``: by :func:`try_begin`)."""
        with transaction(self.conn, self.path, begun=begun):
            for row in self._rows:
                record_call(self.conn, row)

    def _retry_later(self) -> None:
        now = time.monotonic()
        if self._busy_since is None:
            self._busy_since = now
        if now - self._busy_since > BUSY_TIMEOUT_MS / 1000:
            self.error = StudyError(
                f"{self.path}: another program keeps the study locked; the replies could not "
                "be stored"
            )
            self._settle()
            return
        self._scheduled = True
        asyncio.get_running_loop().call_later(0.002, self._flush)

    def _settle(self) -> None:
        futures = self._futures
        self._rows, self._futures = [], []
        for f in futures:
            if not f.done():
                f.set_result(None)

    def close(self) -> None:
        """Commit what is queued (waiting for the lock if need be) and close; re-raise a write
        error."""
        if self._rows and self.error is None:
            try:
                set_lock_wait(self.conn, BUSY_TIMEOUT_MS)
                self._write(begun=False)
            except BaseException as exc:
                self.error = exc
        self._settle()
        self.conn.close()
        if self.error is not None:
            raise self.error


class CostGuard(Protocol):
    """Reserves worst-case cost before a call and settles the real cost after it."""

    def reserve(self, amount: float) -> bool:
        """Reserve ``amount``; False when that would pass the limit (the run then stops)."""

    def settle(self, reserved: float, actual: float) -> None:
        """Replace a reservation by what the call really cost."""

    def stopped(self) -> bool:
        """Whether the limit was reached."""


class LocalCostGuard:
    """A cost guard for one process."""

    def __init__(self, limit: float | None, cancel: threading.Event | None = None) -> None:
        """``limit`` in USD (None: no limit); a set ``cancel`` event stops the run too."""
        self.limit = limit
        self.cancel = cancel
        self.committed = 0.0
        self._stop = False

    def reserve(self, amount: float) -> bool:
        """Reserve ``amount`` unless it would pass the limit (or the run was cancelled)."""
        if self.cancel is not None and self.cancel.is_set():
            self._stop = True
        if self._stop:
            return False
        if self.limit is not None and self.committed + amount > self.limit:
            self._stop = True
            return False
        self.committed += amount
        return True

    def settle(self, reserved: float, actual: float) -> None:
        """Swap the reservation for the actual cost."""
        self.committed += actual - reserved

    def stopped(self) -> bool:
        """Whether the limit was reached."""
        return self._stop


CUT_OFF = frozenset({"length", "max_tokens"})
"""Why a reply stopped when it hit the output-token limit: OpenAI's ``finish_reason``
``length``, Anthropic's ``stop_reason`` ``max_tokens``."""


def cut_off(finish_reason: str | None, max_tokens: int) -> str | None:
    """What a reply that stopped at the token limit is recorded as (else ``None``): not the
    parse error its truncated JSON gives, which would send the user looking at the prompt."""
    if finish_reason not in CUT_OFF:
        return None
    return f"cut off at --max-tokens {max_tokens} (raise --max-tokens)"


def parse_reply(call: CallSpec, text: str) -> JsonObject | str | None:
    """Parse a reply for its task (raises :class:`replies.ReplyError`)."""
    return parse_text(call.kind, call.parse_args, text)


def parse_text(kind: str, parse_args: JsonObject, text: str) -> JsonObject | str | None:
    """Parse a reply to a call of prompt task ``kind`` (raises :class:`replies.ReplyError`)."""
    parsed: JsonObject | str | None = replies.parse_reply_text(kind, parse_args, text)
    return parsed


def chat_request(call: CallSpec, json_schema: bool) -> ChatRequest:
    """The request of a call (with its JSON schema where the provider honours one)."""
    return ChatRequest(
        system=call.system,
        messages=[{"role": "user", "content": call.user}],
        max_tokens=call.judge.max_tokens,
        temperature=call.judge.temperature,
        json_schema=call.json_schema if json_schema else None,
        seed=call.sample,
        label=f"item {call.item_id} {call.task} sample {call.sample}",
    )


def call_row(call: CallSpec) -> CallRow:
    """A ``judge_calls`` row for a call, before its result is known (status ``failed``)."""
    return {
        "key": call.key,
        "judge": call.judge.rater,
        "provider": call.judge.spec.provider,
        "model": call.judge.spec.model,
        "template": call.template.name,
        "template_hash": call.template.hash,
        "params": dumps(call.params()),
        "messages": dumps(call.messages()),
        "item_id": call.item_id,
        "task": call.task,
        "sample": call.sample,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "latency_s": 0.0,
        "attempts": 0,
        "raw": None,
        "parsed": None,
        "error": None,
        "created_at": utcnow(),
        "status": "failed",
    }


async def make_call(
    provider: Provider, call: CallSpec, price: Price, parse_retries: int
) -> CallRow:
    """One call with up to ``parse_retries`` extra requests for replies that do not parse.

    Returns:
        The ``judge_calls`` row: status ``ok`` (parsed), ``failed`` (paid, never parsed) or
        ``error`` (nothing usable came back; retried by the next run).
    """
    req = chat_request(call, provider.supports_json_schema)
    row = call_row(call)
    for _ in range(1 + parse_retries):
        try:
            result = await provider.complete(req)
        except ProviderError as exc:
            # error_kind / error_status are not stored; the run's failure watch reads them.
            row["status"], row["error"] = "error", str(exc)
            if exc.kind == "too_long":  # counted under one reason; later runs skip it
                row["error"] = f"{TOO_LONG}\n{exc}"
            row["error_kind"], row["error_status"] = exc.kind, exc.status
            row["attempts"] += getattr(exc, "attempts", 0) or 1
            return row
        row["input_tokens"] += result.input_tokens
        row["output_tokens"] += result.output_tokens
        row["cost_usd"] += price.cost(result.input_tokens, result.output_tokens)
        if result.usage_unknown:  # counted at the estimate: --max-cost holds without figures
            row["usage_unknown"] = True
            criteria = len(call.parse_args.get("criteria", [1]))
            row["cost_usd"] += price.cost(
                *unreported_usage(
                    call.system + call.user, result.text, call.judge.max_tokens, criteria
                )
            )
        row["latency_s"] += result.latency_s
        row["attempts"] += result.attempts
        row["raw"] = result.text
        try:
            parsed = parse_reply(call, result.text)
        except replies.ReplyError as exc:
            stopped = cut_off(result.finish_reason, call.judge.max_tokens)
            row["status"], row["error"] = "failed", stopped or f"unparseable reply: {exc}"
            if stopped:
                return row  # asked again with the same limit, it would be cut off again
            continue
        row["status"], row["parsed"], row["error"] = "ok", dumps(parsed), None
        return row
    return row


def _within_slots(
    judges: list[JudgeConfig],
    concurrency: int,
    slots: Mapping[str, int],
    limits: dict[str, AdaptiveLimit],
) -> int:
    """One limit per endpoint of ``slots`` (of its slots, at most ``concurrency``) for its
    judges, in ``limits``; the run's concurrency: their sum when every judge has one."""
    shared: dict[str, AdaptiveLimit] = {}
    for j in judges:
        url = endpoint_of(j.spec)
        if url is not None and url in slots:
            if url not in shared:
                shared[url] = AdaptiveLimit(min(concurrency, slots[url]), url)
            limits[j.rater] = shared[url]
    if judges and len(limits) == len(judges):
        return min(concurrency, sum(limit.ceiling for limit in shared.values()))
    return concurrency


async def execute(
    study_path: str,
    todo: list[CallSpec],
    *,
    concurrency: int,
    prices: dict[str, Price],
    guard: CostGuard,
    run_id: int,
    keys: KeyRing,
    timeout_s: float,
    max_retries: int,
    parse_retries: int,
    on_row: Callable[[CallRow], None],
    retry_failed: bool = False,
    api_version: str | None = None,
    local_context: int = 4096,
    slots: Mapping[str, int] | None = None,
) -> bool:
    """Make every call in ``todo`` and commit each result as it arrives.

    Args:
        slots: Endpoints whose server works on fewer calls at once than ``concurrency``, with
            how many (:mod:`.server_slots`): their judges share one limit of that many attempts
            in flight; when every judge has one, the run has no more calls in flight than
            their sum.

    Returns:
        True when all calls were attempted; False when the cost guard stopped the run.
    """
    providers: dict[str, Provider] = {}
    limits: dict[str, AdaptiveLimit] = {}
    judges = list({c.judge.rater: c.judge for c in todo}.values())
    concurrency = _within_slots(judges, concurrency, slots or {}, limits)
    try:
        for j in judges:
            limits.setdefault(j.rater, AdaptiveLimit(concurrency, j.rater))
            providers[j.rater] = make_provider(
                j.spec,
                keys=keys,
                api_version=api_version,
                timeout=timeout_s,
                max_retries=max_retries,
                adaptive=limits[j.rater],
                local_n_ctx=local_context,
            )
        writer = CallWriter(study_path)
        sem = asyncio.Semaphore(concurrency)

        async def one(call: CallSpec) -> None:
            async with sem:
                if writer.error is not None:
                    return  # results can no longer be stored: pay for nothing more
                price = prices[call.judge.rater]
                worst = price.cost(
                    estimate_tokens(call.system + call.user),
                    call.judge.max_tokens * (1 + parse_retries),
                )
                if not guard.reserve(worst):
                    return
                row: CallRow | None = None
                try:
                    row = await make_call(providers[call.judge.rater], call, price, parse_retries)
                finally:
                    guard.settle(worst, row["cost_usd"] if row else 0.0)
                row["run_id"] = run_id
                row["retry"] = retry_failed  # may replace a stored 'failed' row (record_call)
                limit = limits[call.judge.rater]
                if limit.reason is not None:  # the server was overloaded: the run says so
                    row["concurrency_lowest"], row["overload"] = limit.lowest, limit.reason
                # The slot is held until the row is on disk: at most `concurrency` replies are
                # ever paid for and not stored (what a killed run can lose).
                await writer.submit(row)
                on_row(row)

        try:
            await asyncio.gather(*(one(c) for c in todo))
        finally:
            writer.close()
    finally:
        for p in providers.values():
            await p.aclose()
    return not guard.stopped()
