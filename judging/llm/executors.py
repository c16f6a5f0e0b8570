"""The executors of a judge run: they make a plan's calls, :class:`SyncExecutor` one by one
(:mod:`.calls`, worker processes for large runs: :mod:`.workers`), :class:`BatchExecutor`
through the providers' batch APIs (:mod:`.batching`); for a dry run they only estimate.

``max_cost`` stops scheduling new calls once the spend would pass it; calls in flight finish,
and the run says so. A run whose calls keep failing stops early (:mod:`.failures`).
"""

from __future__ import annotations

from typing import Any, Protocol

from medjudge.judging.llm.calls import LocalCostGuard, execute
from medjudge.judging.llm.failures import FailureWatch, Halt
from medjudge.judging.llm.live_verdicts import LiveVerdicts
from medjudge.judging.llm.pricing import Price
from medjudge.judging.llm.run_plan import RunPlan, estimate_todo
from medjudge.judging.llm.run_types import (
    CallEvent,
    RunDisplay,
    RunOptions,
    RunSummary,
    account,
)
from medjudge.judging.llm.server_slots import PROBE_TIMEOUT_S, cap_notes, caps, server_slots
from medjudge.judging.llm.workers import execute_sharded, worker_count
from medjudge.judging.protocol.plan import CallSpec
from medjudge.store.judgments import CallOutcome
from medjudge.store.study import Study


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

    def __init__(
        self, study: Study, run: RunPlan, options: RunOptions, summary: RunSummary
    ) -> None:
        """The calls of ``run``, with ``options``."""
        self.study, self.run, self.options, self.summary = study, run, options, summary
        self.slots: dict[str, int] = {}

    async def open(self) -> None:
        """Ask the self-hosted judges' servers for their slots before the run starts, so that
        the run says it caps them before its first call (a judge's client is made when its
        first call is)."""
        if self.run.todo and not self.options.dry_run:
            self.slots = await _capped_by_slots(self.run.todo, self.options, self.summary)

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
            self.study,
            self.run.todo,
            self.options,
            self.run.prices,
            summary,
            live,
            display,
            self.slots,
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
        estimate_todo(summary, todo, self.run.prices, batch=True)

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
    return SyncExecutor(study, run, options, summary)


async def _execute(
    study: Study,
    todo: list[CallSpec],
    options: RunOptions,
    prices: dict[str, Price],
    summary: RunSummary,
    live: LiveVerdicts,
    display: RunDisplay | None,
    slots: dict[str, int],
) -> str:
    """Make ``todo`` (sharded over worker processes when that pays, see :mod:`.workers`),
    account each finished call and stop early when the calls keep failing; the status.
    ``slots``: the endpoints whose servers have fewer slots than the run's concurrency."""
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
    # a server's slots are shared by one process's calls (workers would each take them all)
    n = 1 if slots else worker_count(todo, options.workers, options.concurrency)
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
            slots=slots,
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


async def _capped_by_slots(
    todo: list[CallSpec], options: RunOptions, summary: RunSummary
) -> dict[str, int]:
    """Ask the self-hosted judges' servers for their slots (:mod:`.server_slots`): the
    endpoints with fewer slots than ``--concurrency``, each with its slots; ``summary`` says
    what was reported, and that the run's concurrency was lowered to the fewest."""
    specs = {c.judge.spec.name: c.judge.spec for c in todo}.values()
    reported = await server_slots(specs, options.keys, min(PROBE_TIMEOUT_S, options.timeout_s))
    summary.server_slots = dict(reported)
    capped = caps(reported, options.concurrency)
    summary.slot_notes = cap_notes(capped, options.concurrency)
    if capped:
        fewest = min(capped.values())
        summary.concurrency_lowest = min(fewest, summary.concurrency_lowest or fewest)
        summary.overload = f"{fewest} slots reported"
    return capped
