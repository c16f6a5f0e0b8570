"""The ``medjudge`` command line (typer).

Exit codes: 0 ok, 1 a problem the user can fix (one clear line on stderr), 2 bad usage.
Headless commands never import the review app; ``review``/``demo`` import it inside the call.
"""

from __future__ import annotations

import errno
import gc
import importlib
import os
import sys
import time
from typing import Annotated

import typer

from medjudge.commands.common import resume_collection
from medjudge.commands.help_names import ReadableCommand

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "demo"),
    "init": ("study", "init"),
    "import": ("study", "import_"),
    "status": ("study", "status"),
    "export": ("study", "export"),
    "search": ("search", "search"),
    "backup": ("study", "backup"),
    "judge": ("judge", "judge"),
    "review": ("review", "review"),
    "adjudicate": ("adjudicate", "adjudicate"),
    "serve": ("serve", "serve"),
    "assign": ("team", "assign"),
    "role": ("team", "role"),
    "settings": ("study_settings", "settings"),
    "retire": ("team", "retire"),
    "requeue": ("requeue", "requeue"),
    "doctor": ("team", "doctor"),
    "report": ("report", "report"),
    "agreement": ("agreement", "agreement"),
}
"""Every command, in the order ``--help`` lists them: name → (module in ``commands``, function)."""


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"medjudge {version('medjudge')}")
        raise typer.Exit()


def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print medjudge's version."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Say more on stderr: the command's time and peak memory at the end, and for "
            "judge each retry.",
        ),
    ] = False,
) -> None:
    """Expert review of LLM answers to medical questions: import, judge, review, report."""
    if verbose:
        import atexit

        from medjudge.commands.common import VERBOSE_ENV

        os.environ[VERBOSE_ENV] = "1"
        atexit.register(_timings, _STARTED[0] if _STARTED else time.perf_counter())


_STARTED: list[float] = []
"""When ``main`` began (``-v`` reports the time from there, imports included)."""


def _timings(started: float) -> None:
    """``-v``: the command's wall time and peak memory, on stderr."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sys.stderr.write(f"took {time.perf_counter() - started:.2f} s; peak memory {peak:.0f} MB\n")


def build_app(only: str | None = None) -> typer.Typer:
    """The command line with every command, or with ``only`` that one (its module alone is
    imported: ``medjudge review`` does not load the other commands' code)."""
    cli = typer.Typer(
        name="medjudge",
        help="Expert review of LLM answers to medical questions: import, judge, review, report.",
        no_args_is_help=True,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        add_completion=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    cli.callback()(_root)
    for name, (module, function) in COMMANDS.items():
        if only is None or name == only:
            command = getattr(importlib.import_module(f"medjudge.commands.{module}"), function)
            cli.command(name, cls=ReadableCommand)(command)  # arguments by their metavar
    return cli


def __getattr__(name: str) -> typer.Typer:
    """``medjudge.cli.app``: the whole command line, built on first use."""
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


LATE_COLLECTION = ("review", "demo", "judge")
"""Commands that resume collection themselves: the review app once its first frame is shown,
``judge`` once the SDK of its judges is loaded (a third of a second of imports)."""


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""What numpy's BLAS reads for its thread count, once, when numpy is first imported."""


def one_blas_thread() -> None:
    """One BLAS thread unless the user set another count (the variables are only defaults).

    numpy's BLAS starts a thread per core, and on medjudge's small matrices they spin more
    than they compute: ``agreement`` on 10,000 units cost 1.3 times the CPU of one thread. It
    must run before numpy is first imported (no command imports it at start-up). The local
    judge sizes its own threads (llama.cpp's OpenMP region is given its count explicitly).
    """
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def main() -> None:
    """Entry point of the console script: a command named first loads only its own module.

    Garbage collection is paused while the modules load (each full collection rescans every
    object the imports made, about 15 ms at start-up) and resumes with those objects frozen
    out of later scans: for the review app once its first frame is on screen, for ``judge`` once
    its judges' SDK is loaded, for the other commands before they run.
    """
    _STARTED.append(time.perf_counter())
    one_blas_thread()
    gc.disable()
    first = sys.argv[1] if len(sys.argv) > 1 else None
    cli = build_app(first if first in COMMANDS else None)
    if first not in LATE_COLLECTION:
        resume_collection()
    try:
        cli()
    except OSError as exc:
        if exc.errno not in OUTPUT_ERRORS:
            raise
        _output_failed(exc)
    finally:
        resume_collection()


OUTPUT_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EPIPE, errno.EIO, errno.EFBIG}
"""Errors of a write that no command handled itself: in practice standard output (a full
disk behind ``> file``, a closed pipe); said in one line, never a traceback."""


def _output_failed(exc: OSError) -> None:
    try:  # what is still buffered for stdout cannot be written either: drop it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    if exc.errno != errno.EPIPE:  # a closed pipe is the reader's choice (`| head`)
        sys.stderr.write(f"error: cannot write the output ({exc.strerror})\n")
    sys.exit(1)
