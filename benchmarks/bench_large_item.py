"""The review app on items at the importer's limits, in a real terminal: one item of
100,000 statements, and one pairwise item of two ~1M-character answers, against a small item
(three statements) timed in the same run as the reference.

Each case starts the real ``medjudge review`` in a fresh tmux session at 120×40 (three runs)
and measures from the command's start to the first item's text on the terminal (polling
``tmux capture-pane`` every 20 ms), and the process's peak resident memory (``VmHWM``) once it
is shown. Targets: first screen under a second, under 200 MB.
"""

from __future__ import annotations

import json
import shlex
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.tmux import Tmux, status_mb  # noqa: E402
from medjudge.store.importing.run import import_file  # noqa: E402
from medjudge.store.study import Study  # noqa: E402

RUNS = 3
WORDS = "lorem ipsum dolor sit amet "


def _build(folder: Path) -> dict[str, tuple[Path, str]]:
    cases = {
        "small item (3 statements), reference": (
            "statements",
            {
                "id": "s",
                "question": "Q?",
                "answer": "An answer.",
                "source": "m",
                "must_have": ["S1 text.", "S2 text.", "S3 text."],
            },
            "S1 text.",
        ),
        "100,000 statements": (
            "statements",
            {
                "id": "s",
                "question": "Q?",
                "answer": "An answer.",
                "source": "m",
                "must_have": [f"S{i + 1} text." for i in range(100_000)],
            },
            "S1 text.",
        ),
        "two 1M-character answers": (
            "pairwise",
            {
                "id": "p",
                "question": "Q?",
                "answer_a": (WORDS * 37_000)[:999_000],
                "answer_b": (WORDS * 37_000)[:999_000],
                "source_a": "x",
                "source_b": "y",
            },
            "lorem ipsum dolor",
        ),
    }
    out = {}
    for n, (name, (kind, row, marker)) in enumerate(cases.items()):
        path = folder / f"case{n}.db"
        source = folder / f"case{n}.jsonl"
        source.write_text(json.dumps(row) + "\n")
        s = Study.create(path, actor="bench")
        import_file(s, source, kind, actor="bench")
        s.close()
        out[name] = (path, marker)
    return out


def _once(tmux: Tmux, path: Path, marker: str, home: Path) -> tuple[float, float]:
    name = f"mj-bench-{uuid.uuid4().hex[:8]}"
    command = (
        f"exec env MEDJUDGE_HOME={shlex.quote(str(home))} TERM=xterm-256color "
        f"{shlex.quote(sys.executable)} -m medjudge review {shlex.quote(str(path))}"
    )
    tmux.start(name, command, width=120, height=40)
    try:
        pid = tmux.pid(name)  # the pane's shell execs medjudge: the same process
        time.sleep(0.3)  # the pane's own wait before the command starts
        t0 = time.perf_counter()
        deadline = t0 + 120
        while marker not in tmux.screen(name):
            if time.perf_counter() > deadline:
                return float("nan"), float("nan")
            time.sleep(0.02)
        shown = time.perf_counter() - t0
        return shown, status_mb(pid, "VmHWM")
    finally:
        tmux("kill-session", "-t", name)


def run() -> list[dict[str, Any]]:
    """Build the three studies, open each three times, report medians."""
    if shutil.which("tmux") is None:
        return [
            {
                "name": "review, large items: tmux missing",
                "value": None,
                "unit": "",
                "target": "",
                "peak_mb": None,
            }
        ]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        home = folder / "home"
        home.mkdir()
        cases = _build(folder)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        tmux = Tmux()
        try:
            for _ in range(RUNS):  # interleaved: load on the machine falls on every case alike
                for name, (path, marker) in cases.items():
                    results[name].append(_once(tmux, path, marker, home))
        finally:
            tmux.kill()
        for name, runs in results.items():
            rows.append(
                {
                    "name": f"review: {name} → first screen (real terminal), median of {RUNS}",
                    "value": round(statistics.median(r[0] for r in runs) * 1000, 1),
                    "unit": "ms",
                    "target": "< 1000 ms" if "reference" not in name else "(reference)",
                    "peak_mb": round(max(r[1] for r in runs), 1),
                }
            )
    return rows


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row))
