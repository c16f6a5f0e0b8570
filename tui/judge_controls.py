"""The review app's judge controls (overview keys J and K): ask, estimate, confirm, run, stop.

A mixin of :class:`~.app.ReviewApp`: it uses the app's study, session, ``judge_state`` and
``poll_study``. The run itself happens in a thread worker (see :mod:`.judge_run`).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work

from medjudge.store import paths
from medjudge.store.roles import PermissionDenied, require

from . import render
from .dialogs import ConfirmDialog, PromptDialog
from .judge_run import JudgeRunState, TuiRunDisplay, dry_run_estimate, run_judge_blocking
from .messages import JudgeRunProgressed

if TYPE_CHECKING:
    from textual.app import App

    from medjudge.judging.llm.runner import RunSummary
    from medjudge.store.study import Study

    from .session import ReviewSession

    _Base = App[None]
else:
    _Base = object


class JudgeControls(_Base):
    """Start, follow and stop one LLM judge run from the app."""

    study: Study
    session: ReviewSession
    judge_state: JudgeRunState | None
    _judge_cancel: threading.Event | None

    def poll_study(self) -> None:  # provided by the app
        raise NotImplementedError

    def start_judge(self, spec_text: str) -> None:
        """Start one LLM judge over the whole study in the background."""
        from medjudge.judging.llm.key_routing import prepare_access
        from medjudge.judging.llm.provider_types import ProviderError
        from medjudge.judging.llm.runner import RunOptions
        from medjudge.judging.llm.specs import SpecError, parse_judge_spec
        from medjudge.judging.protocol.plan import JudgeConfig
        from medjudge.store import user_settings

        if self.judge_state is not None and self.judge_state.active:
            self.notify("A judge run is already going.", severity="warning")
            return
        try:
            prefs = user_settings.load()
            access = prepare_access([parse_judge_spec(spec_text.strip())], prefs)
        except (SpecError, ProviderError, user_settings.SettingsError) as exc:
            self.notify(str(exc), title="judge not started", severity="error", markup=False)
            return
        for notice in access.notices:
            self.notify(notice, severity="warning", markup=False)
        config = JudgeConfig(access.specs[0])
        self._judge_cancel = threading.Event()
        options = RunOptions(
            concurrency=prefs.concurrency,
            timeout_s=prefs.timeout_s,
            keys=access.keys,
            actor=self.session.reviewer,
            cancel=self._judge_cancel,
        )
        self.judge_state = JudgeRunState(judge=config.rater)
        self._judge_progressed(self.judge_state)
        self._judge_worker(config, options)

    def stop_judge(self) -> None:
        """Stop the running judge: no new calls; calls in flight finish and are kept."""
        if self.judge_state is None or not self.judge_state.active or self._judge_cancel is None:
            self.notify("No judge run is going.", severity="warning")
            return
        self._judge_cancel.set()
        self.notify("Stopping the judge: calls in flight finish and are kept.", markup=False)

    @work(thread=True, group="judge", exclusive=True, exit_on_error=False)
    def _judge_worker(self, config: object, options: object) -> None:
        state = self.judge_state or JudgeRunState(judge="judge")

        def post(st: JudgeRunState) -> None:
            self.post_message(JudgeRunProgressed(st))

        display = TuiRunDisplay(state, post)
        try:
            run_judge_blocking(self.study.path, config, options, display)  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - any failure is reported, the app goes on
            failed = dataclasses.replace(display.state, status="failed", message=str(exc))
            self.post_message(JudgeRunProgressed(failed))

    def _judge_progressed(self, state: JudgeRunState) -> None:
        self.judge_state = state
        for screen in self.screen_stack[1:]:
            screen.post_message(JudgeRunProgressed(state))
        if state.status == "done":
            self.notify(state.message, title=f"judge {state.judge} finished", markup=False)
            self.poll_study()
        elif state.status == "failed":
            self.notify(
                state.message,
                title=f"judge {state.judge} failed",
                severity="error",
                markup=False,
                timeout=15,
            )

    # -- screens ---------------------------------------------------------------------------

    def ask_judge(self) -> None:
        """Ask for a judge spec, show its calls and estimated cost, start it once confirmed.

        Paid runs are a lead's decision: others get a clear refusal (the acting person is the
        login name, as on the command line)."""
        try:
            require(self.study, paths.login_name(), "judge")
        except PermissionDenied as exc:
            self.notify(
                f"{exc}. Running a judge spends money: a lead starts it (J) or runs "
                "`medjudge judge`.",
                title="leads only",
                severity="error",
                markup=False,
                timeout=10,
            )
            return

        def estimate(answer: str | None) -> None:
            if answer and answer.strip():
                self._estimate_worker(answer.strip())

        self.push_screen(
            PromptDialog(
                "Run an LLM judge over this study",
                "openai:MODEL · anthropic:MODEL · openai:MODEL@http://host:port/v1 · local:smollm2",
            ),
            estimate,
        )

    @work(thread=True, group="judge-estimate", exclusive=True, exit_on_error=False)
    def _estimate_worker(self, spec_text: str) -> None:
        try:
            summary = dry_run_estimate(self.study.path, spec_text)
        except Exception as exc:  # noqa: BLE001 - a bad spec or settings: said, not fatal
            self.call_from_thread(
                self.notify, str(exc), title="judge not started", severity="error", markup=False
            )
            return
        self.call_from_thread(self._confirm_judge, spec_text, summary)

    def _confirm_judge(self, spec_text: str, summary: RunSummary) -> None:
        body = Text()
        body.append_text(render.lit(spec_text, "bold"))
        body.append(
            f"\n{summary.to_call:,} calls to make ({summary.cached:,} of {summary.calls_needed:,} "
            f"already cached)\nestimated tokens: {summary.est_input_tokens:,} in, "
            f"≤{summary.est_output_tokens:,} out\nestimated cost: "
            + (f"${summary.est_cost_usd:.4f}" if summary.est_cost_known else "unknown")
        )
        for note in summary.price_notes:
            body.append(f"\n{note}: its cost is counted as $0")

        def start(yes: bool | None) -> None:
            if yes:
                self.start_judge(spec_text)

        self.push_screen(ConfirmDialog("Start this judge run?", body), start)
