"""``medjudge demo``: build the bundled demo study and open it in the review app."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from medjudge.demo.build import build_demo
from medjudge.store import paths

from .common import out, user_errors


def has_terminal() -> bool:
    """Whether the app can run here (standard input and output are a terminal)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def demo(
    rebuild: Annotated[
        bool, typer.Option(help="Throw away the demo study and build it anew.")
    ] = False,
    build_only: Annotated[
        bool, typer.Option(help="Build the study and print where it is.")
    ] = False,
) -> None:
    """Build the demo study (illustrative, not medical advice) and open it.

    \b
    Example:
      medjudge demo
      MEDJUDGE_HOME=/tmp/mj medjudge demo --build-only
    """
    path: Path = paths.demo_study()
    with user_errors():
        if rebuild:
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        if not path.exists():
            build_demo(path, actor=paths.login_name()).close()
            out(f"built the demo study at {path}")
        else:
            out(f"demo study: {path}")
    if build_only:
        out(f"next: medjudge review {path} --reviewer NAME, or medjudge demo to open it")
        return
    if not has_terminal():
        # No terminal (a pipe, CI, a script): the app cannot run; show what the study holds.
        from .study import status

        status(path)
        out("the review app needs a terminal: run `medjudge demo` in one to open the study")
        return
    from medjudge.tui.app import make_app  # the UI loads only here

    with user_errors():
        app = make_app(path)
    app.run()
