"""Prices are known or said to be unknown, through the real CLI and the fake server.

- The list prices live in one dated file (judging/llm/prices.json); a model it does not list,
  a provider without a table and a hosted ``@URL`` endpoint have no price.
- A server on this machine or a private network is free.
- ``judge --dry-run`` says the price is unknown (never ``$0.0000``) before anything is sent;
  ``--max-cost`` with an unknown price refuses to start, naming ``--price``, and sends nothing;
  ``--price IN,OUT`` makes it known.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.llm import pricing
from medjudge.judging.llm.pricing import price_for, price_table
from medjudge.judging.llm.provider_registry import REGISTRY, ProviderEntry, openai_client
from medjudge.judging.llm.specs import parse_judge_spec

from .support.fakellm import FakeLLMServer
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
HOSTED = "openai:gpt-4o@https://llm.example.org/v1"


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "p.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


def judge(study: Path, *args: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "--samples", "1", "--concurrency", "2", *args],
        env={"OPENAI_API_KEY": "sk-test-0a1b2c3d4e5f", "ACME_API_KEY": "sk-test-ACME-00000"},
    )


def counts(study: Path) -> tuple[int, int]:
    """Runs and judge versions recorded in the study."""
    conn = sqlite3.connect(study)
    try:
        runs = conn.execute("SELECT count(*) FROM judge_runs").fetchone()[0]
        versions = conn.execute("SELECT count(*) FROM judge_versions").fetchone()[0]
        return int(runs), int(versions)
    finally:
        conn.close()


def priced_like_openai(server: FakeLLMServer) -> ProviderEntry:
    """A test-only service with list prices whose own API is the fake server: its models are
    not in the table, so their price is unknown at home too."""
    return ProviderEntry(
        "acme",
        "openai",
        key_env="ACME_API_KEY",
        base_url=server.openai_url,
        client=openai_client,
        batch=False,
        prices="list",
    )


@pytest.fixture
def hosted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake server (on loopback) counts as a hosted endpoint for the pricing rules."""
    monkeypatch.setattr(pricing, "is_private_endpoint", lambda url: False)


# --------------------------------------------------------------------------- the table


def test_the_price_table_is_one_dated_file() -> None:
    table = price_table()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table.date)
    wanted = {
        "openai": "gpt-5 gpt-5-mini o3 o4-mini gpt-4.1 gpt-4.1-mini gpt-4.1-nano gpt-4o "
        "gpt-4o-mini",
        "anthropic": "claude-sonnet-4 claude-sonnet-4-5 claude-opus-4 claude-opus-4-1 "
        "claude-haiku-4-5 claude-3-5-haiku",
    }
    for provider, models in wanted.items():
        for model in models.split():
            price = price_for(parse_judge_spec(f"{provider}:{model}"))
            assert price.known and price.input_per_m > 0 and price.output_per_m > 0, model
    # the source names no price in code any more
    source = Path(pricing.__file__).read_text()
    assert "2.50" not in source and "gpt-4o" not in source


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-5", (1.25, 10.0)),
        ("openai:gpt-4o-2024-08-06", (2.5, 10.0)),  # a snapshot: its model's price
        ("openai:gpt-4o-2024-05-13", (5.0, 15.0)),  # a snapshot with a price of its own
        ("anthropic:claude-haiku-4-5-20251001", (1.0, 5.0)),
        ("anthropic:claude-sonnet-4-0", (3.0, 15.0)),
        ("anthropic:claude-3-5-haiku-latest", (0.8, 4.0)),
        ("openai:gpt-4o@https://api.openai.com/v1", (2.5, 10.0)),  # its own API, spelled out
        ("openai:m@http://127.0.0.1:8000/v1", (0.0, 0.0)),  # this machine
        ("openai:m@http://localhost:8000/v1", (0.0, 0.0)),
        ("openai:m@http://[::1]:8000/v1", (0.0, 0.0)),
        ("openai:m@http://10.1.2.3:8000/v1", (0.0, 0.0)),  # a private network
        ("anthropic:m@http://192.168.0.7:8080", (0.0, 0.0)),
        ("vllm:m", (0.0, 0.0)),
        ("ollama:m", (0.0, 0.0)),
        ("local:smollm2", (0.0, 0.0)),
    ],
)
def test_known_prices(spec: str, expected: tuple[float, float]) -> None:
    price = price_for(parse_judge_spec(spec))
    assert price.known and (price.input_per_m, price.output_per_m) == expected


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("openai:gpt-9", "gpt-9 is not in medjudge's price table of "),
        ("openai:o3-deep-research", "not in medjudge's price table"),  # no prefix guessing
        ("anthropic:claude-opus-7", "not in medjudge's price table"),
        (HOSTED, "https://llm.example.org/v1 is not on this machine or a private network"),
        ("openai:m@https://8.8.8.8/v1", "is not on this machine"),
        ("vllm:m@https://gpu.example.org/v1", "is not on this machine"),
        ("gemini:gemini-2.5-pro", "medjudge keeps no prices for gemini"),
        ("openrouter:x/y", "medjudge keeps no prices for openrouter"),
        ("azure:d@https://r.openai.azure.com", "medjudge keeps no prices for azure"),
    ],
)
def test_unknown_prices_say_why(spec: str, why: str) -> None:
    price = price_for(parse_judge_spec(spec))
    assert not price.known and price.cost(1000, 1000) == 0 and why in price.why
    assert price_for(parse_judge_spec(spec), (1.0, 2.0)).known  # --price gives one


# --------------------------------------------------------------------------- the CLI


def test_a_dry_run_on_a_hosted_url_says_the_price_is_unknown(study: Path) -> None:
    r = judge(study, "-j", HOSTED, "--dry-run", "--max-cost", "1")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "estimated cost: unknown" in out and "$0.0000" not in out, out
    assert f"note: no price known for {HOSTED} (https://llm.example.org/v1 is not on" in out
    assert "give one with --price IN,OUT" in out
    assert "--max-cost 1 would refuse to start without a price" in out
    assert counts(study) == (0, 0)


def test_a_dry_run_on_a_model_without_a_price_sends_nothing(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(GOOD) as server:
        monkeypatch.setitem(REGISTRY, "acme", priced_like_openai(server))
        r = judge(study, "-j", "acme:fake-model", "--dry-run")
        assert server.count() == 0
    out = r.stdout
    assert r.exit_code == 0 and "estimated cost: unknown" in out, r.output
    assert "no price known for acme:fake-model (fake-model is not in medjudge's price" in out


@pytest.mark.usefixtures("hosted")
def test_max_cost_refuses_an_unknown_price_and_sends_nothing(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(GOOD) as server, FakeLLMServer(GOOD) as home:
        monkeypatch.setitem(REGISTRY, "acme", priced_like_openai(home))
        for spec in (f"openai:gpt-4o@{server.openai_url}", "acme:fake-model"):
            r = judge(study, "-j", spec, "--max-cost", "5")
            assert r.exit_code == 1, r.output
            err = r.stderr
            assert "Traceback" not in r.output
            assert err.startswith("error: --max-cost 5 cannot be kept: no price known for "), err
            assert "--price IN,OUT" in err and "nothing was sent" in err
        assert server.count() == 0 and home.count() == 0
    assert counts(study) == (0, 0), "not even a judge version was recorded"


@pytest.mark.usefixtures("hosted")
def test_price_makes_it_known(study: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        spec = f"openai:gpt-4o@{server.openai_url}"
        r = judge(study, "-j", spec, "--dry-run", "--price", "2,8")
        out = r.stdout
        assert r.exit_code == 0 and "unknown" not in out and "no price" not in out, out
        assert re.search(r"estimated cost: \$0\.0\d*[1-9]", out), out
        r = judge(study, "-j", spec, "--price", "2,8", "--max-cost", "5")
        assert r.exit_code == 0, r.output
        assert server.count() == 4  # two items × AB/BA × one sample
    assert "no price" not in r.stdout


@pytest.mark.usefixtures("hosted")
def test_an_unknown_price_is_said_before_the_calls(study: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        spec = f"openai:gpt-4o@{server.openai_url}"
        r = judge(study, "-j", spec)
        assert r.exit_code == 0 and server.count() == 4, r.output
    lines = r.stdout.splitlines()
    note = next(i for i, x in enumerate(lines) if x.startswith(f"note: no price known for {spec}"))
    summary = next(i for i, x in enumerate(lines) if x.startswith("4 calls: "))
    assert note < summary and "its calls are counted as $0" in lines[note]
    assert sum("no price known" in x for x in lines) == 1, "said once"


# --------------------------------------------------------------------------- gateways on this machine or a private network


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o@http://127.0.0.1:4000/v1", (2.5, 10.0)),  # LiteLLM on this machine
        ("openai:claude-sonnet-4-0@http://10.0.0.5:4000/v1", (3.0, 15.0)),  # any list
        ("anthropic:claude-haiku-4-5-20251001@http://127.0.0.1:4000", (1.0, 5.0)),
    ],
)
def test_a_gateway_serving_a_hosted_model_is_priced_as_that_model(
    spec: str, expected: tuple[float, float]
) -> None:
    price = price_for(parse_judge_spec(spec))
    assert price.known and (price.input_per_m, price.output_per_m) == expected
    assert "gateway" in price.rule and "--price 0,0" in price.rule


def test_a_dry_run_says_which_rule_priced_each_judge(study: Path) -> None:
    specs = ["openai:gpt-4o@http://127.0.0.1:4000/v1", "openai:m@http://127.0.0.1:8000/v1"]
    r = judge(study, "-j", specs[0], "-j", specs[1], "-j", "vllm:m", "--dry-run")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert f"price of {specs[0]}: list price of gpt-4o" in out, out
    assert f"price of {specs[1]}: free: a server on this machine" in out, out
    assert "price of vllm:m: free: a local model server" in out, out


def test_max_cost_stops_a_gateway_serving_a_hosted_model(study: Path) -> None:
    with FakeLLMServer(GOOD) as server:
        r = judge(study, "-j", f"openai:gpt-4o@{server.openai_url}", "--max-cost", "0.000001")
        assert r.exit_code == 3, r.output
        assert server.count() == 0, "not one call fits a millionth of a dollar"
    assert "stopped: --max-cost 1e-06 reached" in r.stdout
