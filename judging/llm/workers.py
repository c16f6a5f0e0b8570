"""Sharding a large judge run over worker processes.

One event loop driving the official SDKs spends about 2.5 ms of CPU per call (request
building, the connection pool, response parsing), which caps it near 400 calls/s on this
class of machine — far below what 64 concurrent calls at 100 ms need. Large runs against
remote providers are therefore split round-robin over worker processes, each with its own
clients, event loop and call writer (SQLite serialises their commits). Cost is guarded
across processes by :class:`SharedCostGuard`; progress reaches the parent as small events.

Local models (``local:``) never shard: each worker would load its own copy of the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing as mp
import os
import queue as queue_mod
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from medjudge.judging.llm.calls import execute
from medjudge.judging.llm.pricing import Price
from medjudge.judging.llm.provider_registry import entry_for
from medjudge.judging.protocol.plan import CallSpec
from medjudge.store.db import StudyError
from medjudge.store.judgments import CallOutcome, CallRow, event_of

SHARD_THRESHOLD = 1000
"""Runs with fewer calls to make stay in one process (starting workers costs ~1 s)."""

PROCESS_CONCURRENCY = 128
"""Calls in flight one process keeps up with: it spends about 1.3 ms of CPU per call, so 128
calls of 100 ms need ~1,300 calls/s, more than one core gives. At 64 in flight one process made
4,800 calls sooner and with 25% less CPU than two workers."""


class SharedCostGuard:
    """A cost guard shared by processes (a locked double and a stop event)."""

    def __init__(self, limit: float | None, ctx: Any) -> None:
        """Create the shared state in the parent."""
        self.limit = limit
        self.committed = ctx.Value("d", 0.0)
        self.stop = ctx.Event()

    def reserve(self, amount: float) -> bool:
        """Reserve ``amount`` unless it would pass the limit."""
        if self.stop.is_set():
            return False
        with self.committed.get_lock():
            if self.limit is not None and self.committed.value + amount > self.limit:
                self.stop.set()
                return False
            self.committed.value += amount
        return True

    def settle(self, reserved: float, actual: float) -> None:
        """Swap the reservation for the actual cost."""
        with self.committed.get_lock():
            self.committed.value += actual - reserved

    def stopped(self) -> bool:
        """Whether the limit was reached."""
        return bool(self.stop.is_set())


def worker_count(todo: list[CallSpec], requested: int | None, concurrency: int) -> int:
    """How many processes to use: ``requested``; else 1 for small or local runs and for
    runs with at most :data:`PROCESS_CONCURRENCY` calls in flight; else the CPUs (≤ 4)."""
    if any(entry_for(c.judge.spec.provider).protocol == "local" for c in todo):
        return 1
    if requested is not None:
        return max(1, requested)
    if len(todo) < SHARD_THRESHOLD or concurrency <= PROCESS_CONCURRENCY:
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the parent dies (a killed run must stop calling)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


LOG = "medjudge.judging.llm"
"""The logger of the judge calls: retries (:mod:`.retrying`), concurrency lowered
(:mod:`.adaptive`)."""


def show_retries() -> logging.Handler:
    """Send the judge calls' log (INFO: each retry, each time concurrency is lowered) to
    stderr, one line each; returns the handler (its ``name`` is the logger's)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.name = LOG
    logger = logging.getLogger(LOG)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # a library that configured logging with dictConfig (disable_existing_loggers) may have
    # switched this logger off: -v asked for it, so it speaks
    logger.disabled = False
    for child in logging.Logger.manager.loggerDict.values():
        if isinstance(child, logging.Logger) and child.name.startswith(LOG + "."):
            child.disabled = False
    return handler


def _worker(
    study_path: str,
    shard: list[CallSpec],
    kwargs: dict[str, Any],
    guard: SharedCostGuard,
    events: Any,
    verbose: bool = False,
) -> None:
    _die_with_parent()
    if verbose:
        show_retries()

    batch: list[CallOutcome] = []
    last = [time.monotonic()]

    def flush() -> None:
        if batch:
            events.put(("rows", list(batch)))
            batch.clear()
        last[0] = time.monotonic()

    def on_row(row: CallRow) -> None:
        # Progress goes to the parent in batches (every 50 ms at most): one queue message per
        # call cost the parent a thread hop each and slowed large runs.
        batch.append(event_of(row))
        if time.monotonic() - last[0] > 0.05:
            flush()

    try:
        asyncio.run(execute(study_path, shard, guard=guard, on_row=on_row, **kwargs))
        flush()
        events.put(("done", None))
    except StudyError as exc:  # a problem the user can act on: passed on as it is
        events.put(("failed", StudyError(str(exc))))
    except BaseException as exc:  # reported to the parent, which raises it
        events.put(("failed", f"{type(exc).__name__}: {exc}"))


@contextlib.contextmanager
def _spawned_from_this_module() -> Iterator[None]:
    """Start spawned workers from this module instead of the program's main script.

    A spawned child first re-imports the parent's ``__main__`` — for ``medjudge`` that is the
    console script, so every worker paid the whole CLI's import (typer, rich, every command)
    before judging anything. ``multiprocessing`` records the main module when a process
    starts (``spawn.get_preparation_data``) and the child imports it by its name; for the
    moment the workers start, that module is this one, which imports only the call runner.
    """
    main = sys.modules["__main__"]
    sys.modules["__main__"] = sys.modules[__name__]
    try:
        yield
    finally:
        sys.modules["__main__"] = main


async def execute_sharded(
    study_path: str,
    todo: list[CallSpec],
    n: int,
    *,
    limit: float | None,
    on_row: Callable[[CallOutcome], None],
    concurrency: int,
    prices: dict[str, Price],
    cancel: threading.Event | None = None,
    verbose: bool = False,
    **kwargs: Any,
) -> bool:
    """Run ``todo`` over ``n`` worker processes; returns False when the cost guard stopped it
    (the limit was reached, or ``cancel`` was set: the parent relays it to the workers).

    Raises:
        RuntimeError: a worker failed (its message is passed on).
    """
    ctx = mp.get_context("spawn")
    guard = SharedCostGuard(limit, ctx)
    events = ctx.Queue()
    share = max(1, concurrency // n)
    procs = [
        ctx.Process(
            target=_worker,
            daemon=True,
            args=(
                study_path,
                todo[i::n],
                {**kwargs, "concurrency": share, "prices": prices},
                guard,
                events,
                verbose,
            ),
        )
        for i in range(n)
    ]
    with _spawned_from_this_module():
        for p in procs:
            p.start()
    loop = asyncio.get_running_loop()
    finished, failure = 0, None
    while finished < n:
        if cancel is not None and cancel.is_set():
            guard.stop.set()
        try:
            kind, payload = await loop.run_in_executor(None, events.get, True, 0.2)
        except queue_mod.Empty:
            if not any(p.is_alive() for p in procs) and finished < n:
                failure = failure or "a worker process died"
                break
            continue
        if kind == "rows":
            for row in payload:
                on_row(row)
        else:
            finished += 1
            if kind == "failed":
                failure = payload
    for p in procs:
        p.join(5)
    if isinstance(failure, StudyError):
        raise failure
    if failure:
        raise RuntimeError(f"judge worker failed: {failure}")
    return not guard.stopped()
