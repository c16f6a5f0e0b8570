"""One registry of providers (judging/llm/provider_registry.py): specs, providers, keys, batch
support and prices all come from its entries, so another service is one entry and a test.

End to end through the real CLI and the real SDK clients (AsyncOpenAI, AsyncAzureOpenAI)
against the fake server: a test-only entry, and Azure OpenAI's deployment URL, api-version and
``api-key`` header.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.key_routing import KeyRing, NamedKey, route_key
from medjudge.judging.llm.pricing import price_for
from medjudge.judging.llm.provider_registry import (
    AZURE_API_VERSION,
    REGISTRY,
    ProviderEntry,
    names,
    openai_client,
)
from medjudge.judging.llm.providers import make_provider
from medjudge.judging.llm.providers_openai import OpenAIProvider
from medjudge.judging.llm.specs import JudgeSpec, SpecError, parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig, cache_key, call_params

from .support.fakellm import FakeLLMServer, FakeRequest
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
ACME_KEY = "sk-test-ACME-5a4b3c2d"
OTHER_KEY = "sk-test-OTHER-0f9e8d7c"
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


def auth(req: FakeRequest) -> str:
    bearer = req.headers.get("authorization", "").removeprefix("Bearer ")
    return bearer + req.headers.get("x-api-key", "") + req.headers.get("api-key", "")


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "r.db"
    small_study(path, pairwise=2, statements=1).close()
    return path


def acme(server: FakeLLMServer) -> ProviderEntry:
    """A test-only OpenAI-compatible service whose own endpoint is the fake server."""
    return ProviderEntry(
        "acme",
        "openai",
        key_env="ACME_API_KEY",
        base_url=server.openai_url,
        client=openai_client,
        batch=False,
        prices="unknown",
    )


def test_a_registry_entry_is_a_judge_end_to_end(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(GOOD) as server:
        monkeypatch.setitem(REGISTRY, "acme", acme(server))
        env = {"ACME_API_KEY": ACME_KEY, "OPENAI_API_KEY": OTHER_KEY}
        args = ["judge", str(study), "-j", "acme:fake-model", "--samples", "1"]
        r = cli.invoke(app, [*args, "--dry-run"], env=env)
        assert r.exit_code == 0 and server.count() == 0, r.output
        assert "no price known for acme:fake-model" in r.stdout  # its entry: prices unknown
        r = cli.invoke(app, args, env=env)
        assert r.exit_code == 0, r.output
        assert "judge version: acme:fake-model" in r.stdout and "verdicts written" in r.stdout
        sent = server.requests
        assert sent and {auth(req) for req in sent} == {ACME_KEY}, "its own key, at its endpoint"
        assert {req.json["model"] for req in sent} == {"fake-model"}
        assert all("max_tokens" in req.json for req in sent)  # its entry's token parameter
        assert all(req.json_schema is not None for req in sent)  # OpenAI protocol: JSON schema

        # Another endpoint of the same service: its key stays home.
        with FakeLLMServer(GOOD) as other:
            elsewhere = f"acme:m@{other.openai_url}"
            r = cli.invoke(app, ["judge", str(study), "-j", elsewhere + "/"], env=env)
            assert r.exit_code == 0, r.output
            assert {auth(req) for req in other.requests} == {"not-needed"}
            r = cli.invoke(app, ["status", str(study), "--json"])
            versions = {j["name"]: j["version"] for j in json.loads(r.stdout)["judges"]}
            assert versions["acme:fake-model"]["endpoint"] == server.openai_url
            assert versions[elsewhere]["endpoint"] == other.openai_url
            assert versions["acme:fake-model"]["key"] != versions[elsewhere]["key"]
    conn = sqlite3.connect(study)
    try:
        providers = {r[0] for r in conn.execute("SELECT DISTINCT provider FROM judge_calls")}
    finally:
        conn.close()
    assert providers == {"acme"}


def test_azure_through_the_azure_sdk_client(study: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer(GOOD) as server:
        spec = f"azure:my-deployment@{server.base_url}"
        base = ["judge", str(study), "-j", spec, "--samples", "1"]
        env = {"AZURE_OPENAI_API_KEY": ACME_KEY, "AZURE_OPENAI_API_VERSION": ""}
        # The fake server is no Azure host: AZURE_OPENAI_API_KEY stays home unless named.
        r = cli.invoke(app, base, env=env)
        assert r.exit_code == 0, r.output
        assert r.stdout.startswith(f"note: {spec}: no key named for this endpoint")
        sent = server.requests
        assert {req.path for req in sent} == {"/openai/deployments/my-deployment/chat/completions"}
        assert {req.query for req in sent} == {f"api-version={AZURE_API_VERSION}"}
        assert {req.headers.get("api-key") for req in sent} == {"not-needed"}
        assert not any("authorization" in req.headers for req in sent)

        server.clear()
        with_key = [*base, "--key-env", "AZURE_OPENAI_API_KEY", "--retry-failed"]
        env = {"AZURE_OPENAI_API_KEY": ACME_KEY, "AZURE_OPENAI_API_VERSION": "2025-01-01-preview"}
        r = cli.invoke(app, [*with_key, "-j", "azure:other@" + server.base_url], env=env)
        assert r.exit_code == 0, r.output
        sent = server.requests
        assert sent and {req.headers.get("api-key") for req in sent} == {ACME_KEY}
        assert {req.query for req in sent} == {"api-version=2025-01-01-preview"}

        server.clear()
        r = cli.invoke(
            app,
            ["judge", str(study), "-j", f"azure:third@{server.base_url}", "--api-version", "v9"],
            env=env,
        )
        assert r.exit_code == 0, r.output
        assert {req.query for req in server.requests} == {"api-version=v9"}


def test_named_services_are_entries() -> None:
    assert {"openai", "anthropic", "azure", "gemini", "openrouter", "vllm", "ollama", "local"} <= (
        set(names())
    )
    endpoints = {
        "gemini:gemini-2.0-flash": "https://generativelanguage.googleapis.com/v1beta/openai",
        "openrouter:meta-llama/llama-3.1-70b": "https://openrouter.ai/api/v1",
        "vllm:llama": "http://127.0.0.1:8000/v1",
        "ollama:llama3.2": "http://127.0.0.1:11434/v1",
        "openai:gpt-4o": "https://api.openai.com/v1",
        "anthropic:claude-x": "https://api.anthropic.com",
        "azure:dep@https://res.openai.azure.com": "https://res.openai.azure.com",
    }
    for text, endpoint in endpoints.items():
        spec = parse_judge_spec(text)
        assert spec.endpoint == endpoint and spec.name == text
    assert parse_judge_spec("local:smollm2").endpoint is None
    with pytest.raises(SpecError, match="azure:dep@https://RESOURCE.openai.azure.com"):
        parse_judge_spec("azure:dep")
    with pytest.raises(SpecError, match="ollama"):
        parse_judge_spec("cohere:command-r")  # the message lists the registry's names


def test_a_services_own_key_goes_to_its_own_host_only() -> None:
    ring = KeyRing.from_environment(
        {"GEMINI_API_KEY": ACME_KEY, "AZURE_OPENAI_API_KEY": OTHER_KEY, "OPENAI_API_KEY": "x" * 9}
    )
    assert route_key(parse_judge_spec("gemini:g"), ring).key == ACME_KEY
    assert route_key(parse_judge_spec("gemini:g@https://proxy.example/v1"), ring).key is None
    assert route_key(parse_judge_spec("openrouter:m"), ring, required=False).key is None
    azure = parse_judge_spec("azure:dep@https://res.openai.azure.com")
    assert route_key(azure, ring).key == OTHER_KEY
    for elsewhere in ("https://res.openai.azure.com.evil.example", "http://res.openai.azure.com"):
        assert route_key(parse_judge_spec(f"azure:dep@{elsewhere}"), ring).key is None
    assert route_key(parse_judge_spec("vllm:m"), ring).key is None  # needs none: no notice
    assert route_key(parse_judge_spec("vllm:m"), ring).notice is None
    with pytest.raises(Exception, match="OPENROUTER_API_KEY"):
        route_key(parse_judge_spec("openrouter:m"), ring)


def test_batch_support_and_prices_come_from_the_entries(study: Path) -> None:
    r = cli.invoke(app, ["judge", str(study), "-j", "gemini:g", "--batch", "--dry-run"])
    assert r.exit_code == 1 and "gemini has none" in r.stderr, r.output
    assert price_for(parse_judge_spec("openai:gpt-4o")).input_per_m == 2.5
    assert price_for(parse_judge_spec("openai:gpt-4o@https://api.openai.com/v1")).known
    # a gateway on this machine serving a hosted model's name is priced as that model; a
    # model name no price table knows there is a local model, free
    assert price_for(parse_judge_spec("openai:gpt-4o@http://127.0.0.1:1/v1")).input_per_m == 2.5
    assert price_for(parse_judge_spec("openai:my-llama@http://127.0.0.1:1/v1")).cost(10, 10) == 0
    assert not price_for(parse_judge_spec("gemini:g")).known
    assert price_for(parse_judge_spec("ollama:m")).known


def test_make_provider_builds_from_the_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer() as server:
        monkeypatch.setitem(REGISTRY, "acme", acme(server))
        keys = KeyRing(defaults={"acme": NamedKey("ACME_API_KEY", "env", ACME_KEY)})
        provider = make_provider(parse_judge_spec("acme:m"), keys=keys)
        assert isinstance(provider, OpenAIProvider) and provider.entry.name == "acme"
        assert provider.endpoint == server.openai_url and provider.home


def test_default_endpoint_identities_are_unchanged() -> None:
    """Existing studies keep their judge versions and cached calls: a judge on its provider's
    own endpoint hashes exactly as before the registry (these were computed then)."""
    judge = JudgeConfig(parse_judge_spec("openai:gpt-4o"), samples=1)
    assert judge.version_key() == (
        "7edbea977ca375baeb8b273be2230f575db8d2b4b7c0daee0e946749e0303a3a"
    )
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    key = cache_key(judge.spec, call_params(judge, 0, None), "h", messages, 0)
    assert key == "32dcc8a4051c64009db159d1981d56abc4274ce10274dc333e057b2deeded400"
    moved = dataclasses.replace(judge, spec=JudgeSpec("openai", "gpt-4o", "https://x.example/v1"))
    assert moved.version_key() != judge.version_key()
