"""Keys go only where they belong (judging/llm/key_routing.py), through the real CLI and SDKs.

The fake server records every request's ``Authorization`` / ``x-api-key`` header:
- a provider's own key (environment or settings.toml) never reaches an ``@URL`` server, which
  is called with a placeholder and the run says so once;
- ``--key-env NAME`` and a settings.toml ``[endpoints."URL"]`` entry do send their key;
- a key is refused, before any connection, for plain http to a host that is not loopback;
- ``OPENAI_BASE_URL`` is honoured explicitly: the endpoint it names is the judge's, so a run
  with it and one without are two judge versions sharing no cached call.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.key_routing import (
    KeyRing,
    NamedKey,
    check_transport,
    gather_keys,
    is_loopback,
    is_private_host,
    prepare_access,
    resolve_endpoint,
    route_key,
)
from medjudge.judging.llm.provider_registry import REGISTRY
from medjudge.judging.llm.provider_types import ProviderConfigError
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.store.user_settings import UserSettings

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
ENV_KEY = "sk-test-DEFAULT-3c2b1a0f"
TOML_KEY = "sk-test-TOML-7e6d5c4b"
NAMED_KEY = "sk-test-NAMED-9a8b7c6d"
ENDPOINT_KEY = "sk-test-ENDPOINT-1f2e3d4c"
NOTICE = "no key named for this endpoint; calling it without a key (--key-env NAME to send one)"
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
KINDS = ("openai", "anthropic")


def auth(req: FakeRequest) -> str:
    """What a request carried as its key (Authorization bearer or x-api-key)."""
    return req.headers.get("authorization", "").removeprefix("Bearer ") + req.headers.get(
        "x-api-key", ""
    )


def url_of(server: FakeLLMServer, kind: str) -> str:
    return server.openai_url if kind == "openai" else server.anthropic_url


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "k.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


@pytest.fixture
def settings(_isolated_home: Path) -> Path:
    """settings.toml (mode 600) holding the providers' own keys; tests may append to it."""
    _isolated_home.mkdir(parents=True, exist_ok=True)
    path = _isolated_home / "settings.toml"
    path.write_text(f'openai_api_key = "{TOML_KEY}"\nanthropic_api_key = "{TOML_KEY}"\n')
    path.chmod(0o600)
    return path


def judge(study: Path, *args: str, env: dict[str, str] | None = None) -> object:
    base = {"OPENAI_API_KEY": ENV_KEY, "ANTHROPIC_API_KEY": ENV_KEY}
    return cli.invoke(
        app,
        ["judge", str(study), "--samples", "1", "--concurrency", "2", *args],
        env={**base, **(env or {})},
    )


def runs(study: Path) -> int:
    conn = sqlite3.connect(study)
    try:
        return int(conn.execute("SELECT count(*) FROM judge_runs").fetchone()[0])
    finally:
        conn.close()


# --------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("kind", KINDS)
def test_the_default_keys_never_reach_an_url_server(study: Path, settings: Path, kind: str) -> None:
    with FakeLLMServer(GOOD) as server:
        spec = f"{kind}:fake@{url_of(server, kind)}"
        r = judge(study, "-j", spec)
        sent = {auth(req) for req in server.requests}
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert sent == {"not-needed"}, "only the placeholder, neither the environment's nor the file's"
    out = r.stdout  # type: ignore[attr-defined]
    assert out.splitlines()[0] == f"note: {spec}: {NOTICE}", out  # the run's first line
    assert r.output.count(NOTICE) == 1  # type: ignore[attr-defined]
    assert ENV_KEY not in r.output and TOML_KEY not in r.output  # type: ignore[attr-defined]


def test_the_openai_account_headers_stay_home(study: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        env = {"OPENAI_ORG_ID": "org-PLANTED", "OPENAI_PROJECT_ID": "proj_PLANTED"}
        r = judge(study, "-j", f"openai:fake@{server.openai_url}", env=env)
        headers = [req.headers for req in server.requests]
    assert r.exit_code == 0 and headers, r.output  # type: ignore[attr-defined]
    assert not any("openai-organization" in h or "openai-project" in h for h in headers)


@pytest.mark.parametrize("kind", KINDS)
def test_key_env_sends_the_named_key_to_the_url_server(study: Path, kind: str) -> None:
    with FakeLLMServer(GOOD) as server:
        spec = f"{kind}:fake@{url_of(server, kind)}"
        r = judge(study, "-j", spec, "--key-env", "MY_KEY", env={"MY_KEY": NAMED_KEY})
        sent = {auth(req) for req in server.requests}
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert sent == {NAMED_KEY}
    assert NOTICE not in r.output and NAMED_KEY not in r.output  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", KINDS)
def test_a_settings_endpoint_entry_sends_its_key(study: Path, settings: Path, kind: str) -> None:
    with FakeLLMServer(GOOD) as server:
        url = url_of(server, kind)
        # Written with a trailing slash and an upper-case scheme: matched as specs normalise.
        written = "HTTP" + url.removeprefix("http") + "/"
        with settings.open("a") as f:
            f.write(f'\n[endpoints."{written}"]\nkey_env = "ENDPOINT_KEY"\n')
        r = judge(study, "-j", f"{kind}:fake@{url}", env={"ENDPOINT_KEY": ENDPOINT_KEY})
        sent = {auth(req) for req in server.requests}
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert sent == {ENDPOINT_KEY}
    assert NOTICE not in r.output  # type: ignore[attr-defined]


def test_key_env_wins_over_the_settings_entry(study: Path, settings: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        with settings.open("a") as f:
            f.write(f'\n[endpoints."{server.openai_url}"]\nkey_env = "ENDPOINT_KEY"\n')
        r = judge(
            study,
            "-j",
            f"openai:fake@{server.openai_url}",
            "--key-env",
            "MY_KEY",
            env={"MY_KEY": NAMED_KEY, "ENDPOINT_KEY": ENDPOINT_KEY},
        )
        sent = {auth(req) for req in server.requests}
    assert r.exit_code == 0 and sent == {NAMED_KEY}, r.output  # type: ignore[attr-defined]


def test_a_settings_entry_whose_variable_is_unset_is_refused(study: Path, settings: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        with settings.open("a") as f:
            f.write(f'\n[endpoints."{server.openai_url}"]\nkey_env = "NOT_SET_ANYWHERE"\n')
        r = judge(study, "-j", f"openai:fake@{server.openai_url}")
        assert server.count() == 0
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output  # type: ignore[attr-defined]
    assert "NOT_SET_ANYWHERE is not set" in r.stderr  # type: ignore[attr-defined]
    assert runs(study) == 0


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (["--key-env", "MY_KEY"], {"MY_KEY": NAMED_KEY}, "--key-env MY_KEY"),
        ([], {"ENDPOINT_KEY": ENDPOINT_KEY}, "ENDPOINT_KEY, named in settings.toml"),
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_a_key_over_plain_http_to_another_host_is_refused_before_any_call(
    study: Path,
    settings: Path,
    kind: str,
    args: list[str],
    env: dict[str, str],
    words: str,
) -> None:
    # example.invalid never resolves: a run that tried to connect would fail with a
    # connection error instead, after the run had started.
    with settings.open("a") as f:
        f.write('\n[endpoints."http://example.invalid/v1"]\nkey_env = "ENDPOINT_KEY"\n')
    url = "http://example.invalid/v1"
    for dry in ([], ["--dry-run"]):
        r = judge(study, "-j", f"{kind}:fake@{url}", *args, *dry, env=env)
        out = r.output  # type: ignore[attr-defined]
        assert r.exit_code == 1 and "Traceback" not in out, out  # type: ignore[attr-defined]
        line = r.stderr.strip().splitlines()[-1]  # type: ignore[attr-defined]
        assert line.startswith(f"error: {kind}:fake@{url}: refusing to send the API key"), line
        assert f"over plain http to {url}" in line and words in line, line
        assert NAMED_KEY not in out and ENDPOINT_KEY not in out
    assert runs(study) == 0, "refused before the run started"


def test_plain_http_without_a_key_is_only_noted(study: Path) -> None:
    r = judge(study, "-j", "openai:fake@http://example.invalid/v1", "--dry-run")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert NOTICE in r.stdout  # type: ignore[attr-defined]
    r = judge(study, "-j", "openai:fake@http://example.invalid/v1", "--dry-run", "--json")
    assert r.exit_code == 0 and NOTICE in r.stderr, r.output  # type: ignore[attr-defined]
    assert json.loads(r.stdout)["to_call"] == 4  # type: ignore[attr-defined]  # JSON only


def test_key_env_mistakes_are_said_without_the_key(study: Path) -> None:
    r = judge(study, "-j", "openai:m@http://127.0.0.1:9/v1", "--key-env", "UNSET_KEY_VAR")
    assert r.exit_code == 1 and "UNSET_KEY_VAR is not set" in r.stderr  # type: ignore[attr-defined]
    r = judge(study, "-j", "openai:m@http://127.0.0.1:9/v1", "--key-env", NAMED_KEY)
    assert r.exit_code == 1 and "not the key itself" in r.stderr  # type: ignore[attr-defined]
    assert NAMED_KEY not in r.output and "NAMED" not in r.output  # type: ignore[attr-defined]
    r = judge(study, "-j", "openai:gpt-4o", "--key-env", "MY_KEY", env={"MY_KEY": NAMED_KEY})
    assert r.exit_code == 1 and "this run has none" in r.stderr  # type: ignore[attr-defined]
    assert runs(study) == 0


# --------------------------------------------------------------------------- OPENAI_BASE_URL


def call_keys(study: Path, judge_name: str) -> set[str]:
    conn = sqlite3.connect(study)
    try:
        rows = conn.execute("SELECT key FROM judge_calls WHERE judge = ?", (judge_name,))
        return {r[0] for r in rows}
    finally:
        conn.close()


def test_openai_base_url_is_part_of_the_judge(study: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run with OPENAI_BASE_URL and one without: two judge versions, no cached call shared,
    OPENAI_API_KEY going with OPENAI_BASE_URL (as the SDK and every gateway's docs expect: it
    was withheld, and every call failed), the endpoints shown by status."""
    with FakeLLMServer(GOOD) as official, FakeLLMServer(GOOD) as proxy:
        home, elsewhere = official.openai_url, proxy.openai_url
        # For this test api.openai.com is the first fake server.
        entry = dataclasses.replace(REGISTRY["openai"], base_url=home)
        monkeypatch.setitem(REGISTRY, "openai", entry)
        r = judge(study, "-j", "openai:fake", "--price", "1,1")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        assert {auth(req) for req in official.requests} == {ENV_KEY}, "its own key, at home"
        assert NOTICE not in r.output  # type: ignore[attr-defined]

        r = judge(study, "-j", "openai:fake", env={"OPENAI_BASE_URL": proxy.openai_url + "/"})
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        moved = f"openai:fake@{proxy.openai_url}"
        notes = r.stdout.splitlines()[:2]  # type: ignore[attr-defined]
        assert f"OPENAI_BASE_URL is set, so this judge calls {proxy.openai_url}" in notes[0]
        assert NOTICE not in r.stdout  # type: ignore[attr-defined]
        assert f"judge version: {moved}" in r.stdout  # type: ignore[attr-defined]
        assert "0 cached" in r.stdout  # type: ignore[attr-defined]
        calls_needed = 2 * 2  # two items × AB/BA × one sample
        assert proxy.count() == calls_needed, "nothing of the first run's cache was reused"
        assert {auth(req) for req in proxy.requests} == {ENV_KEY}, "the key goes with the URL"
        assert official.count() == calls_needed, "the official endpoint was not called again"

        # The same again: each version is cached on its own.
        r = judge(study, "-j", "openai:fake", env={"OPENAI_BASE_URL": proxy.openai_url})
        assert r.exit_code == 0 and proxy.count() == calls_needed, r.output  # type: ignore[attr-defined]

    first, second = call_keys(study, "openai:fake"), call_keys(study, moved)
    assert len(first) == len(second) == calls_needed and not first & second
    r = cli.invoke(app, ["status", str(study), "--json"])
    versions = {j["name"]: j["version"] for j in json.loads(r.stdout)["judges"]}
    assert versions["openai:fake"]["key"] != versions[moved]["key"]
    assert versions["openai:fake"]["endpoint"] == home
    assert versions[moved]["endpoint"] == elsewhere
    r = cli.invoke(app, ["status", str(study)])
    assert f"; endpoint {home}" in r.stdout and f"; endpoint {elsewhere}" in r.stdout


def test_the_key_goes_with_the_base_url_only_to_that_url(tmp_path: Path) -> None:
    """OPENAI_API_KEY goes with OPENAI_BASE_URL to that URL, not to another @URL judge of
    the same run; a key named for the URL in settings.toml stays first; without
    OPENAI_API_KEY the URL is called without a key."""
    env = {"OPENAI_BASE_URL": "https://gateway.example/v1", "OPENAI_API_KEY": ENV_KEY}
    specs = [parse_judge_spec("openai:gpt-4o"), parse_judge_spec("openai:m@https://b.example/v1")]
    access = prepare_access(specs, UserSettings(), environ=env)
    moved, other = access.specs
    assert moved.base_url == "https://gateway.example/v1"
    route = route_key(moved, access.keys)
    assert route.key == ENV_KEY and route.source and "OPENAI_API_KEY" in route.source
    assert route_key(other, access.keys).key is None
    named = UserSettings.model_validate(
        {"endpoints": {"https://gateway.example/v1": {"key_env": "GW_KEY"}}}
    )
    access = prepare_access(specs[:1], named, environ={**env, "GW_KEY": ENDPOINT_KEY})
    assert route_key(access.specs[0], access.keys).key == ENDPOINT_KEY
    access = prepare_access(
        specs[:1], UserSettings(), environ={"OPENAI_BASE_URL": env["OPENAI_BASE_URL"]}
    )
    assert route_key(access.specs[0], access.keys, required=False).key is None
    assert ENV_KEY not in repr(access)


def test_plain_http_to_a_private_network_gateway_only_when_opted_in() -> None:
    """A key over plain http goes to a private-network server only when settings.toml opts
    the endpoint in (allow_http = true), said once; never to a public host. No connection is
    made: the rules are checked before any."""
    url = "http://10.20.30.40:4000/v1"
    spec = parse_judge_spec(f"openai:gpt-4o@{url}")
    plain = UserSettings.model_validate({"endpoints": {url: {"key_env": "GW_KEY"}}})
    env = {"GW_KEY": ENDPOINT_KEY}
    with pytest.raises(ProviderConfigError, match="over plain http to http://10.20.30.40:4000"):
        prepare_access([spec], plain, environ=env)
    opted = UserSettings.model_validate(
        {"endpoints": {url: {"key_env": "GW_KEY", "allow_http": True}}}
    )
    access = prepare_access([spec], opted, environ=env)
    assert route_key(access.specs[0], access.keys).key == ENDPOINT_KEY
    (said,) = [n for n in access.notices if "over plain http" in n]
    assert said.startswith(f"openai:gpt-4o@{url}: sending the key (GW_KEY, named in settings")
    assert said.endswith("as settings.toml allows (allow_http = true)")
    public = "http://gateway.example/v1"
    spec = parse_judge_spec(f"openai:gpt-4o@{public}")
    opted = UserSettings.model_validate(
        {"endpoints": {public: {"key_env": "GW_KEY", "allow_http": True}}}
    )
    with pytest.raises(ProviderConfigError, match="private network only"):
        prepare_access([spec], opted, environ=env)


def test_a_base_url_variable_set_to_the_default_changes_nothing() -> None:
    spec = parse_judge_spec("openai:gpt-4o")
    same, notice = resolve_endpoint(spec, {"OPENAI_BASE_URL": "https://API.openai.com/v1/"})
    assert same == spec and notice is None
    assert resolve_endpoint(spec, {}) == (spec, None)
    moved, notice = resolve_endpoint(
        parse_judge_spec("anthropic:claude-x"), {"ANTHROPIC_BASE_URL": "https://proxy.example"}
    )
    assert moved.name == "anthropic:claude-x@https://proxy.example" and notice
    at_url = parse_judge_spec("openai:m@http://127.0.0.1:8000/v1")
    assert resolve_endpoint(at_url, {"OPENAI_BASE_URL": "https://x.example/v1"}) == (at_url, None)


# --------------------------------------------------------------------------- the rules


def test_is_private_host() -> None:
    for host in ("127.0.0.1", "::1", "localhost", "10.0.0.1", "172.16.5.4", "192.168.1.2"):
        assert is_private_host(host), host
    for host in ("fd00::1", "169.254.1.1"):
        assert is_private_host(host), host
    for host in ("8.8.8.8", "example.invalid", "172.32.0.1", "", "2001:4860::1"):
        assert not is_private_host(host), host


def test_is_loopback() -> None:
    for host in ("127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("example.invalid", "10.0.0.1", "192.168.1.2", "::", "localhost.evil.com", ""):
        assert not is_loopback(host), host


def test_check_transport() -> None:
    check_transport("https://example.invalid/v1", True, "j", "X")
    check_transport("http://127.0.0.1:8000/v1", True, "j", "X")
    check_transport("http://[::1]:8000/v1", True, "j", "X")
    check_transport("http://example.invalid/v1", False, "j", "X")  # no key: nothing to protect
    with pytest.raises(ProviderConfigError, match="over plain http to http://10.1.2.3/v1"):
        check_transport("http://10.1.2.3/v1", True, "j", "X")


def test_route_key_rules() -> None:
    ring = KeyRing(
        defaults={"openai": NamedKey("OPENAI_API_KEY", "env", ENV_KEY)},
        endpoints={"https://a.example/v1": NamedKey("A_KEY", "endpoints", ENDPOINT_KEY)},
    )
    assert route_key(parse_judge_spec("openai:gpt-4o"), ring).key == ENV_KEY
    assert route_key(parse_judge_spec("openai:m@https://api.openai.com/v1"), ring).key == ENV_KEY
    assert route_key(parse_judge_spec("openai:m@https://a.example/v1"), ring).key == ENDPOINT_KEY
    other = route_key(parse_judge_spec("openai:m@https://b.example/v1"), ring)
    assert other.key is None and other.notice and NOTICE in other.notice
    with_run_key = dataclasses.replace(ring, run_key=NamedKey("R", "--key-env", NAMED_KEY))
    assert route_key(parse_judge_spec("openai:m@https://a.example/v1"), with_run_key).key == (
        NAMED_KEY
    )
    assert route_key(parse_judge_spec("openai:gpt-4o"), with_run_key).key == ENV_KEY
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY"):
        route_key(parse_judge_spec("anthropic:claude-x"), ring)
    assert route_key(parse_judge_spec("anthropic:claude-x"), ring, required=False).key is None
    assert route_key(parse_judge_spec("local:smollm2"), ring).key is None
    assert ENV_KEY not in repr(ring) and ENDPOINT_KEY not in repr(with_run_key)


def test_settings_keys_are_for_the_providers_own_endpoints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prefs = UserSettings.model_validate(
        {
            "openai_api_key": TOML_KEY,
            "endpoints": {"https://openrouter.ai/api/v1/": {"key_env": "OPENROUTER_API_KEY"}},
        }
    )
    ring = gather_keys(prefs, environ={"OPENROUTER_API_KEY": NAMED_KEY})
    assert route_key(parse_judge_spec("openai:gpt-4o"), ring).key == TOML_KEY
    assert route_key(parse_judge_spec("openai:m@https://x.example/v1"), ring).key is None
    at_openrouter = parse_judge_spec("openai:m@https://openrouter.ai/api/v1")
    assert route_key(at_openrouter, ring).key == NAMED_KEY
    assert route_key(parse_judge_spec("openrouter:m"), ring).key == NAMED_KEY  # its own variable
    env_first = gather_keys(prefs, environ={"OPENAI_API_KEY": ENV_KEY})
    assert route_key(parse_judge_spec("openai:gpt-4o"), env_first).key == ENV_KEY
    with pytest.raises(Exception, match="key_env"):
        UserSettings.model_validate({"endpoints": {"https://x.example": {"key_env": "sk-a b"}}})


def test_a_reply_error_never_shows_a_named_key(study: Path) -> None:
    def echo(req: FakeRequest) -> Reply:
        return Reply.error(401, f"Incorrect API key provided: {auth(req)}")

    with FakeLLMServer(echo) as server:
        r = judge(
            study,
            "-j",
            f"openai:fake@{server.openai_url}",
            "--key-env",
            "MY_KEY",
            env={"MY_KEY": NAMED_KEY},
        )
        assert {auth(req) for req in server.requests} == {NAMED_KEY}
    assert r.exit_code == 1 and "HTTP 401" in r.stderr, r.output  # type: ignore[attr-defined]
    assert NAMED_KEY not in r.output and "NAMED" not in r.output  # type: ignore[attr-defined]
