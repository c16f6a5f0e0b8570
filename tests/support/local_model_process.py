"""The bundled SmolLM2 model run in a process of its own, so that it never enters a test
worker (served in-process it added 316 MB to the worker while it ran, and left 77 MB).

``python -m tests.support.local_model_process serve GGUF`` serves the model
(:class:`~medjudge.judging.llm.local_server.LocalModelServer`), prints one JSON line with its
URLs and model name, and serves until its standard input closes.
``python -m tests.support.local_model_process provider GGUF`` asks ``make_provider`` for a
``local:GGUF`` judge once, closes it, and prints what it answered as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any, Self

CLIENT_TIMEOUT_S = 300.0
"""The clients' timeout: the tests' own, generous one (a loaded machine decodes slowly; the
tests are not about timeouts)."""


class ServedModel:
    """The model served by a child process; the tests reach it over HTTP as before."""

    def __init__(self, gguf: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.local_model_process", "serve", str(gguf)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the model server did not start (exit {self.proc.wait()})"
        served = json.loads(line)
        self.base_url_openai: str = served["openai"]
        self.base_url_anthropic: str = served["anthropic"]
        self.model: str = served["model"]

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0, "the model server did not stop cleanly"


def run_provider(gguf: Path, schema: dict[str, object]) -> dict[str, Any]:
    """What ``make_provider('local:GGUF')`` answered, from a child process."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.local_model_process", "provider", str(gguf)],
        input=json.dumps(schema),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _serve(gguf: Path) -> None:
    from medjudge.judging.llm.local_server import LocalModelServer

    # one thread: llama.cpp's threads wait for each other spinning, which on a busy machine
    # (more runnable processes than cores) made a short reply take minutes
    with LocalModelServer(gguf, n_ctx=2048, n_threads=1) as server:
        served = {
            "openai": server.base_url_openai,
            "anthropic": server.base_url_anthropic,
            "model": server.model,
        }
        print(json.dumps(served), flush=True)
        sys.stdin.read()
    assert not server.running


def _provider(gguf: Path, schema: dict[str, object]) -> dict[str, Any]:
    from medjudge.judging.llm.providers import ChatRequest, make_provider
    from medjudge.judging.llm.specs import parse_judge_spec

    spec = parse_judge_spec(f"local:{gguf}")
    provider = make_provider(
        spec, timeout=CLIENT_TIMEOUT_S, max_retries=0, local_n_ctx=1024, local_n_threads=1
    )

    async def ask() -> tuple[str, int, int]:
        try:
            result = await provider.complete(
                ChatRequest.user(
                    "Is aspirin an antibiotic? Give a verdict and a score.",
                    max_tokens=64,
                    json_schema={"name": "verdict", "schema": schema},
                )
            )
        finally:
            await provider.aclose()
        return result.text, result.input_tokens, result.output_tokens

    url = provider.base_url  # type: ignore[attr-defined]
    text, n_in, n_out = asyncio.run(ask())
    try:  # closing the provider stopped the server
        urllib.request.urlopen(f"{url}/models", timeout=2)
        stopped = False
    except urllib.error.URLError:
        stopped = True
    return {
        "name_matches": provider.name == spec.name,
        "json_schema": provider.supports_json_schema,
        "text": text,
        "input_tokens": n_in,
        "output_tokens": n_out,
        "stopped": stopped,
    }


if __name__ == "__main__":
    what, path = sys.argv[1], Path(sys.argv[2])
    if what == "serve":
        _serve(path)
    else:
        print(json.dumps(_provider(path, json.loads(sys.stdin.read()))))
