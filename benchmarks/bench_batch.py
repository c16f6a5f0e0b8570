"""``judge --batch`` at scale against the loopback batch server.

4,800 pairwise calls (800 items × 2 orders × 3 samples) through the real command in a
subprocess, once per provider: the submitting run (plan, record, upload, create), a polling run
while the batch is in progress, and the collecting run (download, parse, store, resolve
verdicts); wall time of each and the HTTP requests they made. A fourth run must make none. The
fake server answers the batch's requests when it is polled to completion, inside the
collecting run's wall time (about as long as computing 4,800 replies takes in Python).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from medjudge.store.importing.run import import_file  # noqa: E402
from medjudge.store.study import Study  # noqa: E402
from tests.support.fakebatch import BatchScript, FakeBatchServer  # noqa: E402
from tests.support.judges import pairwise_responder, prefer_marked, routing  # noqa: E402
from tests.support.kind_rows import pairwise_row, write_jsonl  # noqa: E402

ITEMS = 800


def _timed(args: list[str], server: FakeBatchServer) -> tuple[float, int, int]:
    before = server.count()
    t0 = time.monotonic()
    done = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, "OPENAI_API_KEY": "sk-bench-x"}
    )
    wall = time.monotonic() - t0
    if done.returncode not in (0, 5):
        raise RuntimeError(done.stdout + done.stderr)
    return wall, server.count() - before, done.returncode


def run() -> list[dict[str, Any]]:
    """Submission, polling and collection of 4,800 calls for each provider."""
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            pairwise_row(i, answer_a=f"GOOD answer {i} " * 20, answer_b=f"Plain answer {i} " * 20)
            for i in range(ITEMS)
        ]
        source = write_jsonl(Path(tmp) / "pw.jsonl", rows)
        responder = routing(pairwise_responder(prefer_marked("GOOD")))
        for provider in ("openai", "anthropic"):
            path = Path(tmp) / f"{provider}.db"
            with Study.create(path) as s:
                import_file(s, source, "pairwise", actor="bench")
            with _TimedServer(responder, script=BatchScript(polls=1)) as server:
                url = server.openai_url if provider == "openai" else server.anthropic_url
                args = [
                    sys.executable, "-m", "medjudge", "judge", str(path),
                    "-j", f"{provider}:m@{url}", "--batch", "--json",
                ]  # fmt: skip
                size0 = path.stat().st_size
                submit = _timed(args, server)
                size1 = path.stat().st_size
                poll = _timed(args, server)
                collect = _timed(args, server)
                size2 = path.stat().st_size
                again = _timed(args, server)
                calls = sum(len(b.requests) for b in server.created())
                assert submit[2] == 5 and poll[2] == 5 and collect[2] == 0 and again[1] == 0
                assert calls == ITEMS * 6 and len(server.created()) == 1
            for name, (wall, requests, _) in (
                ("submit", submit),
                ("poll (in progress)", poll),
                ("collect", collect),
                ("re-run", again),
            ):
                out.append(
                    {
                        "name": f"batch {provider}, 4,800 calls: {name} ({requests} HTTP requests)",
                        "value": round(wall, 2),
                        "unit": "s",
                        "target": "0 requests" if name == "re-run" else "",
                    }
                )
            out.append(
                {
                    "name": f"batch {provider}: the fake server answering 4,800 requests "
                    "(inside collect)",
                    "value": round(server.answer_s, 2),
                    "unit": "s",
                    "target": "",
                }
            )
            out.append(
                {
                    "name": f"batch {provider}: study growth while the batch is pending",
                    "value": round((size1 - size0) / 1e6, 1),
                    "unit": "MB",
                    "target": "",
                }
            )
            out.append(
                {
                    "name": f"batch {provider}: study growth once collected (payload pages "
                    "reused by the stored calls)",
                    "value": round((size2 - size0) / 1e6, 1),
                    "unit": "MB",
                    "target": "",
                }
            )
    return out


class _TimedServer(FakeBatchServer):
    """Counts the time the fake spends answering batch requests (server work, not medjudge's)."""

    answer_s = 0.0

    def _advance(self, batch: Any) -> None:
        t0 = time.monotonic()
        super()._advance(batch)
        self.answer_s += time.monotonic() - t0


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']}: {row['value']} {row['unit']}")
