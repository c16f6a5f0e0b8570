"""Label one unit through the store and say how it went (for tests that change the user).

Usage::

    python tests/procs/store_label.py STUDY REVIEWER VALUE

Prints ``saved`` on success, or ``error <ExceptionType>: <message>`` and exits 1. Any other
outcome (a traceback) is what the calling test is looking for.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Open the study, label its first unit, report."""
    from medjudge.store.db import StudyError
    from medjudge.store.labels import set_label
    from medjudge.store.study import Study

    path, reviewer, value = argv
    try:
        with Study.open(path) as study:
            unit = study.conn.execute("SELECT min(id) FROM units").fetchone()[0]
            set_label(study, unit, reviewer, value)
    except StudyError as exc:
        print(f"error {type(exc).__name__}: {exc}", flush=True)
        return 1
    print("saved", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
