"""How the CLI benchmarks (``bench_cli.py``) run and time the real ``medjudge`` command: in a
child process with no real key and no colour, its wall and CPU time or its peak memory, each
figure as min / median / max over the runs."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
MEDJUDGE = str(BIN / "medjudge")
QUICK = bool(os.environ.get("MEDJUDGE_BENCH_QUICK"))
RUNS = 1 if QUICK else 3
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "OPENAI_API_KEY": "sk-bench-not-a-key",
    "NO_COLOR": "1",
}
"""What every measured command runs with: no real key, no colour, byte-code written (a user's
second start reads it; a machine that sets PYTHONDONTWRITEBYTECODE would compile every time)."""


def compile_package() -> None:
    """Write the byte-code of every medjudge module first, so no measured start compiles."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    for folder in ("medjudge", "store", "judging", "tui", "benchmarks"):
        compileall.compile_dir(root / folder, quiet=1)


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


def row(name: str, values: Sequence[float], unit: str, target: str, **extra: Any) -> dict[str, Any]:
    s = _stats(values)
    return {
        "name": name,
        "value": s["median"],
        "unit": unit,
        "target": target,
        "min": s["min"],
        "max": s["max"],
        "runs": len(values),
        **extra,
    }


def child_times(
    cmd: Sequence[str], **kw: Any
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, **kw)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def time_rss(cmd: Sequence[str]) -> tuple[float, float]:
    """Wall seconds and the child's peak RSS in MB (GNU time)."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "@@%e %M", *cmd], capture_output=True, text=True, env=ENV
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("@@"))
    wall, kb = line[2:].split()
    return float(wall), int(kb) / 1024
