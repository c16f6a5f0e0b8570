"""The report's judges section: two versions of one judge side by side, each with its
position bias, agreement with the reviewers' majority and cost. Real SDKs against the scripted
loopback server, a real study file, the real command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.labels import set_label
from medjudge.store.roles import grant

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_first, prefer_marked, routing
from .support.runs import judge_for, judged_study, run


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """3 pairwise items; two reviewers say A everywhere; version 1 (1 sample) always picks the
    answer shown first, version 2 (temperature 0) picks the GOOD answer (always answer A)."""
    tmp = tmp_path_factory.mktemp("report-judges")
    study = judged_study(tmp, n=3)
    for unit in [r[0] for r in study.conn.execute("SELECT id FROM units")]:
        set_label(study, unit, "alice", "A")
        set_label(study, unit, "bob", "A")
    grant(study, "tester", "lead", by="tester")
    policy = {"judge": routing(pairwise_responder(prefer_first))}

    def respond(req: FakeRequest) -> Reply:
        return policy["judge"](req)

    with FakeLLMServer(respond) as server:
        biased = run(study, [judge_for(server, samples=1)])
        policy["judge"] = routing(pairwise_responder(prefer_marked("GOOD")))
        fair = run(study, [judge_for(server, samples=1, temperature=0.0)])
    names = (biased.versions[0], fair.versions[0])
    path = study.path
    study.close()
    return path, *names


def test_report_json_has_both_versions_with_position_bias(
    two_versions: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, biased, fair = two_versions
    monkeypatch.setenv("USER", "tester")
    monkeypatch.setenv("LOGNAME", "tester")
    r = CliRunner().invoke(app, ["report", str(path), "--format", "json"])
    assert r.exit_code == 0, r.output
    judges = json.loads(r.output)["judges"]
    v = {x["name"]: x for x in judges["versions"]}
    assert list(v) == [biased, fair] and fair == f"{biased}#{v[fair]['key'][:6]}"
    b, f = v[biased], v[fair]
    # position bias, for every version: 18 units (3 items x 6 criteria), 36 order verdicts
    assert b["position"]["ab_ne_ba"]["value"] == 1.0 and b["position"]["ab_ne_ba"]["n"] == 18
    assert b["position"]["first_shown_wins"]["value"] == 1.0
    assert b["position"]["first_shown_wins"]["n"] == 36
    assert b["position"]["first_shown_wins"]["ci_low"] > 0.9
    assert f["position"]["ab_ne_ba"]["value"] == 0.0
    assert f["position"]["first_shown_wins"]["value"] == 0.5
    low, high = (
        f["position"]["first_shown_wins"]["ci_low"],
        f["position"]["first_shown_wins"]["ci_high"],
    )
    assert 0.3 < low < 0.5 < high < 0.7
    # agreement with the reviewers' majority (A everywhere)
    fc = {r["criterion"]: r for r in f["vs_majority"]}
    bc = {r["criterion"]: r for r in b["vs_majority"]}
    assert fc["correctness"]["accuracy"]["value"] == 1.0 and fc["correctness"]["n"] == 3
    assert bc["correctness"]["accuracy"]["value"] == 0.0
    assert fc["correctness"]["kappa"]["value"] is None  # one category: κ undefined, with reason
    assert fc["correctness"]["kappa"]["reason"]
    per = {p["value"]: p for p in fc["correctness"]["per_value"]}
    values = tuple(per["A"][k]["value"] for k in ("precision", "recall", "f1"))
    assert values == (1.0, 1.0, 1.0)
    assert per["A"]["precision"]["method"] == "wilson" and per["A"]["precision"]["unstable"]
    per_b = {p["value"]: p for p in bc["correctness"]["per_value"]}
    assert per_b["A"]["recall"]["value"] == 0.0 and per_b["tie"]["precision"]["value"] == 0.0
    # effort of each version: its own 6 calls (3 items x AB/BA x 1 sample)
    for x in (b, f):
        assert x["calls"] == 6 and x["items"] == 3 and x["input_tokens"] > 0
        assert x["wall_s"] is not None and x["wall_s"] >= 0
        assert x["missing"]["value"] == 0.0 and x["verdicts"] == 18
    # judge vs judge
    pair = [p for p in judges["pairs"] if p["criterion"] == "correctness"]
    assert len(pair) == 1 and (pair[0]["a"], pair[0]["b"]) == (biased, fair)
    assert pair[0]["percent"]["value"] == 0.0 and pair[0]["n"] == 3


def test_report_md_html_csv_show_the_versions_side_by_side(
    two_versions: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, biased, fair = two_versions
    monkeypatch.setenv("USER", "tester")
    monkeypatch.setenv("LOGNAME", "tester")
    runner = CliRunner()
    r = runner.invoke(app, ["report", str(path), "--format", "md"])
    assert r.exit_code == 0, r.output
    section = r.output.split("## Judge versions", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    side = [line for line in rows if "| 18 |" in line]
    assert len(side) == 2 and biased in side[0] and fair.replace("#", "\\#") in side[1]
    # AB ≠ BA and first shown wins, for each version
    # († marks a share from fewer than 20 units: unstable)
    assert side[0].endswith("| 18/18 = 100.0%† [82.4, 100.0] | 36/36 = 100.0% [90.4, 100.0] |")
    assert side[1].endswith("| 0/18 = 0.0%† [0.0, 17.6] | 18/36 = 50.0% [34.5, 65.5] |")
    assert "Position: answer shown first wins" in section
    assert "Judge version vs judge version" in section
    r = runner.invoke(app, ["report", str(path), "--format", "html"])
    assert r.exit_code == 0, r.output
    assert 'id="judges"' in r.output and "Judge versions side by side" in r.output
    r = runner.invoke(app, ["report", str(path), "--format", "csv"])
    assert r.exit_code == 0, r.output
    recs = list(csv.DictReader(io.StringIO(r.output)))
    first = {
        x["rater_a"]: float(x["value"])
        for x in recs
        if x["section"] == "judge_version" and x["metric"] == "position_first_shown_wins"
    }
    assert first == {biased: 1.0, fair: 0.5}
    assert any(x["section"] == "judge_vs_judge" for x in recs)
