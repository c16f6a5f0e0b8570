"""Running an LLM judge from the review app, in a background thread.

Concurrency contract: the run happens in a Textual thread worker with its own
:class:`Study` connection and its own event loop (``asyncio.run``), because
:func:`run_judges` also does synchronous SQLite work that must not block the app's loop. The
runner reports through :class:`TuiRunDisplay` (the runner's ``RunDisplay`` protocol), which
hands copies of a small state object to a thread-safe ``post`` callable, at most every
``interval`` seconds plus at start and end, so a fast local judge cannot flood the screen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the runner (and its SDK imports) load when a judge runs, not at launch
    from medjudge.judging.llm.runner import CallEvent, RunOptions, RunSummary
    from medjudge.judging.protocol.plan import JudgeConfig


@dataclass(frozen=True)
class JudgeRunState:
    """Where a background judge run is."""

    judge: str
    status: str = "starting"
    """``starting``, ``running``, ``done`` or ``failed``."""
    done: int = 0
    total: int = 0
    cached: int = 0
    failed: int = 0
    cost_usd: float = 0.0
    message: str = ""

    @property
    def active(self) -> bool:
        """Whether the run is still going."""
        return self.status in ("starting", "running")


class TuiRunDisplay:
    """A ``RunDisplay`` that posts throttled state copies (called from the run's thread)."""

    def __init__(
        self, state: JudgeRunState, post: Callable[[JudgeRunState], None], interval: float = 0.1
    ) -> None:
        """Start from ``state``; ``post`` must be safe to call from another thread."""
        self.state = state
        self.post = post
        self.interval = interval
        self._last = 0.0

    def _emit(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last >= self.interval:
            self._last = now
            self.post(self.state)

    def started(self, summary: RunSummary) -> None:
        """Planning done: the number of calls to make is known."""
        self.state = dataclasses.replace(
            self.state, status="running", total=summary.to_call, cached=summary.cached
        )
        self._emit(force=True)

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """One call finished."""
        self.state = dataclasses.replace(
            self.state,
            done=self.state.done + 1,
            failed=summary.failed + summary.errors,
            cost_usd=summary.cost_usd,
        )
        self._emit()

    def finished(self, summary: RunSummary) -> None:
        """Verdicts are written."""
        message = (
            f"{summary.verdicts_added} verdicts written; {summary.ok} calls ok, "
            f"{summary.failed} failed samples, {summary.errors} errors, "
            f"{summary.cached} cached; ${summary.cost_usd:.4f}"
        )
        if summary.stopped:
            message += f"; stopped: {summary.stopped}"
        status = "done"
        if summary.failure:  # the calls kept failing: the cause first, as an error
            status, message = "failed", f"{summary.failure} ({message})"
        self.state = dataclasses.replace(
            self.state, status=status, message=message, cost_usd=summary.cost_usd
        )
        self._emit(force=True)


def run_judge_blocking(
    path: Path, config: JudgeConfig, options: RunOptions, display: TuiRunDisplay | None
) -> RunSummary:
    """Run one judge over the study on a private connection (blocks; call from a thread)."""
    from medjudge.judging.llm.runner import run_judges
    from medjudge.store.study import Study

    study = Study.open(path)
    try:
        return asyncio.run(run_judges(study, [config], options, display))
    finally:
        study.close()


def dry_run_estimate(path: Path, spec_text: str) -> RunSummary:
    """What a run of one judge (default settings) would do: the judge planner's own dry run,
    the same figures as ``medjudge judge --dry-run`` (blocks; call from a thread).

    Raises:
        SpecError: the spec is malformed.
        SettingsError: the user's settings file cannot be used.
        ProviderError: a key that must not be sent where the judge would send it.
    """
    from medjudge.judging.llm.key_routing import prepare_access
    from medjudge.judging.llm.runner import RunOptions
    from medjudge.judging.llm.specs import parse_judge_spec
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.store import user_settings

    spec = parse_judge_spec(spec_text)
    prefs = user_settings.load()
    access = prepare_access([spec], prefs)
    config = JudgeConfig(access.specs[0])
    return run_judge_blocking(path, config, RunOptions(dry_run=True, keys=access.keys), None)
