"""``medjudge judge``'s run: the judges over the study with a progress display, the judge
calls' log with ``-v``, and ``--abandon-batch``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from medjudge.store.paths import login_name
from medjudge.store.roles import require

from .common import UserError, console, fail, is_tty, opened, out
from .judge_options import JudgeOptions
from .judge_summary import PRICE_NOTE

if TYPE_CHECKING:  # the runner (and the SDKs it loads) only when a run starts
    from medjudge.judging.llm.runner import CallEvent, RunOptions, RunSummary
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.store.study import Study


class _Counts(ProgressColumn):
    """done/total, cached, failed and spend."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.summary = summary

    def render(self, task: Task) -> Text:
        s = self.summary
        return Text(
            f"{int(task.completed)}/{int(task.total or 0)} calls · {s.cached} cached · "
            f"{s.failed} failed · {s.errors} errors · ${s.cost_usd:.4f}"
        )


class ProgressDisplay:
    """A rich progress bar on a terminal; a line every few seconds otherwise."""

    def __init__(self) -> None:
        self.progress: Progress | None = None
        self.task = TaskID(0)
        self.done = 0
        self.last_line = 0.0

    def started(self, summary: RunSummary) -> None:
        """Say which judges have no price, then show the bar (cached calls count as done from
        the start)."""
        for note in summary.lease_taken_over:
            out(f"note: {note}")
        for note in summary.price_notes:
            out(f"note: {note}: its calls are counted as $0 ({PRICE_NOTE})")
        for note in summary.slot_notes:
            out(f"note: {note}")
        if is_tty():
            self.progress = Progress(
                TextColumn("judging {task.description}"),
                BarColumn(),
                _Counts(summary),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self.progress.start()
            self.task = self.progress.add_task(
                "", total=summary.calls_needed, completed=summary.cached
            )
        else:
            out(
                f"{summary.calls_needed} calls needed, {summary.cached} cached, {summary.to_call} to make"
            )

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """Advance the bar."""
        self.done += 1
        if self.progress is not None:
            self.progress.advance(self.task)
        elif time.monotonic() - self.last_line > 5:
            self.last_line = time.monotonic()
            out(f"{self.done}/{summary.to_call} calls made, ${summary.cost_usd:.4f} spent")

    def batch_progress(self, done: int, total: int, pending: int) -> None:
        """Batches in progress: what the provider reports done (results come when one ends)."""
        text = f"· {pending} batch(es) at the provider, {done}/{total} done" if pending else ""
        if self.progress is not None:
            self.progress.update(self.task, description=text)
        elif pending and time.monotonic() - self.last_line > 5:
            self.last_line = time.monotonic()
            out(f"{pending} batch(es) at the provider: {done}/{total} requests done")

    def finished(self, summary: RunSummary) -> None:
        """Stop the bar."""
        if self.progress is not None:
            self.progress.stop()


def run(
    s: Study, configs: list[JudgeConfig], plan: RunOptions, options: JudgeOptions
) -> RunSummary:
    """Run the judge versions as planned, with a progress display unless it is a dry run or
    the summary is JSON (a provider's or a judge version's error: exit 1)."""
    from medjudge.judging.llm.providers import ProviderError
    from medjudge.judging.llm.runner import run_judges
    from medjudge.judging.protocol.versions import VersionError

    execution = options.execution
    try:
        display = None if execution.dry_run or execution.json_output else ProgressDisplay()
        with _retries_shown(execution.verbose):
            return asyncio.run(run_judges(s, configs, plan, display))
    except (ProviderError, VersionError) as exc:
        raise UserError(str(exc)) from None


def abandon_batch(study: Path, ident: str, judges: list[str] | None) -> None:
    """``--abandon-batch ID``: mark the open batch ``ID`` dead and say how many calls it
    released (exit 1 when the study has no such open batch); it runs no judge (exit 2 with
    ``-j``)."""
    if judges:
        raise typer.BadParameter(
            "--abandon-batch runs no judge: give it without -j", param_hint="--abandon-batch"
        )
    from medjudge.store import batches

    with opened(study, check=True) as s:
        require(s, login_name(), "judge")
        b = batches.find_open_batch(s, ident.strip())
        if b is None:
            known = [x.provider_id or str(x.id) for x in batches.open_batches_all(s)]
            which = ", ".join(known) if known else "none"
            fail(f"{study}: no open batch {ident!r} (open batches: {which})")
        released = batches.abandon_batch(s, b.id, f"by {login_name()} (--abandon-batch)")
    name = b.provider_id or f"{b.id} (never submitted)"
    out(
        f"batch {name} of {b.judge} abandoned: {released} call(s) released; the next run "
        "asks them again (with --batch, in a new batch)"
    )
    if b.provider_id is not None:
        out("note: if it still runs at the provider, cancel it there: its results are not read")


@contextlib.contextmanager
def _retries_shown(verbose: bool) -> Iterator[None]:
    """With ``-v``: the judge calls' log (retries, concurrency lowered) on stderr, one line
    each, for the time of the run (errors are redacted where they are made: no key)."""
    if not verbose:
        yield
        return
    from medjudge.judging.llm.workers import show_retries

    handler = show_retries()
    try:
        yield
    finally:
        logger = logging.getLogger(handler.name)
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
