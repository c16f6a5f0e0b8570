"""``medjudge review``: label a study's items in the terminal review app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    OnlyStudyArg,
    UserError,
    fail,
    has_terminal,
    resume_collection,
    terminal_problem,
    user_errors,
)


def review(
    study: OnlyStudyArg,
    reviewer: Annotated[
        str | None,
        typer.Option(
            help="Review under this name instead of your login name (only if the study allows it)."
        ),
    ] = None,
    assigned_only: Annotated[
        bool | None,
        typer.Option(
            "--assigned-only/--all-items",
            help="Only the items assigned to you (the default when you have assignments).",
        ),
    ] = None,
    batch: Annotated[str | None, typer.Option(help="Only the items of this batch.")] = None,
) -> None:
    """Review items one at a time: one key per verdict, blind until your labels are saved.

    Press ? in the app for every key. Several reviewers can work on one study file at once;
    each sees the others' progress and the agreement table update live.

    \b
    Example:
      medjudge review trial.db
      medjudge review trial.db --all-items
      medjudge review trial.db --batch week-2
      medjudge review demo.sqlite --reviewer dr_demo
    """
    run_app(study, "review", reviewer=reviewer, assigned_only=assigned_only, batch=batch)


def run_app(
    study: Path, what: str, configure: Callable[[Any], None] | None = None, **options: Any
) -> None:
    """Open the review app on ``study`` (``options`` go to ``make_app``), run it, and turn how
    it ended into the command's exit: a setup problem or a damaged study is one clear line and
    exit 1. ``configure`` may adjust the app before it runs."""
    from medjudge.tui.app import ReviewSetupError, make_app  # the UI loads only here

    with user_errors(study):
        try:
            app = make_app(study, **options)
        except ReviewSetupError as exc:
            raise UserError(str(exc)) from None
    if not has_terminal():  # Textual would spin without one; say so and stop at once
        app.study.close()
        fail(f"the {what} app needs a terminal: {terminal_problem()}")
    if configure is not None:
        configure(app)
    app.when_ready = resume_collection  # once the first frame is on screen
    app.run()
    if app.failure is not None:
        fail(app.failure)
    if app.return_code not in (None, 0):
        fail(f"the {what} app stopped with an error")
