"""Running judges over a study: a plan, an executor and a recorded run.

- :func:`make_plan` versions the judges, lists the calls they need, skips what is cached (or in
  a batch still at the provider), prices the rest and estimates it (:class:`RunPlan`).
- An :class:`Executor` makes the calls: :class:`SyncExecutor` one by one (:mod:`.calls`, worker
  processes for large runs), :class:`BatchExecutor` through the batch APIs (:mod:`.batching`);
  for a dry run it only estimates.
- :func:`recorded_run` records the run, has the executor make the calls, writes the verdicts and
  panels and records how the run ended.

Concurrency and storage contract (the calls themselves: :mod:`judging.calls`):
- One run per judge version at a time: a real run takes a lease on each of its judge versions
  before it plans (:mod:`medjudge.store.leases`), keeps it alive while it runs and releases it
  at the end; a second run is refused before it sends anything, unless the holder is gone.
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
    estimate_reply_tokens,
    estimate_tokens,
    price_for,
    unknown_notes,
)
from medjudge.judging.llm.workers import execute_sharded, worker_count
from medjudge.judging.protocol.panels import update_panels
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig, plan_item
from medjudge.judging.protocol.versions import name_versions, register_judges
from medjudge.store import leases
from medjudge.store.batches import keys_in_flight, open_batches
from medjudge.store.items import Item, get_item, list_items
from medjudge.store.judgments import (
    CallOutcome,
    ask_again,
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
    local_context: int = 4096
    """The context window, in tokens, of ``local:`` judges (a request longer than it is "too
    long for the context", never retried)."""
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
    verbose: bool = False
    """Log each retry (worker processes too: see :func:`.workers.show_retries`)."""
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
    price_rules: dict[str, str] = field(default_factory=dict)
    """Which rule priced each judge version (:func:`~.pricing.price_for`), for ``--dry-run``."""
    concurrency: int = 0
    """The calls in flight asked for (``--concurrency``)."""
    concurrency_lowest: int | None = None
    """The fewest attempts a judge's server was allowed at once, when an overload lowered it
    (:mod:`.adaptive`)."""
    overload: str | None = None
    """What lowered it (``HTTP 429``, ``timeouts``)."""
    usage_unknown: int = 0
    """Calls whose server reported no usable token figures (left out, negative, not numbers,
    out of bounds): recorded as 0 tokens, their cost counted at the estimate
    (:func:`~.pricing.unreported_usage`)."""
    usage_estimated_usd: float = 0.0
    """What those calls were counted at (part of ``cost_usd``, and of ``--max-cost``)."""
    cut_off: int = 0
    """Failed samples whose reply stopped at ``--max-tokens``."""
    cut_off_note: str | None = None
    """What they were recorded as (``cut off at --max-tokens N (raise --max-tokens)``)."""
    verdicts_added: int = 0
    missing_verdicts: int = 0
    not_judged: int = 0
    """Units left without a verdict because a call of theirs ended in an error (the next run
    asks it again)."""
    not_judged_why: dict[str, int] = field(default_factory=dict)
    """Those units by reason (the error, shortened), most first."""
    position_inconsistent: int = 0
    stopped: str | None = None
    """Why the run stopped before every call was made (``--max-cost`` or a cancel)."""
    failure: str | None = None
    """Why the run failed: its calls kept failing (see :mod:`.failures`); no verdict is missing
    for lack of trying, the judge could not be reached or used."""
    lease_taken_over: list[str] = field(default_factory=list)
    """Run leases this run took over from a run that is gone (:mod:`medjudge.store.leases`)."""
    elapsed_s: float = 0.0
    run_id: int | None = None
    versions: list[str] = field(default_factory=list)
    """The judge versions of the run, by rater name (a panel's last)."""
    batches_planned: int = 0
    """``--batch --dry-run``: batches the missing calls would go in."""
    batches_submitted: int = 0
    batches_found: int = 0
    """Batches a killed run had submitted without recording their id, found at the provider."""
    batches_abandoned: list[str] = field(default_factory=list)
    """Batches the provider answered 404 for, abandoned by this run (their calls are asked
    again), one note each."""
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


# --------------------------------------------------------------------------- the plan


@dataclass
class RunPlan:
    """What a run is to do, worked out before anything is sent."""

    judges: list[JudgeConfig]
    """The judges as versions (registered, or for a dry run only named)."""
    items: list[Item]
    """The items in scope."""
    calls: list[CallSpec]
    """Every call the judges need for them."""
    todo: list[CallSpec]
    """The calls to make: neither cached nor in a batch still at the provider."""
    prices: dict[str, Price]
    """Each judge version's price (list price; batches halve it)."""
    lease: leases.Taken | None = None
    """The run's leases on its judge versions (a real run: one run per version at a time)."""


def make_plan(
    study: Study, judges: Sequence[JudgeConfig], options: RunOptions
) -> tuple[RunPlan, RunSummary]:
    """The run's judges, calls and prices, and its summary with the counts and estimates.

    A real run refuses a cost limit it cannot keep before its judge versions are recorded.

    Raises:
        UnknownPriceError: ``max_cost`` with a judge whose price is unknown.
        LeaseHeld: another live run holds one of the judge versions (nothing was sent).
    """
    if not options.dry_run:
        check_max_cost(
            {j.spec.name: price_for(j.spec, options.price_override) for j in judges},
            options.max_cost,
        )
    if options.dry_run:
        versions = name_versions(study, judges)
        lease = None
    else:
        versions = register_judges(study, judges, actor=options.actor)
        # Before the plan reads what is cached: a second run of these versions is refused
        # here, before it plans or sends anything.
        lease = leases.take(study, [(j.version_key(), j.rater) for j in versions])
    try:
        return _planned(study, versions, options, lease)
    except BaseException:
        if lease is not None:
            with contextlib.suppress(Exception):
                leases.release(study, lease.token)
        raise


def _planned(
    study: Study, versions: list[JudgeConfig], options: RunOptions, lease: leases.Taken | None
) -> tuple[RunPlan, RunSummary]:
    """:func:`make_plan` once the judges are versions (and, for a real run, leased)."""
    items, calls = plan(study, versions, options)
    summary = RunSummary(
        calls_needed=len(calls),
        versions=[j.rater for j in versions],
        concurrency=options.concurrency,
        lease_taken_over=list(lease.taken_over) if lease is not None else [],
    )
    todo = _to_make(study, versions, calls, options, summary)
    prices = {j.rater: price_for(j.spec, options.price_override) for j in versions}
    summary.unknown_prices = sorted(name for name, p in prices.items() if not p.known)
    summary.price_notes = unknown_notes(prices)
    summary.price_rules = {name: p.rule for name, p in sorted(prices.items())}
    summary.est_cost_known = not summary.unknown_prices
    _estimate(summary, todo, prices)
    return RunPlan(versions, items, calls, todo, prices, lease), summary


def _to_make(
    study: Study,
    judges: list[JudgeConfig],
    calls: list[CallSpec],
    options: RunOptions,
    summary: RunSummary,
) -> list[CallSpec]:
    """The calls that are neither cached (``error`` rows, and with ``retry_failed`` the
    ``failed`` ones, are asked again) nor in a batch still at the provider (paid for
    already, never sent again here); ``summary`` gets the counts."""
    stored = cached_calls(study, [c.key for c in calls])
    flying = keys_in_flight(study, [j.rater for j in judges])
    todo = [
        c
        for c in calls
        if c.key not in flying and ask_again(stored.get(c.key), options.retry_failed)
    ]
    if flying and not options.batch:
        summary.batches_pending = len(open_batches(study, [j.rater for j in judges]))
    summary.in_batches = sum(1 for c in calls if c.key in flying and c.key not in stored)
    summary.cached = len(calls) - len(todo) - summary.in_batches
    summary.to_call = len(todo)
    return todo


def _estimate(
    summary: RunSummary, todo: list[CallSpec], prices: dict[str, Price], *, batch: bool = False
) -> None:
    """Estimated tokens and cost of ``todo`` (at batch prices with ``batch``)."""
    summary.est_input_tokens = summary.est_output_tokens = 0
    summary.est_cost_usd = 0.0
    for c in todo:
        tin = estimate_tokens(c.system + c.user)
        tout = estimate_reply_tokens(c.judge.max_tokens, len(c.parse_args.get("criteria", [1])))
        summary.est_input_tokens += tin
        summary.est_output_tokens += tout
        price = prices[c.judge.rater]
        summary.est_cost_usd += (price.batch() if batch else price).cost(tin, tout)


# --------------------------------------------------------------------------- the executors


class Executor(Protocol):
    """Makes a plan's calls: one by one (:class:`SyncExecutor`) or through the providers'
    batch APIs (:class:`BatchExecutor`)."""

    async def open(self) -> None:
        """Check the judges can be run this way (before any run is recorded)."""

    def estimate(self, summary: RunSummary) -> None:
        """A dry run: what the calls would take, in ``summary``."""

    async def make_calls(
        self, run_id: int, summary: RunSummary, live: LiveVerdicts, display: RunDisplay | None
    ) -> str:
        """Make the calls; the run's status (``done``, ``stopped``, ``failed``, ``pending``)."""

    async def aclose(self) -> None:
        """Release what it holds."""


class SyncExecutor:
    """Every call sent on its own, ``concurrency`` at a time, in this process or sharded over
    worker processes (:mod:`.calls`, :mod:`.workers`)."""

    def __init__(self, study: Study, run: RunPlan, options: RunOptions) -> None:
        """The calls of ``run``, with ``options``."""
        self.study, self.run, self.options = study, run, options

    async def open(self) -> None:
        """Nothing to check: a judge's client is made when its first call is."""

    def estimate(self, summary: RunSummary) -> None:
        """The plan's estimate stands."""

    async def make_calls(
        self, run_id: int, summary: RunSummary, live: LiveVerdicts, display: RunDisplay | None
    ) -> str:
        """Make the plan's calls (none: ``done`` at once, no SDK loaded)."""
        if not self.run.todo:
            return "done"
        if self.options.before_calls is not None:
            self.options.before_calls()
        return await _execute(
            self.study, self.run.todo, self.options, self.run.prices, summary, live, display
        )

    async def aclose(self) -> None:
        """Nothing held between calls."""


class BatchExecutor:
    """The calls through the providers' batch APIs (:class:`~.batching.BatchRun`)."""

    def __init__(
        self,
        study: Study,
        run: RunPlan,
        options: RunOptions,
        summary: RunSummary,
        display: RunDisplay | None,
    ) -> None:
        """A batch run of ``run``'s judges reporting into ``summary``."""
        from medjudge.judging.llm.batching import BatchRun

        self.run = run
        self.options = options
        self.batch_run = BatchRun(study, run.judges, options, run.prices, summary, None, display)

    async def open(self) -> None:
        """Check every judge's provider has a batch API."""
        await self.batch_run.open(dry_run=self.options.dry_run)

    def estimate(self, summary: RunSummary) -> None:
        """``--batch --dry-run``: the batches, calls and cost at batch prices of what is
        missing (the calls already in open batches are not)."""
        todo = self.batch_run.missing(self.run.calls)
        summary.batches_planned = len(self.batch_run.plan(todo))
        summary.to_call = len(todo)
        _estimate(summary, todo, self.run.prices, batch=True)

    async def make_calls(
        self, run_id: int, summary: RunSummary, live: LiveVerdicts, display: RunDisplay | None
    ) -> str:
        """Poll, collect and submit (see :mod:`.batching`)."""
        self.batch_run.run_id = run_id
        status: str = await self.batch_run.run(self.run.calls)
        return status

    async def aclose(self) -> None:
        """Close the batch clients."""
        await self.batch_run.aclose()


def executor_for(
    study: Study,
    run: RunPlan,
    options: RunOptions,
    summary: RunSummary,
    display: RunDisplay | None,
) -> Executor:
    """The executor ``options`` asks for (``batch``: the batch APIs)."""
    if options.batch:
        return BatchExecutor(study, run, options, summary, display)
    return SyncExecutor(study, run, options)


# --------------------------------------------------------------------------- the recorded run


async def recorded_run(
    study: Study,
    run: RunPlan,
    options: RunOptions,
    executor: Executor,
    summary: RunSummary,
    display: RunDisplay | None,
) -> None:
    """Record a run, execute its calls, write the verdicts and panels, and record how it
    ended. A run never stays ``running``: whatever ends it (a key the client cannot send, a
    full disk, Ctrl-C) is recorded before it propagates, if the study can still be written."""
    run_id = start_run(
        study,
        [j.rater for j in run.judges],
        {
            "judges": [j.describe() for j in run.judges],
            "panel_rule": options.panel_rule,
            "concurrency": options.concurrency,
        },
        options.actor,
        len(run.calls),
    )
    summary.run_id = run_id
    live = LiveVerdicts(
        study, run.judges, run.items, run.calls, run.todo, run_id=run_id, actor=options.actor
    )
    try:
        if display:
            display.started(summary)
        status = await executor.make_calls(run_id, summary, live, display)
        if status == "done" and summary.batches_pending:
            status = "pending"  # calls are still at the provider, in batches
        _write_verdicts(study, run, options, summary, live)
        if status == "done" and summary.not_judged and summary.ok + summary.failed == 0:
            top = next(iter(summary.not_judged_why))
            summary.failure = f"every call ended in an error ({summary.errors}): {top}"
            status = "failed"
    except BaseException as exc:
        interrupted = isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError))
        live.stop()
        with contextlib.suppress(Exception):
            _finish(study, summary, "interrupted" if interrupted else "failed")
        raise
    _finish(study, summary, status)


def _write_verdicts(
    study: Study, run: RunPlan, options: RunOptions, summary: RunSummary, live: LiveVerdicts
) -> None:
    """The verdicts still owed once the calls are in, then the panels'."""
    live.finish()
    summary.verdicts_added += live.counts.added
    summary.missing_verdicts += live.counts.missing
    summary.position_inconsistent += live.counts.position_inconsistent
    why = dict(summary.not_judged_why)
    for reason, units in live.counts.not_judged.items():
        why[reason] = why.get(reason, 0) + units
    summary.not_judged_why = dict(sorted(why.items(), key=lambda kv: (-kv[1], kv[0])))
    summary.not_judged = sum(why.values())
    panels, added = update_panels(
        study, run.judges, run.items, options.panel_rule, run_id=summary.run_id, actor=options.actor
    )
    summary.versions += panels
    summary.verdicts_added += added


def _finish(study: Study, summary: RunSummary, status: str) -> None:
    """Record how the run ended, with its counts."""
    assert summary.run_id is not None
    finish_run(
        study,
        summary.run_id,
        status=status,
        made=summary.requests,
        cached=summary.cached,
        failed=summary.failed,
        cost=summary.cost_usd,
    )


async def run_judges(
    study: Study,
    judges: Sequence[JudgeConfig],
    options: RunOptions,
    display: RunDisplay | None = None,
) -> RunSummary:
    """Run judges over a study and store calls and verdicts: :func:`make_plan`, then an
    :class:`Executor` estimates (dry run) or makes the calls inside :func:`recorded_run`.

    Returns:
        The run's summary (for a dry run: the counts and estimates only).

    Raises:
        ProviderError: a judge could not be set up (e.g. no API key); nothing was called.
        UnknownPriceError: ``max_cost`` with a judge whose price is unknown; nothing was
            called or written.
        LeaseHeld: another live run holds one of the judge versions; nothing was called.
    """
    t0 = time.monotonic()
    run, summary = make_plan(study, judges, options)
    heartbeat = None
    if run.lease is not None:
        heartbeat = leases.Heartbeat(study.path, run.lease.token).start()
    try:
        executor = executor_for(study, run, options, summary, display)
        try:
            await executor.open()
            if options.dry_run:
                executor.estimate(summary)
            else:
                await recorded_run(study, run, options, executor, summary, display)
        finally:
            await executor.aclose()
    finally:
        if heartbeat is not None:
            heartbeat.stop()
        if run.lease is not None:
            with contextlib.suppress(Exception):  # a lease left behind is taken over later
                leases.release(study, run.lease.token)
    summary.elapsed_s = time.monotonic() - t0
    if display and not options.dry_run:
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
    """Make ``todo`` (sharded over worker processes when that pays, see :mod:`.workers`),
    account each finished call and stop early when the calls keep failing; the status."""
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
        "local_context": options.local_context,
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
            verbose=options.verbose,
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


def account(summary: RunSummary, row: CallOutcome) -> None:
    """Add one call's result to the run's counts."""
    summary.requests += row["attempts"]
    if "concurrency_lowest" in row:
        lowest = summary.concurrency_lowest
        summary.concurrency_lowest = min(row["concurrency_lowest"], lowest or 1 << 30)
        summary.overload = row.get("overload")
    summary.cost_usd += row["cost_usd"]
    if row.get("usage_unknown"):
        summary.usage_unknown += 1
        summary.usage_estimated_usd += row["cost_usd"]
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
