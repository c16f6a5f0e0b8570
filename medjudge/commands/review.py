"""``medjudge review``: label a study's items in the terminal review app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import UserError, fail, user_errors


def review(
    study: Annotated[Path, typer.Argument(help="The study file.")],
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
    from medjudge.tui.app import ReviewSetupError, make_app  # the UI loads only here

    with user_errors():
        try:
            app = make_app(study, reviewer=reviewer, assigned_only=assigned_only, batch=batch)
        except ReviewSetupError as exc:
            raise UserError(str(exc)) from None
    app.run()
    if app.return_code not in (None, 0):
        fail("the review app stopped with an error")
