"""API keys on the real SDK clients against the fake server: a key never reaches an error,\na log or another host; a missing key names its variable; keys and URLs come from the environment\nor the user settings only as documented."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from medjudge.judging.llm.key_routing import KeyRing, NamedKey
from medjudge.judging.llm.provider_registry import REGISTRY
from medjudge.judging.llm.providers import (
    ChatRequest,
    Provider,
    ProviderConfigError,
    ProviderError,
    make_provider,
    redact,
)
from medjudge.judging.llm.providers_anthropic import AnthropicProvider
from medjudge.judging.llm.providers_openai import OpenAIProvider
from medjudge.judging.llm.specs import parse_judge_spec

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.providers import (
    ANTHROPIC_PATH,
    FAST,
    KINDS,
    PLANTED,
    build,
    call,
    failing,
    fake_server,
    path_of,
    run,
)

fake = pytest.fixture(fake_server)

# --------------------------------------------------------------------------- secrets


def _leak_scenarios() -> list[tuple[str, Callable[[FakeRequest], Reply], dict[str, Any]]]:
    def echo(status: int) -> Callable[[FakeRequest], Reply]:
        def respond(req: FakeRequest) -> Reply:
            auth = req.headers.get("authorization", "") + req.headers.get("x-api-key", "")
            return Reply.error(status, f"Incorrect API key provided: {auth} ({PLANTED})")

        return respond

    return [
        ("401-echo", echo(401), {}),
        ("500-echo-exhausted", echo(500), {"max_retries": 1}),
        ("timeout", lambda req: Reply("late", delay=1.0), {"timeout": 0.2, "max_retries": 0}),
        ("disconnect", lambda req: Reply.disconnect(), {"max_retries": 0}),
    ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("scenario", _leak_scenarios(), ids=[s[0] for s in _leak_scenarios()])
def test_api_key_never_appears_in_errors(
    fake: FakeLLMServer,
    kind: str,
    scenario: tuple[str, Callable[[FakeRequest], Reply], dict[str, Any]],
) -> None:
    _, responder, options = scenario
    fake.responder = responder
    provider = build(kind, fake, api_key=PLANTED, **options)
    assert PLANTED not in repr(provider)
    err = run(failing(provider))

    texts = [
        str(err),
        repr(err),
        "".join(traceback.format_exception(err)),
        repr(vars(err)),
    ]
    for text in texts:
        assert PLANTED not in text
        assert "PLANTED" not in text
    assert err.__cause__ is None and err.__context__ is None  # no SDK exception chained
    assert fake.count() >= 1  # the key really was sent


def test_redact() -> None:
    assert redact(f"key={PLANTED}!", (PLANTED,)) == "key=***!"
    assert "sk-ant-abcdef123456" not in redact("bad key sk-ant-abcdef123456")
    assert "abcdefgh12345" not in redact("Authorization: Bearer abcdefgh12345")
    assert redact("nothing secret", ("not-needed",)) == "nothing secret"


# --------------------------------------------------------------------------- keys & config


def test_missing_openai_key_names_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError) as info:
        OpenAIProvider("gpt-4o")
    assert "OPENAI_API_KEY" in str(info.value) and info.value.kind == "config"


def test_missing_anthropic_key_names_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError) as info:
        make_provider(parse_judge_spec("anthropic:claude-3-5-sonnet-20241022"))
    assert "ANTHROPIC_API_KEY" in str(info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_key_from_environment(
    fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # base_url=None means the provider's own endpoint, where its own key goes: here a registry
    # entry like openai's or anthropic's whose own endpoint is the fake server.
    base = REGISTRY[kind]
    url = fake.openai_url if kind == "openai" else fake.anthropic_url
    entry = dataclasses.replace(base, name=f"fake{kind}", key_env="FAKE_API_KEY", base_url=url)
    monkeypatch.setitem(REGISTRY, entry.name, entry)
    monkeypatch.setenv("FAKE_API_KEY", PLANTED)
    cls = OpenAIProvider if kind == "openai" else AnthropicProvider
    provider: Provider = cls("gpt-4o", entry=entry, **FAST)
    run(call(provider))
    (sent,) = fake.requests
    assert PLANTED in sent.headers.get("authorization", "") + sent.headers.get("x-api-key", "")
    if kind == "openai":
        assert sent.json["max_completion_tokens"] == 1024  # own endpoint: the entry's parameter


@pytest.mark.parametrize("kind", KINDS)
def test_the_sdks_base_url_variables_do_not_move_a_provider(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # The SDKs read OPENAI_BASE_URL / ANTHROPIC_BASE_URL when given no URL; medjudge always
    # gives one, so a provider for the official API calls the official API (the variables are
    # honoured explicitly, in the spec: see tests/test_key_routing.py).
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    cls = OpenAIProvider if kind == "openai" else AnthropicProvider
    provider = cls("m", api_key=PLANTED)
    try:
        assert str(provider.client.base_url).startswith(REGISTRY[kind].base_url or "-")
    finally:
        run(provider.aclose())


@pytest.mark.parametrize("kind", KINDS)
def test_make_provider_with_url_and_a_named_key(fake: FakeLLMServer, kind: str) -> None:
    url = fake.openai_url if kind == "openai" else fake.anthropic_url
    spec = parse_judge_spec(f"{kind}:some-model@{url}")
    keys = KeyRing(run_key=NamedKey("SOME_KEY", "--key-env", PLANTED))
    provider = make_provider(spec, keys=keys, timeout=5, max_retries=0)
    assert isinstance(provider, Provider)
    assert provider.name == spec.name and provider.model == "some-model"
    result = run(call(provider))
    assert result.text == "OK"
    (sent,) = fake.requests
    assert sent.path == path_of(kind)
    assert PLANTED in sent.headers.get("authorization", "") + sent.headers.get("x-api-key", "")


@pytest.mark.parametrize("kind", KINDS)
def test_make_provider_with_url_sends_no_default_key(fake: FakeLLMServer, kind: str) -> None:
    url = fake.openai_url if kind == "openai" else fake.anthropic_url
    spec = parse_judge_spec(f"{kind}:some-model@{url}")
    keys = KeyRing(defaults={kind: NamedKey(f"{kind.upper()}_API_KEY", "env", PLANTED)})
    assert run(call(make_provider(spec, keys=keys, timeout=5, max_retries=0))).text == "OK"
    (sent,) = fake.requests
    auth = sent.headers.get("authorization", "") + sent.headers.get("x-api-key", "")
    assert PLANTED not in auth and "not-needed" in auth


def test_anthropic_base_url_with_v1_is_tolerated(fake: FakeLLMServer) -> None:
    provider = AnthropicProvider("m", base_url=fake.anthropic_url + "/v1/", **FAST)
    assert run(call(provider)).text == "OK"
    assert fake.requests[0].path == ANTHROPIC_PATH


def test_make_provider_local_missing_file(tmp_path: Any) -> None:
    spec = parse_judge_spec(f"local:{tmp_path / 'nope.gguf'}")
    with pytest.raises(ProviderConfigError, match="not found"):
        make_provider(spec)


def test_closed_provider_refuses_and_close_is_idempotent(fake: FakeLLMServer) -> None:
    closed: list[int] = []

    async def scenario() -> ProviderError:
        provider = OpenAIProvider(
            "m", base_url=fake.openai_url, on_close=lambda: closed.append(1), **FAST
        )
        async with provider:
            await provider.complete(ChatRequest.user("q"))
        await provider.aclose()
        with pytest.raises(ProviderError) as info:
            await provider.complete(ChatRequest.user("q"))
        return info.value

    err = run(scenario())
    assert err.kind == "closed" and closed == [1]


def test_providers_module_is_light() -> None:
    """Importing providers/specs pulls in neither SDK, xllamacpp nor textual."""
    code = (
        "import sys, medjudge.judging.llm.providers, medjudge.judging.llm.specs\n"
        "heavy = [m for m in ('openai', 'anthropic', 'xllamacpp', 'textual') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == ""
