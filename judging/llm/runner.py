"""Running judges over a study: plan, skip what is cached, call, record, resolve.

Concurrency and storage contract (the calls themselves: :mod:`judging.calls`):
- Every reply is committed as soon as it arrives, so a run killed at any moment resumes
  without paying again for what it had received.
- Cached calls (status ``ok`` or ``failed``) are never requested again; ``error`` rows are.
- Large runs against remote providers are sharded over worker processes
  (:mod:`judging.workers`).
- ``max_cost`` stops scheduling new calls once the spend would pass it; calls in flight
  finish, verdicts are resolved for the items whose calls are all in, and the run says so.
- Progress goes to a :class:`RunDisplay`; nothing here knows about terminals.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from medjudge.judging.llm.calls import LocalCostGuard, execute
from medjudge.judging.llm.failures import FailureWatch, Halt
from medjudge.judging.llm.key_routing import KeyRing
from medjudge.judging.llm.live_verdicts import LiveVerdicts
from medjudge.judging.llm.pricing import (
    Price,
    check_max_cost,
    estimate_tokens,
    price_for,
    unknown_notes,
)
from medjudge.judging.llm.workers import execute_sharded, worker_count
from medjudge.judging.protocol.panels import update_panels
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig, plan_item
from medjudge.judging.protocol.versions import name_versions, register_judges
from medjudge.store.batches import keys_in_flight, open_batches
from medjudge.store.items import Item, get_item, list_items
from medjudge.store.judgments import (
    CallOutcome,
    cached_calls,
    finish_run,
    start_run,
)
from medjudge.store.kinds import ITEM_KINDS
from medjudge.store.study import Study


@dataclass
class RunOptions:
    """How to run."""

    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 4
    parse_retries: int = 1
    """Extra requests for a reply that does not parse, before it is a failed sample."""
    max_cost: float | None = None
    dry_run: bool = False
    panel_rule: str = "conservative"
    kinds: tuple[str, ...] = ITEM_KINDS
    item_ids: Sequence[int] | None = None
    price_override: tuple[float, float] | None = None
    keys: KeyRing = field(default_factory=KeyRing)
    """The keys the run may send, and where (:mod:`.key_routing`; default: none)."""
    api_version: str | None = None
    """The API version for providers that have one (Azure; ``judge --api-version``)."""
    actor: str = "medjudge"
    workers: int | None = None
    """Worker processes for the calls (None: automatic, see :mod:`judging.workers`)."""
    retry_failed: bool = False
    """Ask again the samples whose reply never parsed (``failed``); by default they are cached
    like any paid call. The new attempt's cost is added to the old one's."""
    batch: bool = False
    """Send the calls through the providers' batch APIs (:mod:`.batching`)."""
    batch_wait: bool = False
    """With ``batch``: poll until every batch is collected (else return once submitted)."""
    batch_poll_s: float = 30.0
    """Seconds between polls of open batches."""
    batch_max_requests: int | None = None
    """Requests per batch (None: the provider's limit)."""
    batch_max_bytes: int | None = None
    """Bytes per batch (None: the provider's limit)."""
    before_calls: Callable[[], None] | None = None
    """Called once, just before the first call is made (not when everything is cached): the
    CLI loads the judges' SDK there with garbage collection still paused."""
    cancel: threading.Event | None = None
    """Set it to stop cleanly: no new calls start, calls in flight finish and are stored, and
    the items whose calls are all in get their verdicts."""


@dataclass
class CallEvent:
    """One finished call, for progress displays."""

    judge: str
    task: str
    status: str
    cost: float


@dataclass
class RunSummary:
    """What a run did (or, for a dry run, would do)."""

    calls_needed: int = 0
    cached: int = 0
    to_call: int = 0
    requests: int = 0
    ok: int = 0
    failed: int = 0
    errors: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    est_input_tokens: int = 0
    est_output_tokens: int = 0
    est_cost_usd: float = 0.0
    """The estimate at the known prices (calls of judges without a price count $0)."""
    est_cost_known: bool = True
    """Whether every judge of the run has a price (else the estimate is a lower bound)."""
    unknown_prices: list[str] = field(default_factory=list)
    """The judges without a price."""
    price_notes: list[str] = field(default_factory=list)
    """Why each of them has none (``no price known for NAME (why)``)."""
    cut_off: int = 0
    """Failed samples whose reply stopped at ``--max-tokens``."""
    cut_off_note: str | None = None
    """What they were recorded as (``cut off at --max-tokens N (raise --max-tokens)``)."""
    verdicts_added: int = 0
    missing_verdicts: int = 0
    position_inconsistent: int = 0
    stopped: str | None = None
    """Why the run stopped before every call was made (``--max-cost`` or a cancel)."""
    failure: str | None = None
    """Why the run failed: its calls kept failing (see :mod:`.failures`); no verdict is missing
    for lack of trying, the judge could not be reached or used."""
    elapsed_s: float = 0.0
    run_id: int | None = None
    versions: list[str] = field(default_factory=list)
    """The judge versions of the run, by rater name (a panel's last)."""
    batches_planned: int = 0
    """``--batch --dry-run``: batches the missing calls would go in."""
    batches_submitted: int = 0
    batches_found: int = 0
    """Batches a killed run had submitted without recording their id, found at the provider."""
    batches_collected: int = 0
    batches_pending: int = 0
    """Batches still at the provider when the run ended (run the command again to collect)."""
    to_call_batched: int = 0
    """Calls submitted in batches by this run."""
    in_batches: int = 0
    """Calls (of those needed) in batches still at the provider when the run started."""
    collect_s: float = 0.0


class RunDisplay(Protocol):
    """What a run reports as it goes (a progress bar, a TUI widget, a list in tests)."""

    def started(self, summary: RunSummary) -> None:
        """Planning is done: ``calls_needed``, ``cached`` and ``to_call`` are known."""

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """One call finished (ok, failed or error)."""

    def finished(self, summary: RunSummary) -> None:
        """The run is over (verdicts written)."""


def plan(
    study: Study, judges: Sequence[JudgeConfig], options: RunOptions
) -> tuple[list[Item], list[CallSpec]]:
    """Items in scope and every call the judges need for them."""
    refs = list_items(study)
    wanted = set(options.item_ids) if options.item_ids is not None else None
    items = [
        get_item(study, r.id)
        for r in refs
        if r.kind in options.kinds and (wanted is None or r.id in wanted)
    ]
    calls = [c for j in judges for it in items for c in plan_item(it, j, study.settings)]
    return items, calls


async def run_judges(
    study: Study,
    judges: Sequence[JudgeConfig],
    options: RunOptions,
    display: RunDisplay | None = None,
) -> RunSummary:
    """Run judges over a study and store calls and verdicts.

    Returns:
        The run's summary (for a dry run: the counts and estimates only).

    Raises:
        ProviderError: a judge could not be set up (e.g. no API key); nothing was called.
        UnknownPriceError: ``max_cost`` with a judge whose price is unknown; nothing was
            called or written.
    """
    t0 = time.monotonic()
    if not options.dry_run:
        check_max_cost(
            {j.spec.name: price_for(j.spec, options.price_override) for j in judges},
            options.max_cost,
        )
    if options.dry_run:
        judges = name_versions(study, judges)
    else:
        judges = register_judges(study, judges, actor=options.actor)
    items, calls = plan(study, judges, options)
    summary = RunSummary(calls_needed=len(calls), versions=[j.rater for j in judges])
    stored = cached_calls(study, [c.key for c in calls])
    again = ("error", "failed") if options.retry_failed else ("error",)
    # Calls in a batch still at the provider (#14) are paid for already: never sent again here.
    flying = keys_in_flight(study, [j.rater for j in judges])
    todo = [
        c
        for c in calls
        if c.key not in flying and (c.key not in stored or stored[c.key].status in again)
    ]
    if flying and not options.batch:
        summary.batches_pending = len(open_batches(study, [j.rater for j in judges]))
    summary.in_batches = sum(1 for c in calls if c.key in flying and c.key not in stored)
    summary.cached = len(calls) - len(todo) - summary.in_batches
    summary.to_call = len(todo)
    prices = {j.rater: price_for(j.spec, options.price_override) for j in judges}
    summary.unknown_prices = sorted(name for name, p in prices.items() if not p.known)
    summary.price_notes = unknown_notes(prices)
    summary.est_cost_known = not summary.unknown_prices
    for c in todo:
        tin = estimate_tokens(c.system + c.user)
        tout = min(c.judge.max_tokens, 60 * len(c.parse_args.get("criteria", [1])) + 40)
        summary.est_input_tokens += tin
        summary.est_output_tokens += tout
        summary.est_cost_usd += prices[c.judge.rater].cost(tin, tout)
    if options.batch:
        from medjudge.judging.llm.batching import BatchRun

        batch_run = BatchRun(study, judges, options, prices, summary, None, display)
        await batch_run.open(dry_run=options.dry_run)
        if options.dry_run:
            try:
                _estimate_batches(batch_run, calls, summary, prices)
            finally:
                await batch_run.aclose()
            summary.elapsed_s = time.monotonic() - t0
            return summary
    if options.dry_run:
        summary.elapsed_s = time.monotonic() - t0
        return summary
    run_id = start_run(
        study,
        [j.rater for j in judges],
        {
            "judges": [j.describe() for j in judges],
            "panel_rule": options.panel_rule,
            "concurrency": options.concurrency,
        },
        options.actor,
        len(calls),
    )
    summary.run_id = run_id
    live = LiveVerdicts(study, judges, items, calls, todo, run_id=run_id, actor=options.actor)
    try:
        if display:
            display.started(summary)
        status = "done"
        if options.batch:
            batch_run.run_id = run_id
            try:
                status = await batch_run.run(calls)
            finally:
                await batch_run.aclose()
        elif todo:
            if options.before_calls is not None:
                options.before_calls()
            status = await _execute(study, todo, options, prices, summary, live, display)
        if status == "done" and summary.batches_pending:
            status = "pending"  # calls are still at the provider, in batches (#14)
        live.finish()
        summary.verdicts_added += live.counts.added
        summary.missing_verdicts += live.counts.missing
        summary.position_inconsistent += live.counts.position_inconsistent
        panels, added = update_panels(
            study, judges, items, options.panel_rule, run_id=run_id, actor=options.actor
        )
        summary.versions += panels
        summary.verdicts_added += added
    except BaseException as exc:
        # A run never stays "running": whatever ended it (a key the client cannot send, a
        # full disk, Ctrl-C) is recorded before it propagates, if the study can still be written.
        interrupted = isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError))
        live.stop()
        with contextlib.suppress(Exception):
            finish_run(
                study,
                run_id,
                status="interrupted" if interrupted else "failed",
                made=summary.requests,
                cached=summary.cached,
                failed=summary.failed,
                cost=summary.cost_usd,
            )
        raise
    finish_run(
        study,
        run_id,
        status=status,
        made=summary.requests,
        cached=summary.cached,
        failed=summary.failed,
        cost=summary.cost_usd,
    )
    summary.elapsed_s = time.monotonic() - t0
    if display:
        display.finished(summary)
    return summary


async def _execute(
    study: Study,
    todo: list[CallSpec],
    options: RunOptions,
    prices: dict[str, Price],
    summary: RunSummary,
    live: LiveVerdicts,
    display: RunDisplay | None,
) -> str:
    halt = Halt(options.cancel)
    watch = FailureWatch(halt)
    run_id = live.run_id

    def on_row(row: CallOutcome) -> None:
        account(summary, row)
        watch.see(row)
        live.stored(row["key"])
        if display:
            display.call_done(
                CallEvent(row["judge"], row["task"], row["status"], row["cost_usd"]), summary
            )

    common: dict[str, Any] = {
        "run_id": run_id,
        "keys": options.keys,
        "api_version": options.api_version,
        "timeout_s": options.timeout_s,
        "max_retries": options.max_retries,
        "parse_retries": options.parse_retries,
        "retry_failed": options.retry_failed,
    }
    n = worker_count(todo, options.workers, options.concurrency)
    if n > 1:
        complete = await execute_sharded(
            str(study.path),
            todo,
            n,
            limit=options.max_cost,
            cancel=halt,
            on_row=on_row,
            concurrency=options.concurrency,
            prices=prices,
            **common,
        )
    else:
        complete = await execute(
            str(study.path),
            todo,
            concurrency=options.concurrency,
            prices=prices,
            guard=LocalCostGuard(options.max_cost, halt),
            on_row=on_row,
            **common,
        )
    if watch.cause is not None:
        summary.failure = watch.cause
        return "failed"
    if not complete:
        cancelled = options.cancel is not None and options.cancel.is_set()
        summary.stopped = "cancelled" if cancelled else f"--max-cost {options.max_cost:g} reached"
        return "stopped"
    return "done"


def _estimate_batches(
    batch_run: Any, calls: list[CallSpec], summary: RunSummary, prices: dict[str, Price]
) -> None:
    """``--batch --dry-run``: the batches, calls and cost at batch prices of what is missing."""
    todo = batch_run.missing(calls)
    summary.batches_planned = len(batch_run.plan(todo))
    summary.to_call = len(todo)
    summary.est_input_tokens = summary.est_output_tokens = 0
    summary.est_cost_usd = 0.0
    for c in todo:
        tin = estimate_tokens(c.system + c.user)
        tout = min(c.judge.max_tokens, 60 * len(c.parse_args.get("criteria", [1])) + 40)
        summary.est_input_tokens += tin
        summary.est_output_tokens += tout
        summary.est_cost_usd += prices[c.judge.rater].batch().cost(tin, tout)


def account(summary: RunSummary, row: CallOutcome) -> None:
    """Add one call's result to the run's counts."""
    summary.requests += row["attempts"]
    summary.cost_usd += row["cost_usd"]
    summary.input_tokens += row["input_tokens"]
    summary.output_tokens += row["output_tokens"]
    if row["status"] == "ok":
        summary.ok += 1
    elif row["status"] == "failed":
        summary.failed += 1
        if (row["error"] or "").startswith("cut off at --max-tokens"):
            summary.cut_off += 1
            summary.cut_off_note = row["error"]
    else:
        summary.errors += 1
