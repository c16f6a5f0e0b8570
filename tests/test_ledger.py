"""The ledger: per item, each reviewer's active seconds and each judge's calls, tokens and
cost; it sums to `status`'s spend, and the report summarises and projects it."""

from __future__ import annotations

import csv
import io
import json
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.importing.run import import_file
from medjudge.store.labels import add_time
from medjudge.store.ledger import IDLE_GAP_S
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    path = tmp_path / "l.db"
    s = Study.create(path, actor="t")
    rows = [pairwise_row(i, answer_a=f"GOOD {i}", answer_b=f"plain {i}") for i in range(4)]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    ids = [r[0] for r in s.conn.execute("SELECT id FROM items ORDER BY id")]
    for item, secs in zip(ids, (30.0, 60.0, 90.0), strict=False):
        add_time(s, item, "ann", secs)
    add_time(s, ids[0], "ann", 15.0)  # a second visit adds up
    add_time(s, ids[0], "bob", 40.0)
    s.close()
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        spec = f"openai:gpt-4o-mini@{server.openai_url}"
        r = cli.invoke(app, ["judge", str(path), "-j", spec, "--samples", "1", "--price", "2.5,10"])
        assert r.exit_code == 0, r.output
    return path


def test_ledger_sums_to_status(judged: Path) -> None:
    r = cli.invoke(app, ["export", str(judged), "ledger", "-f", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    status = json.loads(cli.invoke(app, ["status", str(judged), "--json"]).stdout)
    judge_rows = [x for x in rows if x["rater_kind"] == "judge"]
    assert len(judge_rows) == 4, "one row per judged item"
    assert sum(int(x["calls"]) for x in judge_rows) == status["judge_calls"]["total"] == 8
    cost = sum(float(x["cost_usd"]) for x in judge_rows)
    assert cost == pytest.approx(status["judge_calls"]["cost_usd"]) and cost > 0
    tokens = sum(int(x["input_tokens"]) + int(x["output_tokens"]) for x in judge_rows)
    calls = status["judge_calls"]
    assert tokens == calls["input_tokens"] + calls["output_tokens"]
    human = {(x["item"], x["rater"]): x for x in rows if x["rater_kind"] == "human"}
    assert float(human[("p0", "ann")]["active_seconds"]) == 45.0
    assert human[("p0", "ann")]["visits"] == "2"
    assert float(human[("p0", "ann")]["idle_cap_s"]) == IDLE_GAP_S
    assert sum(float(x["active_seconds"]) for x in human.values()) == status["review_seconds"]


def test_report_summarises_and_projects(judged: Path) -> None:
    r = cli.invoke(app, ["report", str(judged), "-f", "json", "--project", "50"])
    per = json.loads(r.stdout)["effort"]["per_item"]
    assert per["n_more"] == 50
    ann = next(x for x in per["reviewers"] if x["reviewer"] == "ann")
    q1, median, q3 = statistics.quantiles([45.0, 60.0, 90.0], n=4, method="inclusive")
    assert (ann["items"], ann["median_s"]) == (3, 60.0)
    assert (ann["q1_s"], ann["q3_s"]) == (q1, q3)
    assert ann["projected_s"] == 60.0 * 50
    (judge,) = per["judges"]
    status = json.loads(cli.invoke(app, ["status", str(judged), "--json"]).stdout)
    assert judge["cost_per_item_usd"] == pytest.approx(status["judge_calls"]["cost_usd"] / 4)
    assert judge["calls_per_item"] == 2.0
    assert judge["projected_cost_usd"] == pytest.approx(judge["cost_per_item_usd"] * 50)
    md = cli.invoke(app, ["report", str(judged), "-f", "md"]).stdout
    assert "Median per item" in md and "Projected for 100 items" in md
