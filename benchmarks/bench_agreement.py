"""Benchmark: live agreement and the report on a study with 60,000 labels.

The study (5,000 pairwise items × 6 criteria × 2 reviewers = 60,000 labels, 5 batches, two
model pairs) is written with ``executemany`` straight into a temporary study file, labels and
their history rows alike, as the store would hold them.

Figures:

- ``live_agreement_load_60k_labels``: building :class:`LiveAgreement` (reads every label)
  and its first rows;
- ``live_agreement_refresh_one_label_60k_labels``: another connection saves one label, then
  ``refresh()`` + ``rows()`` (median of 20 rounds) — the review app's live table;
- ``report_build_60k_labels``: :func:`build_report` with 1,000 bootstrap resamples;
- ``report_md_html_60k_labels``: build + Markdown + HTML rendering, end to end.

``peak_mb`` is the process's peak resident memory after the step (``ru_maxrss``).
"""

from __future__ import annotations

import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from medjudge.judging.analysis.live import LiveAgreement
from medjudge.judging.report.build import ReportOptions, build_report, render
from medjudge.kinds.pairwise import VERDICTS as PAIRWISE_VERDICTS
from medjudge.store.labels import set_label
from medjudge.store.study import Study, utcnow

ITEMS = 5_000
REVIEWERS = ("ann", "bob")


def _peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


def build_study(path: Path, items: int = ITEMS, seed: int = 1) -> int:
    """Write a pairwise study with two reviewers' labels on every unit; returns the label count."""
    rnd = random.Random(seed)
    study = Study.create(path, actor="bench")
    criteria = [c.name for c in study.settings.criteria_for("pairwise")]
    now = utcnow()
    rater_ids = [study.rater_id(r, "human") for r in REVIEWERS]
    with study.tx() as conn:
        conn.executemany(
            "INSERT INTO items (id, ext_id, kind, question, data, batch, shown_order, "
            "content_hash, created_at) VALUES (?, ?, 'pairwise', ?, '{}', ?, ?, ?, ?)",
            [
                (i, f"p{i}", f"Question {i}?", f"b{i % 5}", "BA" if i % 2 else "AB", f"h{i}", now)
                for i in range(1, items + 1)
            ],
        )
        conn.executemany(
            "INSERT INTO answers (item_id, position, text, source) VALUES (?, ?, ?, ?)",
            [
                row
                for i in range(1, items + 1)
                for row in (
                    (i, "A", f"Answer A {i}", "model-x"),
                    (i, "B", f"Answer B {i}", "model-y" if i % 2 else "model-z"),
                )
            ],
        )
        conn.executemany(
            "INSERT INTO units (id, item_id, criterion, statement_id, position) "
            "VALUES (?, ?, ?, NULL, ?)",
            [
                ((i - 1) * len(criteria) + k + 1, i, c, k)
                for i in range(1, items + 1)
                for k, c in enumerate(criteria)
            ],
        )
        labels, history = [], []
        for unit in range(1, items * len(criteria) + 1):
            truth = rnd.choice(PAIRWISE_VERDICTS)
            for rater in rater_ids:
                value = truth if rnd.random() < 0.75 else rnd.choice(PAIRWISE_VERDICTS)
                labels.append((unit, rater, value, now))
                history.append((unit, rater, value, now))
        conn.executemany(
            "INSERT INTO labels (unit_id, rater_id, value, updated_at) VALUES (?, ?, ?, ?)", labels
        )
        conn.executemany(
            "INSERT INTO label_history (unit_id, rater_id, old_value, new_value, action, "
            "after_reveal, actor, at) VALUES (?, ?, NULL, ?, 'label', 0, 'bench', ?)",
            history,
        )
    study.close()
    return len(labels)


def run() -> list[dict[str, Any]]:
    """Run the benchmark; one dict per figure (name, value, unit, target, peak_mb)."""
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="medjudge-bench-") as tmp:
        path = Path(tmp) / "bench.db"
        n_labels = build_study(path)
        assert n_labels == 60_000
        study = Study.open(path)
        writer = Study.open(path)  # a second reviewer's process
        try:
            t0 = time.perf_counter()
            live = LiveAgreement(study)
            live.rows()
            results.append(
                {
                    "name": "live_agreement_load_60k_labels",
                    "value": round(time.perf_counter() - t0, 3),
                    "unit": "s",
                    "target": "< 2 s (opening the review app)",
                    "peak_mb": _peak_mb(),
                }
            )
            units = [
                r[0]
                for r in writer.conn.execute(
                    "SELECT id FROM units WHERE criterion = 'correctness' ORDER BY id LIMIT 20"
                )
            ]
            times = []
            for i, unit in enumerate(units):
                set_label(writer, unit, "ann", PAIRWISE_VERDICTS[i % 4])
                t0 = time.perf_counter()
                changed = live.refresh()
                rows = live.rows()
                times.append(time.perf_counter() - t0)
                assert changed and rows
            results.append(
                {
                    "name": "live_agreement_refresh_one_label_60k_labels",
                    "value": round(statistics.median(times) * 1000, 2),
                    "unit": "ms",
                    "target": "< 1000 ms (well under a second)",
                    "peak_mb": None,
                }
            )

            t0 = time.perf_counter()
            report = build_report(study, ReportOptions(n_boot=1000))
            built = time.perf_counter() - t0
            results.append(
                {
                    "name": "report_build_60k_labels",
                    "value": round(built, 2),
                    "unit": "s",
                    "target": "< 30 s",
                    "peak_mb": _peak_mb(),
                }
            )
            t0 = time.perf_counter()
            md = render(report, "md")
            html = render(report, "html")
            rendered = time.perf_counter() - t0
            assert md and html
            results.append(
                {
                    "name": "report_md_html_60k_labels",
                    "value": round(built + rendered, 2),
                    "unit": "s",
                    "target": "< 30 s",
                    "peak_mb": _peak_mb(),
                }
            )
        finally:
            writer.close()
            study.close()
    return results


if __name__ == "__main__":
    print(run())
