"""Benchmark: what users meet, through the real ``medjudge`` command in a real process.

Every figure runs the installed console script in a subprocess, several times, and reports
min / median / max with the reference timed in the same run:

- start-up: ``medjudge --help`` and ``medjudge status`` (10,000-item study) against
  ``python -c pass``;
- review launch: ``medjudge review`` on the 10,000-item study in tmux at 80×24, until the first
  item's text is on screen, against a bare Textual app showing one Static the same way;
- judge: ``medjudge judge`` over 4,800 calls (800 pairwise items × 2 orders × 3 samples) at
  100 ms latency, concurrency 64, against a plain ``AsyncOpenAI`` + semaphore loop sending
  4,800 requests to the same server: wall and CPU (the child's user + system time); then a
  fully cached re-run, with the requests it made;
- agreement: ``medjudge agreement`` on 10k / 50k / 100k units × 3 raters: wall and peak RSS;
- memory: ``medjudge import`` of 100,000 statements with 200,000 labels, and ``medjudge report
  -f json`` on that study: wall and peak RSS.

``python -m benchmarks cli`` (all) or ``MEDJUDGE_BENCH_QUICK=1`` for one run each and smaller
sizes. Numbers move ±20% on a shared 2-core machine: compare ratios, not absolutes.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.bench_review import build as build_review_study
from benchmarks.cli_judge import judge
from benchmarks.cli_timing import (
    ENV,
    MEDJUDGE,
    QUICK,
    RUNS,
    child_times,
    compile_package,
    row,
    time_rss,
)

# ----------------------------------------------------------------------------- start-up


def startup(study: Path) -> list[dict[str, Any]]:
    ref = [child_times([sys.executable, "-c", "pass"])[0] for _ in range(RUNS + 2)]
    helps = [child_times([MEDJUDGE, "--help"])[0] for _ in range(RUNS + 2)]
    status = [child_times([MEDJUDGE, "status", str(study)])[0] for _ in range(RUNS + 2)]
    base = statistics.median(ref)
    return [
        row("python -c pass (reference)", ref, "s", "—"),
        row(
            "medjudge --help",
            helps,
            "s",
            "< 0.3 s",
            ratio=round(statistics.median(helps) / base, 1),
        ),
        row(
            "medjudge status (10k items)",
            status,
            "s",
            "< 0.5 s",
            ratio=round(statistics.median(status) / base, 1),
        ),
    ]


# ---------------------------------------------------------------------- review launch (tmux)

BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("Question 1: bare app ready")
Bare().run()
"""


TMUX = ["tmux", "-L", f"medjudge-bench-{os.getpid()}"]
"""The benchmark's own tmux server; a keeper session holds it up between runs (a server whose
last session just closed is still exiting, and a new session sent to it fails)."""


def _tmux_until(cmd: str, text: str, timeout: float = 20.0) -> float:
    """Seconds from starting ``cmd`` in a fresh 80×24 tmux session to ``text`` on screen."""
    session = f"mjb{os.getpid()}{random.randrange(10**6)}"
    t0 = time.perf_counter()
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", cmd],
        check=True,
        env={**ENV, "TERM": "xterm-256color"},
    )
    try:
        while time.perf_counter() - t0 < timeout:
            screen = subprocess.run(
                [*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if text in screen:
                return time.perf_counter() - t0
            time.sleep(0.005)
        raise TimeoutError(f"{text!r} not on screen after {timeout} s")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


def review_launch(study: Path, tmp: Path) -> list[dict[str, Any]]:
    if shutil.which("tmux") is None:
        return [
            {"name": "review launch: tmux not installed", "value": None, "unit": "", "target": ""}
        ]
    bare = tmp / "bare.py"
    bare.write_text(BARE_APP, encoding="utf-8")
    subprocess.run([*TMUX, "new-session", "-d", "-s", "keeper", "sleep 3600"], check=True)
    try:
        ref = [_tmux_until(f"{sys.executable} {bare}", "bare app ready") for _ in range(RUNS + 1)]
        cmd = f"{MEDJUDGE} review {study} --reviewer bench"
        launch = [_tmux_until(cmd, "what should I do?") for _ in range(RUNS + 1)]
    finally:
        subprocess.run([*TMUX, "kill-server"], capture_output=True)
    return [
        row("bare Textual app to first paint, tmux 80×24 (reference)", ref, "s", "—"),
        row(
            "medjudge review, 10k items, to the first item on screen",
            launch,
            "s",
            "< 0.5 s, ≤ 2× the bare app",
            ratio=round(statistics.median(launch) / statistics.median(ref), 1),
        ),
    ]


# --------------------------------------------------------------------------- agreement


def _labels_file(path: Path, n: int) -> None:
    rng = random.Random(n)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "a", "b", "c"])
        for i in range(n):
            t = rng.choice("ABCD")
            w.writerow(
                [i]
                + [
                    (t if rng.random() < 0.7 else rng.choice("ABCD")) if rng.random() < 0.95 else ""
                    for _ in range(3)
                ]
            )


def agreement(tmp: Path) -> list[dict[str, Any]]:
    rows = []
    for n in (10_000, 50_000) if QUICK else (10_000, 50_000, 100_000):
        path = tmp / f"labels{n}.csv"
        _labels_file(path, n)
        cmd = [MEDJUDGE, "agreement", str(path), "-r", "a,b,c", "--unit", "id", "--json"]
        runs = [time_rss(cmd) for _ in range(RUNS)]
        rows.append(
            row(
                f"medjudge agreement, {n:,} units × 3 raters",
                [w for w, _ in runs],
                "s",
                "linear; 100k < 5 s, < 250 MB",
                peak_mb=round(max(m for _, m in runs), 1),
            )
        )
    return rows


# ------------------------------------------------------------------------------- memory


def _statements_file(path: Path, items: int, per_item: int) -> None:
    """``items`` statements items of ``per_item`` statements, each labelled by two reviewers."""
    rng = random.Random(items)
    values = ("entailed", "neutral", "contradicted")
    with path.open("w", encoding="utf-8") as fh:
        for i in range(items):
            labels = [
                {"rater": r, "statement": k, "value": rng.choice(values)}
                for k in range(per_item)
                for r in ("ann", "bob")
            ]
            row = {
                "id": f"s{i}",
                "question": f"Question {i}: is this safe with my other medicines?",
                "answer": f"Answer {i}: it is usually safe, but ask your pharmacist. " * 3,
                "source": f"model-{i % 3}",
                "must_have": [
                    f"Statement {i}.{k} about dosing and interactions." for k in range(per_item)
                ],
                "labels": labels,
            }
            fh.write(json.dumps(row) + "\n")


def memory(tmp: Path) -> list[dict[str, Any]]:
    """Peak memory of ``import`` and ``report -f json`` as the study grows (flat is the target)."""
    sizes = (250, 500, 1_000) if QUICK else (2_500, 5_000, 10_000)
    rows: list[dict[str, Any]] = []
    for items in sizes:
        src = tmp / f"statements{items}.jsonl"
        _statements_file(src, items, 10)
        study = tmp / f"memory{items}.db"
        subprocess.run([MEDJUDGE, "init", str(study)], check=True, env=ENV, capture_output=True)
        imp = time_rss([MEDJUDGE, "import", str(study), str(src), "--kind", "statements"])
        rep = time_rss([MEDJUDGE, "report", str(study), "-f", "json", "-o", str(tmp / "r.json")])
        n = items * 10
        rows += [
            row(
                f"medjudge import, {n:,} statements + {2 * n:,} labels",
                [imp[0]],
                "s",
                "< 250 MB, flat as the study grows",
                peak_mb=round(imp[1], 1),
            ),
            row(
                f"medjudge report -f json, {n:,} statements, {2 * n:,} labels",
                [rep[0]],
                "s",
                "< 250 MB, flat as the study grows",
                peak_mb=round(rep[1], 1),
            ),
        ]
        _judge_every_unit(study)
        rep = time_rss([MEDJUDGE, "report", str(study), "-f", "json", "-o", str(tmp / "r.json")])
        rows.append(
            row(
                f"medjudge report -f json, {n:,} statements judged once (+{n:,} verdicts)",
                [rep[0]],
                "s",
                "< 250 MB, flat as the study grows",
                peak_mb=round(rep[1], 1),
            )
        )
        study.unlink()
    return rows


def _judge_every_unit(path: Path) -> None:
    """A judge's verdict on every unit, each with a trail as a 3-sample run writes it (call
    keys, votes, reasons), stored as ``medjudge judge`` stores them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from medjudge.store.judgments import NewVerdict, write_verdicts
    from medjudge.store.study import Study

    values = ("entailed", "neutral", "contradicted")
    with Study.open(path) as study:
        verdicts = []
        for (unit_id,) in study.conn.execute("SELECT id FROM units ORDER BY id"):
            votes = [values[(unit_id + k) % 3 if k else unit_id % 3] for k in range(3)]
            verdicts.append(
                NewVerdict(
                    unit_id,
                    votes[0],
                    "",
                    {
                        "calls": [
                            hashlib.sha256(f"{unit_id}/{k}".encode()).hexdigest() for k in range(3)
                        ],
                        "votes": votes,
                        "reasons": [
                            f"Statement {unit_id}: the answer says so in its second sentence. " * 2
                        ]
                        * 3,
                        "samples_disagreed": len(set(votes)) > 1,
                        "failed": [],
                        "verdict": votes[0],
                    },
                )
            )
        write_verdicts(
            study, "openai:bench", {"spec": "openai:bench"}, verdicts, run_id=None, actor="bench"
        )


def run() -> list[dict[str, Any]]:
    """Run the benchmark; one dict per figure (name, value = median, min, max, unit, target)."""
    parts: list[Callable[[], list[dict[str, Any]]]] = []
    compile_package()
    with tempfile.TemporaryDirectory(prefix="medjudge-bench-cli-") as tmp_name:
        tmp = Path(tmp_name)
        study = tmp / "review.db"
        build_review_study(study)
        parts = [
            lambda: startup(study),
            lambda: review_launch(study, tmp),
            lambda: judge(tmp),
            lambda: agreement(tmp),
            lambda: memory(tmp),
        ]
        rows: list[dict[str, Any]] = []
        for part in parts:
            rows += part()
        return rows


if __name__ == "__main__":
    for r in run():
        print(json.dumps(r, ensure_ascii=False))
