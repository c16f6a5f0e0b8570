"""``medjudge demo``: build the bundled demo study and open it in the review app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from medjudge.demo.build import build_demo
from medjudge.store import paths

from .common import has_terminal, out, user_errors
from .review import run_app


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
    run_app(path, "review")
