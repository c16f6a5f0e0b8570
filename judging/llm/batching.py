"""Judge calls through the providers' batch APIs (``medjudge judge --batch``).

Storage and kill-safety contract (the tables: :mod:`medjudge.store.batches`):
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
- A batch the provider answers 404 for when polled (it no longer knows it) is abandoned, said
  in the summary, and its calls are asked again; ``judge --abandon-batch ID`` does the same by
  hand. A batch whose upload failed, or whose creation was answered with an error and which
  the provider does not have, is rolled back (the study never waits on a batch that does not
  exist).
- Costs are at batch prices (:data:`.pricing.BATCH_DISCOUNT`); ``--max-cost`` holds the
  worst-case cost of what a run submits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from medjudge.judging.llm.batch_api import LIMITS, BatchAPI, make_batch_api
from medjudge.judging.llm.batch_rows import PlannedBatch, custom_id, payload, result_row, split
from medjudge.judging.llm.calls import LocalCostGuard
from medjudge.judging.llm.key_routing import KeyRing
from medjudge.judging.llm.pricing import Price, estimate_tokens
from medjudge.judging.llm.provider_registry import entries, entry_for
from medjudge.judging.llm.provider_types import ProviderConfigError, ProviderError
from medjudge.judging.llm.providers import make_provider
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig
from medjudge.store import batches as store
from medjudge.store.judgments import CallRow, ask_again, cached_calls, event_of
from medjudge.store.study import Study


@runtime_checkable
class BatchProgress(Protocol):
    """A display that can show batches in progress (the CLI's bar; optional for others)."""

    def batch_progress(self, done: int, total: int, pending: int) -> None:
        """Requests the provider reports done of those in ``pending`` open batches."""


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
            ProviderConfigError: a judge whose provider has no batch API (a local model, ...).
        """
        for j in self.judges:
            entry = entry_for(j.spec.provider)
            if not entry.batch:
                with_batch = ", ".join(e.name for e in entries() if e.batch)
                raise ProviderConfigError(
                    f"{j.rater}: --batch needs a judge whose provider has a batch API "
                    f"({with_batch}, or a compatible server with one); {entry.name} has none"
                )
        self.dry_run = dry_run

    def api(self, rater: str) -> BatchAPI:
        """The batch client of a judge (made on first use).

        Raises:
            ProviderConfigError: no API key for the judge's provider.
        """
        if rater not in self.apis:
            j = next(j for j in self.judges if j.rater == rater)
            keys = self.options.keys
            sync = make_provider(
                j.spec,
                keys=KeyRing.placeholders() if self.dry_run else keys,
                api_version=self.options.api_version,
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
        out: dict[str, CallSpec] = {}
        for c in calls:
            if c.key in flying or c.key in out:
                continue
            if ask_again(stored.get(c.key), self.options.retry_failed):
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
                    {**payload(c, self.options.retry_failed), "line": line.decode()},
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
        """Submit one recorded batch; False (and the run's failure) when it could not be.

        A batch that surely does not exist at the provider is rolled back (its upload failed,
        so it was never created; or its creation was answered with an error and the provider
        has no batch with its token); one the provider may have accepted without an answer (a
        timeout, a dropped connection) stays recorded, and the next run looks for it."""
        uploaded: list[str] = []

        def on_file(file_id: str) -> None:
            uploaded.append(file_id)
            store.record_file(self.study, batch_id, file_id)

        try:
            provider_id, status = await api.submit(lines, token, on_file)
        except ProviderError as exc:
            self.summary.failure = f"submitting a batch failed: {exc}"
            if exc.status is not None and not exc.retryable:
                store.record_failed(self.study, batch_id, str(exc))  # refused: nothing to find
            elif api.provider == "openai" and not uploaded:
                store.roll_back_intent(self.study, batch_id)  # no file: no batch was created
            elif exc.status is not None:  # answered with an error: look for it once
                return await self._found_after_error(api, batch_id, token, lines)
            # else: no answer, the provider may have accepted it; the next run looks for it
            return False
        store.record_submitted(self.study, batch_id, provider_id, status)
        return True

    async def _found_after_error(
        self, api: BatchAPI, batch_id: int, token: str, lines: list[bytes]
    ) -> bool:
        """A batch whose creation was answered with an error: adopt it if the provider has it
        after all (True), else roll it back (False: the run's failure stands)."""
        b = store.get_batch(self.study, batch_id)
        since = datetime.fromisoformat(b.created_at.replace("Z", "+00:00"))
        calls = store.batch_calls(self.study, batch_id)
        try:
            found = await api.find(token, [c.custom_id for c in calls], since)
        except ProviderError:
            return False  # cannot tell: stays recorded, the next run looks for it
        known = {x.provider_id for x in store.all_batches(self.study)}
        if found is not None and found not in known:
            store.record_submitted(self.study, batch_id, found, "found")
            self.summary.failure = None
            self.summary.batches_found += 1
            return True
        store.roll_back_intent(self.study, batch_id)
        return False

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

    def _abandon(self, b: store.Batch, provider_id: str, exc: ProviderError) -> None:
        """The provider answers 404 for a batch: it no longer knows it, so no result will
        come; abandon it (its calls are asked again) and say so."""
        why = f"the provider answers HTTP 404 for it ({exc})"
        released = store.abandon_batch(self.study, b.id, why)
        self.summary.batches_abandoned.append(
            f"batch {provider_id} abandoned: the provider no longer knows it (HTTP 404); "
            f"its {released} call(s) are asked again"
        )

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
        try:
            status = await api.status(provider_id)
        except ProviderError as exc:
            if exc.status != 404:
                raise
            self._abandon(b, provider_id, exc)
            return 0, 0
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
        rows = [
            result_row(c.key, c.call, results.get(c.custom_id), price, self.run_id) for c in calls
        ]
        started = time.monotonic()
        store.record_collected(self.study, b.id, rows)
        self.summary.batches_collected += 1
        self.summary.collect_s += time.monotonic() - started
        for row in rows:
            self._account(row)
        return 0, 0  # collected: no longer at the provider

    def _account(self, row: CallRow) -> None:
        from medjudge.judging.llm.run_types import CallEvent, account

        outcome = event_of(row)
        outcome["attempts"] = 0  # a batch request is not an HTTP request of this run
        account(self.summary, outcome)
        if self.display is not None:
            self.display.call_done(
                CallEvent(row["judge"], row["task"], row["status"], row["cost_usd"]), self.summary
            )
