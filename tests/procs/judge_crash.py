"""``medjudge judge`` that crashes with an unexpected exception after a few calls.

Usage::

    python tests/procs/judge_crash.py STUDY -j SPEC ...   (the arguments of `medjudge judge`)

The progress display raises RuntimeError on the third finished call, so the run dies the way
an unforeseen bug would: a plain Python traceback on stderr. Tests grep that traceback (and the
study file left behind) for secrets.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Patch the progress display to blow up, then run the real CLI."""
    from medjudge.commands import judge_run

    original = judge_run.ProgressDisplay.call_done

    def call_done(self, event, summary):  # type: ignore[no-untyped-def]
        original(self, event, summary)
        if self.done >= 3:
            raise RuntimeError("forced crash in the middle of a judge run")

    judge_run.ProgressDisplay.call_done = call_done  # type: ignore[method-assign]
    from medjudge.cli import app

    sys.argv = ["medjudge", "judge", *sys.argv[1:]]
    app()


if __name__ == "__main__":
    main()
