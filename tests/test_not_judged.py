"""A judge run's exit code covers every unit: a unit left without a verdict because a
call of its item ended in an error is counted as "not judged" (by reason) and makes the exit
code 4, or 1 when no call of the run succeeded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))
MARKED = ("Question 3?", "Question 12?")
"""Items whose calls the server refuses (HTTP 400), never five calls in a row."""


def judge(study: Path, url: str, *extra: str) -> Result:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", f"openai:m@{url}", "--samples", "1", "--concurrency", "2"]
        + list(extra),
    )


def refuse_marked(req: FakeRequest) -> Reply:
    if any(m in req.prompt_text for m in MARKED):
        return Reply.error(400, "prompt rejected by the content filter")
    return GOOD(req)


def units_of(path: Path, external_ids: list[str]) -> int:
    conn = sqlite3.connect(path)
    try:
        marks = ",".join("?" * len(external_ids))
        count: int = conn.execute(
            f"SELECT count(*) FROM units JOIN items ON items.id = units.item_id "
            f"WHERE items.ext_id IN ({marks})",
            external_ids,
        ).fetchone()[0]
        return count
    finally:
        conn.close()


def last_run(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        result: str = conn.execute(
            "SELECT status FROM judge_runs ORDER BY id DESC LIMIT 1"
        ).fetchone()[0]
        return result
    finally:
        conn.close()


def test_some_units_failing_exit_4_and_are_counted_by_reason(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=16, statements=0).close()
    expected = units_of(path, ["p3", "p12"])
    assert expected > 0
    with FakeLLMServer(refuse_marked) as server:
        r = judge(path, server.openai_url)
        assert r.exit_code == 4, r.output
        assert f"not judged: {expected} (why: {expected} × " in r.stdout, r.stdout
        assert "HTTP 400" in r.stdout and "content filter" in r.stdout
        assert "missing: 0" in r.stdout
        _said_in_status_and_report(path, 2, "content filter")
        # Again: only the failed calls are asked, and fail again: nothing of this run
        # succeeded, so it failed (exit 1), with the same count.
        r = judge(path, server.openai_url, "--json")
        assert r.exit_code == 1, r.output
        summary = json.loads(r.stdout)
        assert summary["not_judged"] == expected
        assert sum(summary["not_judged_why"].values()) == expected
        assert summary["ok"] == 0 and summary["errors"] == 4, "only the failed calls again"
        server.responder = GOOD
        r = judge(path, server.openai_url)
        assert r.exit_code == 0, r.output
        assert "not judged: 0;" in r.stdout
        _said_in_status_and_report(path, 0, "")


def _said_in_status_and_report(path: Path, items: int, reason: str) -> None:
    """`status` (text and JSON) and the report (JSON) count the same items, with the reason."""
    data = json.loads(cli.invoke(app, ["status", str(path), "--json"]).stdout)
    (j,) = [j for j in data["judges"] if j["name"].startswith("openai:m")]
    assert j["not_judged_items"] == items
    assert all(reason in why for why in j["not_judged_why"])
    text = cli.invoke(app, ["status", str(path)]).stdout
    assert (f"not judged: {items} item(s) (why: {items} × " in text) == (items > 0), text
    report = json.loads(
        cli.invoke(app, ["report", str(path), "-f", "json", "--n-boot", "100"]).stdout
    )
    (v,) = [v for v in report["judges"]["versions"] if v["name"].startswith("openai:m")]
    assert v["not_judged"] == items and sum(v["not_judged_why"].values()) == items


def test_every_call_failing_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()  # 4 calls: the failure watch needs 5
    expected = units_of(path, ["p0", "p1"])
    with FakeLLMServer(lambda req: Reply.error(400, "no such thing")) as server:
        r = judge(path, server.openai_url)
        assert server.count() == 4
    assert r.exit_code == 1, r.output
    # the reason is said once, in the error that stops the run
    assert f"not judged: {expected} (why: the error below)" in r.stdout
    assert "error: the judge run failed: every call ended in an error (4)" in r.stderr
    assert r.output.count("no such thing") == 1
    assert last_run(path) == "failed"


@pytest.mark.slow  # the connection is retried with back-off
def test_an_unresolvable_host_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=1, statements=0).close()
    r = judge(path, "http://no-such-host.invalid/v1", "--timeout", "5")
    assert r.exit_code == 1, r.output
    assert "not judged: " in r.stdout and "the judge run failed" in r.stderr


def test_a_run_where_every_call_succeeds_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    small_study(path, pairwise=6, statements=0).close()
    with FakeLLMServer(GOOD) as server:
        r = judge(path, server.openai_url)
    assert r.exit_code == 0, r.output
    assert "not judged: 0;" in r.stdout and "(why:" not in r.stdout
