"""How ``--help`` names what a command takes: the class of every medjudge command.

An option's value reads as people write it because each option that needs one names its
metavar (``--timeout SECONDS``, ``--judge SPEC``): typer then shows that alone. An argument's
metavar is shown *with* its type (``REVIEWER <list[str]>``, ``FILE <path>``), since typer
does not let a metavar replace an argument's type, and a list reads as a Python type.
:class:`ReadableCommand` lists an argument that names a metavar, or takes several values, by
its metavar (else its name in capitals) alone, with ``...`` when it takes several
(``REVIEWER...``, ``FILE``, ``ID[,ID…]``), as an option with a metavar is listed; the other
arguments (``study <path>``) and every option as typer lists them.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

__all__ = ["ReadableCommand", "argument_name"]


def argument_name(param: Any) -> str | None:
    """How the help lists an argument (``None``: as typer does): its metavar, else its name
    in capitals, with ``...`` when it takes several values; only for an argument that names a
    metavar or takes several values."""
    several = param.nargs != 1
    if param.metavar is None and not several:
        return None
    name = str(param.metavar or param.name.upper())
    if several and not name.endswith("..."):
        name += "..."
    return name


class ReadableCommand(TyperCommand):
    """A typer command whose help lists arguments by their metavar (see the module)."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The Arguments and Options sections, as typer writes them but for the names of
        the arguments :func:`argument_name` names."""
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = argument_name(param)
                arguments.append(record if name is None else (name, record[1]))
            elif param.param_type_name == "option":
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
