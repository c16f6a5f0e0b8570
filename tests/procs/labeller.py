"""A reviewer in a tight loop: label random units through ``store.labels.set_label``.

Usage::

    python tests/procs/labeller.py STUDY REVIEWER SEED [--seconds S]

Prints ``ready <n_units>`` once the study is open, then one line
``saved <unit_id> <value> <history_id>`` per label, flushed, and only AFTER ``set_label``
returned (the label is on disk then, by the store's contract). A parent that SIGKILLs this
process may therefore hold it to every ``saved`` line it read.

Without ``--seconds`` it loops until killed. With ``--seconds`` it stops after that long and
prints one last line ``done {json}`` with what it wrote and every error it met, by type::

    {"reviewer": ..., "written": n, "errors": {"StudyBusyError": 2}, "last": {unit_id: value}}

Errors are counted, never swallowed silently: a StudyBusyError ("database is locked") here is
what a physician would have seen in the review app.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    """Label until killed or until the time is up."""
    from medjudge.store.labels import set_label
    from medjudge.store.study import Study

    path, reviewer, seed = Path(argv[0]), argv[1], int(argv[2])
    seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else None
    rng = random.Random(seed)
    study = Study.open(path)
    units: list[tuple[int, tuple[str, ...]]] = []
    for unit_id, criterion in study.conn.execute("SELECT id, criterion FROM units ORDER BY id"):
        allowed = study.settings.criterion(criterion).labels()
        if allowed:
            units.append((int(unit_id), allowed))
    print(f"ready {len(units)}", flush=True)
    written = 0
    errors: dict[str, int] = {}
    last: dict[int, str] = {}
    deadline = None if seconds is None else time.monotonic() + seconds
    while deadline is None or time.monotonic() < deadline:
        unit_id, allowed = rng.choice(units)
        value = rng.choice(allowed)
        try:
            saved = set_label(study, unit_id, reviewer, value)
        except Exception as exc:  # counted and reported: the parent asserts there are none
            name = type(exc).__name__
            errors[name] = errors.get(name, 0) + 1
            print(f"error {name} {exc}", file=sys.stderr, flush=True)
            continue
        written += 1
        last[unit_id] = value
        print(f"saved {unit_id} {value} {saved.history_id}", flush=True)
    study.close()
    print(
        "done "
        + json.dumps({"reviewer": reviewer, "written": written, "errors": errors, "last": last}),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
