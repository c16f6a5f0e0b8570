"""The review app: wires the screens, the live-update timer and the background workers.

:func:`make_app` is the one way to build the app, shared by ``medjudge review``, ``medjudge
demo`` and the tests. The app owns one :class:`Study` connection, used from the main thread
only; the agreement feed and judge runs open their own.

Live updates: a timer reads SQLite's ``data_version`` every ``poll_interval`` seconds (a
pragma, no I/O beyond the WAL index); when another connection has committed, every screen on
the stack receives :class:`StudyChanged` and refreshes what it shows.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen

from medjudge.store import paths
from medjudge.store.db import StudyError, classify
from medjudge.store.people import BadName, given_name
from medjudge.store.reads import item_kind_counts
from medjudge.store.roles import PermissionDenied, members, require
from medjudge.store.study import Study
from medjudge.tui.review.screen import ReviewScreen

from . import textual_private
from .agreement_feed import AgreementFeed
from .dialogs import HelpScreen, PromptDialog
from .judge_controls import JudgeControls
from .judge_run import JudgeRunState
from .messages import AgreementRefreshed, JudgeRunProgressed, StudyChanged
from .session import ReviewSession
from .too_small import TooSmallScreen, too_small

if TYPE_CHECKING:  # the adjudication queue loads when it is opened
    from medjudge.tui.adjudication.screen import QueueFilters


class ReviewSetupError(Exception):
    """The app cannot start for this user on this study (the message says why)."""


class ReviewApp(JudgeControls, App[None]):
    """Expert review of LLM answers, one item at a time."""

    CSS_PATH = "app.tcss"
    TITLE = "medjudge review"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        # On the overview only; shown to adjudicators, explained to anyone else (check_action).
        Binding("A", "adjudication_queue", "Adjudicate"),
        Binding("A", "adjudication_refused", "Adjudicate", show=False),
    ]

    def __init__(
        self,
        study: Study,
        session: ReviewSession,
        *,
        poll_interval: float | None = 1.0,
        start: str = "review",
    ) -> None:
        """Use :func:`make_app`."""
        super().__init__()
        self.study = study
        self.failure: str | None = None
        self.when_ready: Callable[[], None] | None = None
        """Called once the first frame is on screen (the command line resumes collection)."""
        """Set when the app ended on a damaged or unreadable study: the message to print."""
        self.session = session
        self.start = start
        """The first screen: ``review`` or ``adjudicate`` (the adjudication queue)."""
        self.queue_filters: QueueFilters | None = None
        """Filters the adjudication queue starts with (``medjudge adjudicate --kind ...``)."""
        self.poll_interval = poll_interval
        self.agreement = AgreementFeed(study.path)
        self.judge_state: JudgeRunState | None = None
        self._judge_cancel: threading.Event | None = None
        self.change_serial = 0
        """Bumped on every change to the study (ours or another process's)."""
        self.animation_level = "none"
        self._data_version = 0
        self.settings_serial = 0
        """Counts the times another process changed the study's settings (or guidelines)."""
        self._agreement_running = False
        self._agreement_again = False
        self._toast_shown: tuple[str, str] | None = None
        self._toast_until = 0.0
        textual_private.intercept_exceptions(self, self._study_failure)

    def get_default_screen(self) -> Screen[None]:
        """The review screen is the base of the stack (the queue, for ``start="adjudicate"``)."""
        if self.start == "adjudicate":
            from medjudge.tui.adjudication.screen import AdjudicationScreen

            return AdjudicationScreen(base=True, filters=self.queue_filters)
        return ReviewScreen(self.session)

    @property
    def review(self) -> ReviewScreen:
        """The review screen (always at the bottom of the stack)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, ReviewScreen)
        return screen

    def on_resize(self, event: events.Resize) -> None:
        """Below the size the screens need, cover them with the 'too small' screen."""
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        showing = isinstance(self.screen, TooSmallScreen)
        if too_small(width, height):
            if showing:
                self.screen.show(width, height)  # type: ignore[attr-defined]
            else:
                self.push_screen(TooSmallScreen())
        elif showing:
            self.pop_screen()

    def on_ready(self) -> None:
        """The first frame is on screen: run what waited for it (``when_ready``).

        What exists now (modules, the app, its screens and widgets) lives as long as the app,
        so it is moved out of the garbage collector's sight (``gc.freeze``): a full collection
        otherwise walks all of it again: measured on the loaded 2-core machine, one fell on
        about one key in fifty and took 77 ms on average (5 ms once frozen).
        :meth:`on_unmount` gives it back.
        """
        gc.freeze()
        if self.when_ready is not None:
            self.when_ready()

    def on_mount(self) -> None:
        """Start watching the study file for other writers."""
        self._fit(self.size.width, self.size.height)
        self._data_version = self.study.data_version()
        if self.poll_interval:
            self.set_interval(self.poll_interval, self.poll_study)

    def _study_failure(self, error: Exception) -> bool:
        """A damaged or unreadable study met while reviewing ends the app with the store's one
        clear line (``failure``, printed by the command), not a traceback (True); anything else
        is Textual's usual handling (:func:`.textual_private.intercept_exceptions`)."""
        if isinstance(error, sqlite3.Error):
            error = classify(self.study.path, error)
        if not isinstance(error, StudyError):
            return False
        self.failure = str(error)
        self.exit(return_code=1)
        return True

    def on_unmount(self) -> None:
        """Close connections; let the collector see what :meth:`on_ready` froze, so an ended
        app is freed."""
        self.agreement.close()
        self.study.close()
        gc.unfreeze()

    # -- live updates ----------------------------------------------------------------------
    def poll_study(self) -> None:
        """Tell the screens when another connection has written to the study."""
        try:
            version = self.study.data_version()
        except Exception:  # noqa: BLE001 - a hiccup reading a pragma is retried next tick
            return
        if version != self._data_version:
            self._data_version = version
            try:
                # re-read when changed (and only then): screens compare the serial
                self.settings_serial += self.study.settings_changed()
            except Exception:  # noqa: BLE001 - a hiccup reading a row is retried next tick
                self.study.reload()
            self.announce_change()

    def announce_change(self) -> None:
        """Every screen on the stack refreshes what it shows."""
        self.change_serial += 1
        for screen in self.screen_stack:
            screen.post_message(StudyChanged())

    @on(ReviewScreen.LabelSaved)
    @on(ReviewScreen.LabelUndone)
    def _own_change(self) -> None:
        self.change_serial += 1

    def refresh_agreement(self) -> None:
        """Recompute agreement in a thread; a request during a run queues one more run."""
        if self._agreement_running:
            self._agreement_again = True
            return
        self._agreement_running = True
        self._agreement_worker()

    @work(thread=True, group="agreement", exit_on_error=False)
    def _agreement_worker(self) -> None:
        try:
            snapshot = self.agreement.snapshot()
        except Exception as exc:  # noqa: BLE001 - shown, never fatal
            from .agreement_feed import Snapshot

            snapshot = Snapshot(error=f"agreement could not be computed: {exc}")
        self.call_from_thread(self._agreement_done, snapshot)

    def _agreement_done(self, snapshot: object) -> None:
        self._agreement_running = False
        for screen in self.screen_stack:
            screen.post_message(AgreementRefreshed(snapshot))
        if self._agreement_again:
            self._agreement_again = False
            self.refresh_agreement()

    @on(JudgeRunProgressed)
    def _judge_message(self, message: JudgeRunProgressed) -> None:
        """A background judge run moved on (its worker posts these; a mixin's handler would
        not be collected by Textual, so it lives here)."""
        self._judge_progressed(message.state)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """One toast at a time: the same message while it is up is not shown again, another
        one replaces it (stacked toasts would climb over the answers at 80×24; the toast
        itself sits over the bottom rows, ``app.tcss``). Called on the app's thread."""
        now = time.monotonic()
        if (title, message) == self._toast_shown and now < self._toast_until:
            return
        self.clear_notifications()
        self._toast_shown = (title, message)
        self._toast_until = now + (self.NOTIFICATION_TIMEOUT if timeout is None else timeout)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_key(self, event: events.Key) -> None:
        """A key no binding took: one typed in a burst with the key that opened a prompt
        reached the screen under it (the prompt was not up yet) and is the prompt's; another
        goes to the screen's ``key_not_taken`` (one that does nothing may say so)."""
        top = self.screen
        if isinstance(top, PromptDialog):
            if event is not top.passed and event.is_printable and event.character:
                top.take_key(event.character)
            return
        not_taken = getattr(top, "key_not_taken", None)
        if not_taken is not None:
            not_taken(event.key, event.character)

    def action_help(self) -> None:
        """Show every key."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(item_kind_counts(self.study)))

    def action_overview(self) -> None:
        """Open the study overview on top of the review screen."""
        from .overview_screen import OverviewScreen

        if isinstance(self.screen, ReviewScreen):
            self.push_screen(OverviewScreen(self.session), self._overview_closed)

    def _overview_closed(self, item_id: int | None) -> None:
        if item_id is None:
            return
        pos = self.session.position_of(item_id)
        if pos is not None:
            self.review.show_index(pos)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``A`` works on the overview: the queue for adjudicators, an explanation for others."""
        if action in ("adjudication_queue", "adjudication_refused"):
            from .overview_screen import OverviewScreen

            if not isinstance(self.screen, OverviewScreen):
                return False
            try:
                allowed = self.may_adjudicate()
            except StudyError:
                allowed = False
            return allowed == (action == "adjudication_queue")
        return True

    def may_adjudicate(self) -> bool:
        """Whether the session's login holds the adjudicator role (read now, roles change)."""
        try:
            require(self.study, self.session.reviewer, "adjudicate")
        except PermissionDenied:
            return False
        return True

    def action_adjudication_queue(self) -> None:
        """Open the adjudication queue (the role is checked again as it opens)."""
        if self._adjudicator_or_refuse():
            from medjudge.tui.adjudication.screen import AdjudicationScreen  # the queue: on demand

            self.push_screen(AdjudicationScreen())

    def action_adjudication_refused(self) -> None:
        """Say why the queue does not open, and who can grant the role."""
        if self._adjudicator_or_refuse():
            self.refresh_bindings()  # granted meanwhile: A now opens the queue

    def _adjudicator_or_refuse(self) -> bool:
        try:
            require(self.study, self.session.reviewer, "adjudicate")
        except StudyError as exc:
            self._refuse(exc)
            return False
        return True

    def _refuse(self, exc: StudyError) -> None:
        leads = members(self.study)["lead"]
        who = f" Leads of this study: {', '.join(leads)}." if leads else ""
        self.notify(
            f"{exc}.{who}",
            title="adjudicators only",
            severity="error",
            markup=False,
            timeout=10,
        )

    async def action_quit(self) -> None:
        """Record the time on the current item, then leave (labels are already on disk)."""
        if isinstance(self.screen_stack[0], ReviewScreen):
            try:
                self.review.leave_item(now=True)
            except StudyError as exc:
                self.notify(str(exc), severity="error", markup=False)
        self.exit()


def make_app(
    db_path: str | os.PathLike[str],
    *,
    reviewer: str | None = None,
    assigned_only: bool | None = None,
    batch: str | None = None,
    poll_interval: float | None = 1.0,
    start: str = "review",
) -> ReviewApp:
    """Open a study for one reviewer and build the app.

    Args:
        db_path: the study file.
        reviewer: review under this name instead of the login name (only when the study
            allows it).
        assigned_only: only the reviewer's assigned items; default: when they have any.
        batch: only the items of one batch.
        poll_interval: seconds between checks for other writers (None: never).
        start: ``review`` (the review screen) or ``adjudicate`` (the adjudication queue, for
            adjudicators only).

    Raises:
        StudyError: the study cannot be opened (``PermissionDenied``: roles are enforced and
            the reviewer has none, or ``start="adjudicate"`` and they are not an adjudicator).
        ReviewSetupError: the reviewer may not review this study under that name.
    """
    if start not in ("review", "adjudicate"):
        raise ValueError(f"start must be 'review' or 'adjudicate', not {start!r}")
    study = Study.open(Path(db_path))
    try:
        login = paths.login_name()
        if reviewer is not None:
            try:
                reviewer = given_name(reviewer, "--reviewer: the name")
            except BadName as exc:
                raise ReviewSetupError(str(exc)) from None
        name = reviewer or login
        if (
            reviewer is not None
            and reviewer != login
            and not study.settings.allow_reviewer_override
        ):
            raise ReviewSetupError(
                f"--reviewer: this study does not allow reviewing under another name; you review "
                f"as your login name {login!r} (the study lead can set allow_reviewer_override)"
            )
        require(study, name, "adjudicate" if start == "adjudicate" else "review")
        session = ReviewSession(study, name, assigned_only=assigned_only, batch=batch)
    except BaseException:
        study.close()
        raise
    return ReviewApp(study, session, poll_interval=poll_interval, start=start)
