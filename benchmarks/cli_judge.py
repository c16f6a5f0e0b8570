"""The CLI benchmark's judge figures (``bench_cli.py``): ``medjudge judge`` over thousands of
calls to the fake server against a plain ``AsyncOpenAI`` + semaphore loop sending as many, then a
fully cached re-run."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.cli_timing import ENV, MEDJUDGE, QUICK, RUNS, child_times, row
from benchmarks.fake_server_process import ServerProcess

SDK_LOOP = """
import asyncio, sys
from openai import AsyncOpenAI
URL, N, CONC = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
PROMPT = open(sys.argv[4], encoding="utf-8").read()
async def main():
    client = AsyncOpenAI(base_url=URL, api_key="sk-bench", max_retries=2)
    sem = asyncio.Semaphore(CONC)
    async def one(i):
        async with sem:
            r = await client.chat.completions.create(
                model="fake", temperature=0.7, max_tokens=800, seed=i % 3,
                messages=[{"role": "system", "content": "judge"},
                          {"role": "user", "content": PROMPT + str(i)}])
            return r.choices[0].message.content
    await asyncio.gather(*(one(i) for i in range(N)))
asyncio.run(main())
"""


SDK_LOOP_AIOHTTP = SDK_LOOP.replace(
    'client = AsyncOpenAI(base_url=URL, api_key="sk-bench", max_retries=2)',
    'import openai\n    client = AsyncOpenAI(base_url=URL, api_key="sk-bench", max_retries=2, '
    "http_client=openai.DefaultAioHttpClient())",
)
"""The same loop on the SDK's aiohttp transport (what medjudge sends through)."""
assert SDK_LOOP_AIOHTTP != SDK_LOOP


def _pairwise_file(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            row = {
                "id": f"p{i}",
                "question": f"Question {i}: my child has a fever, what should I do?",
                "answer_a": f"GOOD answer {i}: give fluids and check the temperature.",
                "answer_b": f"Plain answer {i}: wait and see.",
                "source_a": "model-x",
                "source_b": "model-y",
            }
            fh.write(json.dumps(row) + "\n")


def judge(tmp: Path) -> list[dict[str, Any]]:
    items = 100 if QUICK else 800
    calls = items * 2 * 3
    bound = calls * 0.1 / 64
    rows_src = tmp / "pw.jsonl"
    _pairwise_file(rows_src, items)
    prompt = tmp / "prompt.txt"
    prompt.write_text("Which answer is better? " * 60, encoding="utf-8")
    out: dict[str, list[float]] = {
        "mj_wall": [],
        "mj_cpu": [],
        "sdk_wall": [],
        "sdk_cpu": [],
        "aio_wall": [],
        "aio_cpu": [],
    }
    cached_wall: list[float] = []
    cached_requests: list[int] = []
    with ServerProcess(0.1) as server:
        spec = f"openai:fake@{server.url}"
        for run in range(RUNS):
            study = tmp / f"judge{run}.db"
            subprocess.run([MEDJUDGE, "init", str(study)], check=True, env=ENV, capture_output=True)
            subprocess.run(
                [MEDJUDGE, "import", str(study), str(rows_src), "--kind", "pairwise"],
                check=True,
                env=ENV,
                capture_output=True,
            )
            cmd = [
                MEDJUDGE,
                "judge",
                str(study),
                "-j",
                spec,
                "--samples",
                "3",
                "--concurrency",
                "64",
            ]
            wall, cpu, proc = child_times(cmd)
            assert proc.returncode == 0, proc.stderr[-2000:]
            out["mj_wall"].append(wall)
            out["mj_cpu"].append(cpu)
            wall, cpu, proc = child_times(
                [sys.executable, "-c", SDK_LOOP, server.url, str(calls), "64", str(prompt)]
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            out["sdk_wall"].append(wall)
            out["sdk_cpu"].append(cpu)
            wall, cpu, proc = child_times(
                [sys.executable, "-c", SDK_LOOP_AIOHTTP, server.url, str(calls), "64", str(prompt)]
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            out["aio_wall"].append(wall)
            out["aio_cpu"].append(cpu)
            before = server.count()
            wall, _, proc = child_times(cmd)
            assert proc.returncode == 0, proc.stderr[-2000:]
            cached_wall.append(wall)
            cached_requests.append(server.count() - before)
    sdk_wall, sdk_cpu = statistics.median(out["sdk_wall"]), statistics.median(out["sdk_cpu"])
    return [
        row(f"SDK loop, {calls:,} calls (reference): wall", out["sdk_wall"], "s", "—"),
        row(f"SDK loop, {calls:,} calls (reference): CPU", out["sdk_cpu"], "s", "—"),
        row(f"SDK loop on aiohttp, {calls:,} calls: wall", out["aio_wall"], "s", "—"),
        row(f"SDK loop on aiohttp, {calls:,} calls: CPU", out["aio_cpu"], "s", "—"),
        row(
            f"medjudge judge, {calls:,} calls at 100 ms, concurrency 64: wall",
            out["mj_wall"],
            "s",
            f"≤ the SDK loop; ≤ 1.15× the bound {bound:.1f} s",
            ratio=round(statistics.median(out["mj_wall"]) / sdk_wall, 2),
            bound_ratio=round(statistics.median(out["mj_wall"]) / bound, 2),
        ),
        row(
            f"medjudge judge, {calls:,} calls: CPU",
            out["mj_cpu"],
            "s",
            "≤ the SDK loop's",
            ratio=round(statistics.median(out["mj_cpu"]) / sdk_cpu, 2),
            ms_per_call=round(1000 * statistics.median(out["mj_cpu"]) / calls, 2),
        ),
        row(
            f"medjudge judge, fully cached re-run of {calls:,} calls",
            cached_wall,
            "s",
            "< 1 s, 0 requests",
            requests=max(cached_requests),
        ),
    ]
