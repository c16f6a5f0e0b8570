"""Run every benchmark: ``python -m benchmarks`` (or ``python -m benchmarks judge store``).

Each ``benchmarks/bench_*.py`` module exposes ``run() -> list[dict]`` with entries
``{"name", "value", "unit", "target", "peak_mb"}``. Every module runs in its own process so
that peak memory (the process's max RSS) belongs to that benchmark alone. Prints one table and
writes ``benchmarks/results/latest.json``.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "latest.json"

CHILD = """
import json, resource, sys, importlib
mod = importlib.import_module("benchmarks." + sys.argv[1])
rows = mod.run()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
for r in rows:
    r.setdefault("peak_mb", None)
    r["process_peak_mb"] = round(rss, 1)
print("@@RESULT@@" + json.dumps(rows))
"""


def main(argv: list[str]) -> int:
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    rows: list[dict[str, Any]] = []
    for name in names:
        t0 = time.monotonic()
        print(f"running {name} …", file=sys.stderr, flush=True)
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, name], cwd=HERE.parent, capture_output=True, text=True
        )
        line = next((x for x in proc.stdout.splitlines() if x.startswith("@@RESULT@@")), None)
        if proc.returncode != 0 or line is None:
            print(proc.stdout[-2000:], proc.stderr[-4000:], file=sys.stderr)
            rows.append(
                {
                    "module": name,
                    "name": f"{name} FAILED",
                    "value": None,
                    "unit": "",
                    "target": "",
                    "peak_mb": None,
                    "process_peak_mb": None,
                }
            )
            continue
        for r in json.loads(line[len("@@RESULT@@") :]):
            r["module"] = name
            rows.append(r)
        print(f"  {name} took {time.monotonic() - t0:.1f} s", file=sys.stderr)
    _print_table(rows)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "machine": {
                    "python": sys.version.split()[0],
                    "platform": platform.platform(),
                    "cpus": __import__("os").cpu_count(),
                },
                "results": rows,
            },
            indent=2,
        )
    )
    print(f"\nwrote {RESULTS}")
    return 1 if any(r["value"] is None for r in rows) else 0


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.3f}" if v < 10 else f"{v:,.1f}"
    return str(v)


def _print_table(rows: list[dict[str, Any]]) -> None:
    head = ["benchmark", "value", "unit", "target", "peak MB"]
    body = [
        [
            r["name"],
            _fmt(r["value"]),
            r["unit"],
            r["target"],
            _fmt(r.get("peak_mb") or r.get("process_peak_mb")),
        ]
        for r in rows
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=False)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in body:
        print("| " + " | ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)) + " |")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
