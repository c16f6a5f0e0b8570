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

from medjudge.judging.llm.runner import RunOptions, plan, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.db import StudyError
from medjudge.store.judgments import CALL_COLUMNS, cached_calls, record_call
from medjudge.store.study import Study

DEMO_JUDGE = JudgeConfig(
    parse_judge_spec("local:smollm2"), samples=3, temperature=0.7, max_tokens=400
)
"""The judge whose calls are recorded for the demo."""

_COLUMNS = tuple(c for c in CALL_COLUMNS if c not in ("item_id", "run_id"))
"""What a recording keeps of each call (items are named by their file id instead)."""


def save_recorded_run(study: Study, judge: str, out: Path) -> int:
    """Write one judge's calls as JSONL (items by their file id); returns the number of calls."""
    rows = study.conn.execute(
        f"SELECT {', '.join('c.' + c for c in _COLUMNS)}, i.ext_id AS item, s.position AS statement "
        "FROM judge_calls c JOIN items i ON i.id = c.item_id "
        "LEFT JOIN statements s ON s.id = CAST(substr(c.task, instr(c.task, '/') + 1) AS INTEGER) "
        "AND c.task NOT LIKE 'pairwise/%' "
        "WHERE c.judge = ? AND c.status != 'error' ORDER BY i.id, c.task, c.sample",
        (judge,),
    )
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(dict(r), ensure_ascii=False, sort_keys=True) + "\n")
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
    items = {r[0]: r[1] for r in study.conn.execute("SELECT ext_id, id FROM items")}
    stmt_ids = {
        (r[0], r[1]): r[2]
        for r in study.conn.execute(
            "SELECT i.ext_id, s.position, s.id FROM statements s JOIN items i ON i.id = s.item_id"
        )
    }
    with study.tx() as conn:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            ext_id = row.pop("item")
            row["item_id"] = items[ext_id]
            position = row.pop("statement")
            if position is not None:  # statement ids differ between builds; positions do not
                row["task"] = f"{row['task'].split('/')[0]}/{stmt_ids[(ext_id, position)]}"
            record_call(conn, row)
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
