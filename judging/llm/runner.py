"""Running judges over a study: a plan, an executor and a recorded run.

- :func:`~.run_plan.make_plan` versions the judges, lists the calls they need, skips what is
  cached (or in a batch still at the provider), prices the rest and estimates it
  (:class:`~.run_plan.RunPlan`; :mod:`.run_plan`).
- An :class:`~.executors.Executor` makes the calls: :class:`~.executors.SyncExecutor` one by
  one (:mod:`.calls`, worker processes for large runs), :class:`~.executors.BatchExecutor`
  through the batch APIs (:mod:`.batching`); for a dry run it only estimates (:mod:`.executors`).
- :func:`recorded_run` records the run, has the executor make the calls, writes the verdicts and
  panels and records how the run ended.
- What a run is given and reports (:class:`~.run_types.RunOptions`,
  :class:`~.run_types.RunSummary`, :class:`~.run_types.RunDisplay`): :mod:`.run_types`. Every
  name is importable from here too.

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
import time
from collections.abc import Sequence

from medjudge.judging.llm.executors import (
    BatchExecutor,
    Executor,
    SyncExecutor,
    executor_for,
)
from medjudge.judging.llm.live_verdicts import LiveVerdicts
from medjudge.judging.llm.run_plan import RunPlan, make_plan, plan
from medjudge.judging.llm.run_types import (
    CallEvent,
    RunDisplay,
    RunOptions,
    RunSummary,
    account,
)
from medjudge.judging.protocol.panels import update_panels
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store import leases
from medjudge.store.judgments import finish_run, start_run
from medjudge.store.study import Study

__all__ = [
    "BatchExecutor",
    "CallEvent",
    "Executor",
    "RunDisplay",
    "RunOptions",
    "RunPlan",
    "RunSummary",
    "SyncExecutor",
    "account",
    "executor_for",
    "make_plan",
    "plan",
    "recorded_run",
    "run_judges",
]


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
