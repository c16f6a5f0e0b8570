"""Store figures: importing 100,000 statements, and how long a vote takes to be durable.

Vote-to-durable is the wall time of ``set_label`` — one ``BEGIN IMMEDIATE`` … ``COMMIT``
with ``synchronous=FULL`` — which is what the review app waits for before it shows "saved".
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from medjudge.store.importing.run import import_file  # noqa: E402
from medjudge.store.labels import set_label  # noqa: E402
from medjudge.store.study import Study  # noqa: E402


def run() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "statements.jsonl"
        with src.open("w", encoding="utf-8") as fh:
            for i in range(10_000):  # 10,000 answers × 10 statements = 100,000 statements
                fh.write(
                    json.dumps(
                        {
                            "id": f"s{i}",
                            "question": f"Question {i}: is this safe with my other medicines?",
                            "answer": f"Answer {i}. "
                            + "Some explanation of the risks and benefits. " * 8,
                            "source": f"model-{i % 3}",
                            "must_have": [
                                f"Statement {i}.{k} about dosing and interactions."
                                for k in range(6)
                            ],
                            "nice_to_have": [f"Optional statement {i}.{k}." for k in range(4)],
                        }
                    )
                    + "\n"
                )
        study = Study.create(Path(tmp) / "big.db")
        tracemalloc.start()
        t0 = time.monotonic()
        summary = import_file(study, src, "statements", actor="bench")
        import_s = time.monotonic() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        assert summary.statements_added == 100_000
        units = [r[0] for r in study.conn.execute("SELECT id FROM units LIMIT 300")]
        lat = []
        for i, unit in enumerate(units):
            t0 = time.perf_counter()
            set_label(study, unit, "bench", ["entailed", "neutral", "contradicted"][i % 3])
            lat.append((time.perf_counter() - t0) * 1000)
        study.close()
    lat.sort()
    return [
        {
            "name": "import 100,000 statements (10,000 items)",
            "value": round(import_s, 2),
            "unit": "s",
            "target": "(all or nothing, one transaction)",
            "peak_mb": round(peak, 1),
        },
        {
            "name": "vote to durable, median",
            "value": round(statistics.median(lat), 2),
            "unit": "ms",
            "target": "before 'saved' is shown; tens of ms",
            "peak_mb": None,
        },
        {
            "name": "vote to durable, p99",
            "value": round(lat[int(len(lat) * 0.99) - 1], 2),
            "unit": "ms",
            "target": "< 50 ms",
            "peak_mb": None,
        },
    ]


if __name__ == "__main__":
    for r in run():
        print(r)
