"""Judge runner throughput against the fake server (100 ms per call).

4,800 pairwise calls — 400 items × 2 orders × 3 samples × 2 judges, the scale of the
long-form medical QA benchmark — at concurrency 64, against the bound calls × latency /
concurrency (target ≤ 1.15×); a sequential one-call-at-a-time loop like the published
pipeline's (timed on 100 calls and scaled up, since the full loop takes 8 minutes); and the
fully cached re-run (target < 2 s). The server runs in its own process, as a remote provider
would, so it does not share the runner's interpreter.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.fake_server_process import ServerProcess  # noqa: E402
from medjudge.judging.llm.providers import ChatRequest, make_provider  # noqa: E402
from medjudge.judging.llm.runner import RunOptions, run_judges  # noqa: E402
from medjudge.judging.llm.specs import parse_judge_spec  # noqa: E402
from medjudge.judging.protocol.plan import JudgeConfig  # noqa: E402
from medjudge.store.importing.run import import_file  # noqa: E402
from medjudge.store.study import Study  # noqa: E402
from tests.support.kind_rows import pairwise_row, write_jsonl  # noqa: E402

LATENCY = 0.1
CONCURRENCY = 64
ITEMS = 400


def run() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        study = Study.create(Path(tmp) / "bench.db")
        rows = [
            pairwise_row(i, answer_a=f"GOOD answer {i} " * 20, answer_b=f"Plain answer {i} " * 20)
            for i in range(ITEMS)
        ]
        import_file(study, write_jsonl(Path(tmp) / "pw.jsonl", rows), "pairwise", actor="bench")
        with ServerProcess(LATENCY) as server:
            judges = [
                JudgeConfig(parse_judge_spec(f"openai:judge-{k}@{server.url}")) for k in (1, 2)
            ]
            opts = RunOptions(concurrency=CONCURRENCY)
            t0 = time.monotonic()
            first = asyncio.run(run_judges(study, judges, opts))
            wall = time.monotonic() - t0
            calls = first.to_call
            bound = calls * LATENCY / CONCURRENCY
            before = server.count()
            t0 = time.monotonic()
            again = asyncio.run(run_judges(study, judges, opts))
            cached_wall = time.monotonic() - t0
            assert server.count() == before and again.to_call == 0
            seq = asyncio.run(_sequential(server.url, 100))
        slow_wall, slow_calls = _slow_run(Path(tmp))
        study.close()
    return [
        {
            "name": "judge run, 4,800 calls @64 (100 ms each)",
            "value": round(wall, 2),
            "unit": "s",
            "target": f"≤ {1.15 * bound:.2f} s (1.15 × bound {bound:.2f} s)",
            "peak_mb": None,
        },
        {
            "name": "judge run vs bound",
            "value": round(wall / bound, 3),
            "unit": "×",
            "target": "≤ 1.15",
            "peak_mb": None,
        },
        {
            "name": "sequential loop, per call",
            "value": round(seq * 1000, 1),
            "unit": "ms",
            "target": "(reference)",
            "peak_mb": None,
        },
        {
            "name": "sequential loop, 4,800 calls (scaled)",
            "value": round(seq * calls, 1),
            "unit": "s",
            "target": f"(runner is {seq * calls / wall:.0f}× faster)",
            "peak_mb": None,
        },
        {
            "name": "judge run, 2,400 calls @64 (500 ms each) vs bound",
            "value": round(slow_wall / (slow_calls * 0.5 / CONCURRENCY), 3),
            "unit": "×",
            "target": "≤ 1.15 (CPU no longer the limit)",
            "peak_mb": None,
        },
        {
            "name": "cached re-run, 4,800 calls",
            "value": round(cached_wall, 2),
            "unit": "s",
            "target": "< 2 s, 0 requests",
            "peak_mb": None,
        },
    ]


def _slow_run(tmp: Path) -> tuple[float, int]:
    """The same runner when each call takes 500 ms, closer to real providers."""
    study = Study.create(tmp / "slow.db")
    rows = [
        pairwise_row(i, answer_a=f"GOOD {i} " * 20, answer_b=f"Plain {i} " * 20)
        for i in range(ITEMS // 2)
    ]
    import_file(study, write_jsonl(tmp / "slow.jsonl", rows), "pairwise", actor="bench")
    with ServerProcess(0.5) as server:
        judges = [JudgeConfig(parse_judge_spec(f"openai:judge-{k}@{server.url}")) for k in (1, 2)]
        t0 = time.monotonic()
        summary = asyncio.run(run_judges(study, judges, RunOptions(concurrency=CONCURRENCY)))
        wall = time.monotonic() - t0
    study.close()
    return wall, summary.to_call


async def _sequential(url: str, n: int) -> float:
    """One call at a time through the same provider, as the published scripts do."""
    provider = make_provider(parse_judge_spec(f"openai:seq@{url}"))
    t0 = time.monotonic()
    for i in range(n):
        await provider.complete(
            ChatRequest.user(
                f"<response_a>x{i}</response_a><response_b>y</response_b>"
                "one entry per criterion (correctness):",
                max_tokens=50,
            )
        )
    await provider.aclose()
    return (time.monotonic() - t0) / n


if __name__ == "__main__":
    for r in run():
        print(r)
