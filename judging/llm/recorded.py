"""Judge calls recorded from a real run of the bundled local model, for the demo study.

``medjudge demo`` must show real judge verdicts without an API key. ``scripts/record_demo.py``
runs the bundled SmolLM2-135M-Instruct model (through xllamacpp) over the demo study and
writes its calls with :func:`save_recorded_run`; the demo build loads them as ordinary cached
calls with :func:`load_recorded_run` and resolves the verdicts from the cache — no model is
loaded and nothing is requested. The calls are labelled with the model that made them. A
135M model's verdicts are for trying the workflow, not for judging medicine.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from medjudge.judging.llm.run_plan import plan
from medjudge.judging.llm.run_types import RunOptions
from medjudge.judging.llm.runner import run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.db import StudyError
from medjudge.store.judgments import cached_calls
from medjudge.store.recordings import portable_calls, store_portable_calls
from medjudge.store.safe_write import text_output
from medjudge.store.study import Study

DEMO_JUDGE = JudgeConfig(
    parse_judge_spec("local:smollm2"), samples=3, temperature=0.7, max_tokens=400
)
"""The judge whose calls are recorded for the demo."""


def save_recorded_run(study: Study, judge: str, out: Path) -> int:
    """Write one judge's calls as JSONL (items by their file id); returns the number of calls."""
    n = 0
    with text_output(out, studies=(study.path,)) as fh:
        for row in portable_calls(study, judge):
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    return n


def load_recorded_run(study: Study, path: Path, judge: JudgeConfig = DEMO_JUDGE) -> int:
    """Store recorded calls as cached calls and resolve the judge's verdicts from them.

    Returns:
        The number of verdicts written.

    Raises:
        StudyError: the recording does not cover every call the judge needs (it was made with
            other templates or items): re-record it with ``scripts/record_demo.py``.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    store_portable_calls(study, (json.loads(line) for line in lines if line.strip()))
    options = RunOptions(actor="medjudge-demo")
    _, calls = plan(study, [judge], options)
    have = cached_calls(study, [c.key for c in calls])
    missing = [c for c in calls if c.key not in have]
    if missing:
        raise StudyError(
            f"{path}: the recorded demo calls do not cover {len(missing)} of {len(calls)} calls "
            "(templates or demo items changed); re-record with scripts/record_demo.py"
        )
    summary = asyncio.run(run_judges(study, [judge], options))
    return summary.verdicts_added
