"""Run several ``medjudge`` commands in one process, e.g. with stdout on a pseudo-terminal.

Usage::

    python tests/procs/cli_many.py '[["status", "s.db"], ["export", "s.db", "labels"]]'

After each command it writes ``\\n@@END <exit code>@@\\n`` to stdout, so the caller can cut
the output per command. Starting Python and the CLI once instead of per command keeps a
terminal test of a dozen commands to a couple of seconds.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    """Run each argv of the JSON list through the real typer app."""
    from medjudge.cli import app

    for argv in json.loads(sys.argv[1]):
        try:
            app(argv, prog_name="medjudge")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        sys.stdout.flush()
        sys.stdout.write(f"\n@@END {code}@@\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
