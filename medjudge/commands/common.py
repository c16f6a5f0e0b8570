"""What every command shares: consoles that print data literally, and error handling.

Output consoles have markup and highlighting off, so text from a study (answers, model output)
prints exactly as stored, after :func:`printable` has neutralised escape sequences.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from medjudge.serve import SERVED_ENV
from medjudge.store.db import StudyError, classify
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.items import find_item
from medjudge.store.literal import printable
from medjudge.store.study import Study
from medjudge.store.user_settings import SettingsError

console = Console(markup=False, highlight=False, emoji=False, soft_wrap=True)
err_console = Console(stderr=True, markup=False, highlight=False, emoji=False, soft_wrap=True)


VERBOSE_ENV = "MEDJUDGE_VERBOSE"
"""Set by ``medjudge -v``: commands with more to say (``judge``'s retries) say it."""
STUDY_ENV = "MEDJUDGE_STUDY"
"""The environment variable naming a default study."""
OnlyStudyArg = Annotated[
    Path,
    typer.Argument(
        help="The study file (one SQLite file per study); default: $MEDJUDGE_STUDY.",
        envvar=STUDY_ENV,
        show_envvar=False,
    ),
]
"""The study argument of a command that takes no other argument: it may come from
``MEDJUDGE_STUDY`` (commands with further arguments always name the study, so the two cannot be
mistaken for each other)."""
EpsilonOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="The alternative annotator test's cost-benefit margin ε: 0.2 for experts such as "
        "physicians, 0.15 for trained annotators, 0.1 for crowd workers (the paper's advice).",
        metavar="EPS",
    ),
]
"""``--epsilon`` of ``agreement`` and ``report``: the alt-test's margin (default 0.2)."""
FdrQOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="The alternative annotator test's false discovery rate (Benjamini–Yekutieli over "
        "the physicians' p-values).",
        metavar="Q",
    ),
]
"""``--fdr-q`` of ``agreement`` and ``report``: the alt-test's false discovery rate (default
0.05)."""


class UserError(Exception):
    """A problem the user can fix; printed as one line, exit code 1."""


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with code 1."""
    err_console.print("error: " + printable(message))
    raise typer.Exit(1)


@contextmanager
def user_errors(study: Path | None = None) -> Iterator[None]:
    """Turn the errors a user can act on into one clear line and exit code 1.

    With ``study``, SQLite errors raised by reads outside a transaction (a damaged page met
    halfway through a report) get the same message as the store gives for writes.
    """
    try:
        yield
    except (StudyError, ImportProblem, SettingsError, UserError) as exc:
        fail(str(exc))
    except sqlite3.Error as exc:
        if study is None:
            raise
        fail(str(classify(study, exc)))
    except KeyboardInterrupt:
        err_console.print("interrupted")
        raise typer.Exit(130) from None


@contextmanager
def opened(path: Path, *, check: bool = False) -> Iterator[Study]:
    """Open a study for a command, closing it afterwards.

    ``check``: commands that write check every page first, so a damaged file is refused before
    anything is written (see :meth:`Study.open`).
    """
    with user_errors():
        study = Study.open(path, check=check)
    try:
        with user_errors(path):
            yield study
    finally:
        study.close()


def standard_output(output: Path | None) -> Path | None:
    """``-o -`` means standard output, as leaving ``-o`` out does: None for ``-``, else
    ``output`` (a file named ``-`` is reached by its full path)."""
    return None if output is not None and str(output) == "-" else output


def out(text: str) -> None:
    """Print one line of (possibly untrusted) text on stdout, literally."""
    console.print(printable(text))


def has_terminal() -> bool:
    """Whether the review app can run here: standard input and output are both a terminal
    that can draw (``TERM=dumb`` cannot: an Emacs shell buffer, some CI consoles)."""
    return terminal_problem() is None


WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""Textual's driver for an app drawn in a browser (textual-serve sets ``TEXTUAL_DRIVER``)."""


def served() -> bool:
    """Whether this is an app process of ``medjudge serve``: Textual's web driver speaks its
    framed protocol over the pipes the server holds (standard input and output are never a
    terminal there, by design). Both markers are needed, so neither an exported
    ``TEXTUAL_DRIVER`` nor a stray variable lets the app start without a terminal or server."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER and os.environ.get(SERVED_ENV) == "1"


def terminal_problem() -> str | None:
    """Why the review app cannot run here, or None."""
    if served():
        return None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return "standard input and output must both be one (over SSH, connect with ssh -t)"
    if os.environ.get("TERM", "") in ("dumb", "unknown"):
        return (
            f"TERM={os.environ['TERM']} cannot draw it (run it in a terminal emulator, or set "
            "TERM=xterm-256color)"
        )
    return None


def is_tty() -> bool:
    """Whether stdout is a terminal (progress bars only then)."""
    return sys.stdout.isatty()


def resume_collection() -> None:
    """Resume garbage collection paused at start-up (see ``medjudge.cli.main``), with the
    objects made so far frozen out of later scans. Does nothing when it runs already."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def only_items(s: Study, text: str, matching: list[int]) -> list[int]:
    """``--items``: the listed items (ids of the import file) among ``matching``, in study
    order; an id the study does not have is an error naming it."""
    wanted = [x.strip() for x in text.split(",") if x.strip()]
    if not wanted:
        raise UserError("--items: no item id given (e.g. --items pw-01,pw-07)")
    found = {x: find_item(s, x) for x in wanted}
    unknown = [x for x, i in found.items() if i is None]
    if unknown:
        raise UserError(f"--items: no item {', '.join(map(repr, unknown))} in this study")
    chosen = {i for i in found.values() if i is not None}
    return [i for i in matching if i in chosen]
