"""Budgets that hold (issue #43): a server that reports no usable usage (left out, negative,
strings) made every call $0, so ``--max-cost`` never stopped a run and it ended with exit 0
and $0 spent. Such a call is now counted at the dry run's estimate, toward the limit, and the
summary says so. ``--price`` and ``--max-cost`` take plausible figures only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.llm.pricing import MAX_PRICE_PER_M, estimate_tokens, unreported_usage

from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study
from .support.wire import WireServer

cli = CliRunner()
KEY = "sk-test-budgets-0123"
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "b.db"
    small_study(path, pairwise=4, statements=0).close()
    return path


def judge(study: Path, *args: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "--samples", "1", "--concurrency", "1", *args],
        env={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
    )


def test_unreported_usage_is_the_dry_runs_estimate() -> None:
    assert unreported_usage("x" * 400, "ok", 800, 2) == (100, 160)
    assert unreported_usage("x" * 400, "y" * 4000, 800, 2) == (100, 1000), "a longer reply"
    assert unreported_usage("", "", 16, 3) == (estimate_tokens(""), 16)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("usage", ["missing", -5, "12"])
def test_max_cost_holds_when_the_server_reports_no_usable_usage(
    provider: str, usage: object, study: Path
) -> None:
    with WireServer(GOOD, usage=usage) as server:
        where = server.openai_url if provider == "openai" else server.anthropic_url
        r = judge(study, "-j", f"{provider}:m@{where}", "--price", "1000,1000", "--max-cost", "5")
        made = server.count()
    assert r.exit_code == 3, r.output
    assert "stopped: --max-cost 5 reached" in r.stdout
    assert "without usable token figures" in r.stdout and "counted at the estimate" in r.stdout
    assert 0 < made < 8, "stopped before the eight calls"
    conn = sqlite3.connect(study)
    rows = conn.execute("SELECT input_tokens, output_tokens, cost_usd FROM judge_calls").fetchall()
    conn.close()
    assert rows and all(i == o == 0 and 0 < cost <= 5 for i, o, cost in rows), rows
    assert sum(cost for *_, cost in rows) <= 5


@pytest.mark.parametrize(
    "price",
    ["-1,2", "nan,1", "1,inf", f"{MAX_PRICE_PER_M + 1:g},1", "2,1e9"],
)
def test_price_is_bounded_to_plausible_values(price: str, study: Path) -> None:
    r = judge(study, "-j", "openai:gpt-4o", "--dry-run", "--price", price)
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("error: --price ") and "1,000" in line, line


def test_the_ceiling_itself_is_a_price(study: Path) -> None:
    r = judge(study, "-j", "openai:gpt-4o", "--dry-run", "--price", f"{MAX_PRICE_PER_M:g},0")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("limit", ["nan", "inf"])
def test_max_cost_is_a_finite_figure(limit: str, study: Path) -> None:
    r = judge(study, "-j", "openai:gpt-4o", "--price", "1,1", "--max-cost", limit)
    assert r.exit_code == 2, r.output
    assert "--max-cost" in r.stderr
