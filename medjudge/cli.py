"""The ``medjudge`` command line (typer).

Exit codes: 0 ok, 1 a problem the user can fix (one clear line on stderr), 2 bad usage.
Headless commands never import the review app; ``review``/``demo`` import it inside the call.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .commands import adjudicate, agreement, demo, judge, study, team
from .commands import report as report_cmd
from .commands import review as review_cmd

app = typer.Typer(
    name="medjudge",
    help="Expert review of LLM answers to medical questions: import, judge, review, report.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"medjudge {version('medjudge')}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print medjudge's version."
        ),
    ] = False,
) -> None:
    """Expert review of LLM answers to medical questions: import, judge, review, report."""


app.command()(demo.demo)
app.command()(study.init)
app.command("import")(study.import_)
app.command()(study.status)
app.command()(study.export)
app.command()(study.backup)
app.command()(judge.judge)
app.command()(review_cmd.review)
app.command()(adjudicate.adjudicate)
app.command()(team.assign)
app.command()(team.role)
app.command()(team.settings)
app.command()(report_cmd.report)
app.command()(agreement.agreement)


def main() -> None:
    """Entry point of the console script."""
    app()
