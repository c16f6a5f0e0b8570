"""The fake LLM server in a separate process, as a remote provider would be.

``python -m benchmarks.fake_server_process LATENCY`` prints the port, then serves scripted
pairwise verdicts until its standard input closes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class ServerProcess:
    """Start the server process; ``url`` is its OpenAI base URL."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.fake_server_process", str(latency)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def count(self) -> int:
        """Requests served so far."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def _serve(latency: float) -> None:
    sys.path.insert(0, str(REPO))
    from tests.support.fakellm import FakeLLMServer
    from tests.support.judges import pairwise_responder, prefer_marked, routing

    with FakeLLMServer(routing(pairwise_responder(prefer_marked())), latency=latency) as server:
        print(server.port, flush=True)
        for line in sys.stdin:
            if line.strip() == "count":
                print(server.count(), flush=True)


if __name__ == "__main__":
    _serve(float(sys.argv[1]))
