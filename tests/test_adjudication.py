"""Issue 6: the disagreement queue, adjudications, roles and the history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.analysis.disagreements import counts, queue, unit_detail
from medjudge.store.adjudications import adjudicate, reference_labels
from medjudge.store.db import StudyError
from medjudge.store.items import get_item
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import mark_revealed, set_label
from medjudge.store.roles import PermissionDenied, grant
from medjudge.store.study import Study
from medjudge.store.visibility import visible_other_labels, visible_verdicts


def trail(ab: list[str], ba: list[str], failed: int = 0) -> dict[str, Any]:
    from medjudge.kinds import votes as protocol

    a = protocol.order_majority(ab, "tie")
    b = protocol.order_majority(ba, "tie")
    rec = protocol.reconcile(a.verdict, b.verdict, "tie")
    return {
        "orders": {
            "AB": {
                "votes": ab,
                "samples_disagreed": a.disagreed,
                "failed": [{"key": "k", "sample": 2, "error": "x"}] * failed,
            },
            "BA": {"votes": ba, "samples_disagreed": b.disagreed, "failed": []},
        },
        "verdict": rec.verdict,
        "position_inconsistent": rec.position_inconsistent,
    }


@pytest.fixture
def disputed(pairwise_study: Study) -> Study:
    """Items 1–3 pairwise. Known disagreements:
    item 1 correctness: alice A, bob B, judge A                → reviewer_vs_reviewer, reviewer_vs_judge
    item 1 helpfulness: alice A, bob A, judge A (AB A,A,B)    → samples_disagreed only
    item 2 correctness: alice A, bob A, judge tie (AB≠BA)     → reviewer_vs_judge, position_inconsistency
    item 3 correctness: alice B, judge B with a failed sample → failed_samples
    everything else: agreement (or a single rater)."""
    s = pairwise_study
    u = {
        (i, c): get_item(s, i).unit_for(c).id
        for i in (1, 2, 3)
        for c in ("correctness", "helpfulness")
    }
    for rater, i, c, v in [
        ("alice", 1, "correctness", "A"),
        ("bob", 1, "correctness", "B"),
        ("alice", 1, "helpfulness", "A"),
        ("bob", 1, "helpfulness", "A"),
        ("alice", 2, "correctness", "A"),
        ("bob", 2, "correctness", "A"),
        ("alice", 3, "correctness", "B"),
    ]:
        set_label(s, u[(i, c)], rater, v)
    write_verdicts(
        s,
        "openai:judge",
        {},
        [
            NewVerdict(u[(1, "correctness")], "A", "r", trail(["A"] * 3, ["A"] * 3)),
            NewVerdict(u[(1, "helpfulness")], "A", "r", trail(["A", "A", "B"], ["A"] * 3)),
            NewVerdict(u[(2, "correctness")], "tie", "r", trail(["A"] * 3, ["B"] * 3)),
            NewVerdict(u[(3, "correctness")], "B", "r", trail(["B", "B"], ["B"] * 3, failed=1)),
        ],
        run_id=None,
        actor="t",
    )
    s.units = u  # type: ignore[attr-defined]
    return s


def test_queue_lists_exactly_the_known_units_under_the_right_kinds(disputed: Study) -> None:
    u = disputed.units  # type: ignore[attr-defined]
    got = {d.unit_id: set(d.kinds) for d in queue(disputed)}
    assert got == {
        u[(1, "correctness")]: {"reviewer_vs_reviewer", "reviewer_vs_judge"},
        u[(1, "helpfulness")]: {"samples_disagreed"},
        u[(2, "correctness")]: {"reviewer_vs_judge", "position_inconsistency"},
        u[(3, "correctness")]: {"failed_samples"},
    }
    c = counts(queue(disputed))
    assert c["reviewer_vs_judge"] == 2 and c["judge_vs_judge"] == 0 and c["failed_samples"] == 1
    first = queue(disputed)[0]
    assert first.split == pytest.approx(1 / 3) and first.unit_id in (
        u[(1, "correctness")],
        u[(2, "correctness")],
    )
    assert [d.unit_id for d in queue(disputed, kind="position_inconsistency")] == [
        u[(2, "correctness")]
    ]
    assert {d.unit_id for d in queue(disputed, reviewer="bob")} == {
        u[(1, "correctness")],
        u[(1, "helpfulness")],
        u[(2, "correctness")],
    }
    assert queue(disputed, source="nobody") == []


def test_adjudication_needs_role_and_rationale_and_is_revisable(disputed: Study) -> None:
    unit = disputed.units[(1, "correctness")]  # type: ignore[attr-defined]
    with pytest.raises(PermissionDenied, match="not an adjudicator"):
        adjudicate(disputed, unit, "A", "because", actor="alice")
    grant(disputed, "carol", "adjudicator", by="lead")
    with pytest.raises(StudyError, match="rationale"):
        adjudicate(disputed, unit, "A", "   ", actor="carol")
    with pytest.raises(StudyError):
        adjudicate(disputed, unit, "Z", "nonsense value", actor="carol")
    adjudicate(disputed, unit, "B", "B names the red flags", actor="carol")
    adjudicate(disputed, unit, "A", "on review, A is safer", actor="carol")
    assert reference_labels(disputed) == {unit: "A"}
    detail = unit_detail(disputed, unit)
    assert [a["value"] for a in detail["adjudications"]] == ["B", "A"]
    assert {r["reviewer"]: r["value"] for r in detail["reviewers"]} == {"alice": "A", "bob": "B"}
    assert detail["judges"][0]["trail"]["orders"]["AB"]["votes"] == ["A", "A", "A"]
    assert [d.unit_id for d in queue(disputed, unresolved_only=True)].count(unit) == 0


def test_roles_lead_only_settings_and_assignments(disputed: Study) -> None:
    from medjudge.store.assignments import assign

    grant(disputed, "lead1", "lead", by="lead1")  # the first lead may be named by anyone
    with pytest.raises(PermissionDenied, match="not a lead"):
        grant(disputed, "alice", "adjudicator", by="alice")
    with pytest.raises(PermissionDenied):
        assign(disputed, ["alice"], [1, 2], by="alice")
    assert assign(disputed, ["alice", "bob"], [1, 2, 3], by="lead1", overlap=1) == {
        "alice": 2,
        "bob": 1,
    }


def test_blind_reviewer_sees_nothing_of_others_until_own_labels_are_saved(disputed: Study) -> None:
    item = get_item(disputed, 1)
    assert visible_verdicts(disputed, 1, "dave") == []
    assert visible_other_labels(disputed, 1, "dave") == {}
    for unit in item.units[:-1]:
        set_label(disputed, unit.id, "dave", "tie")
    assert visible_verdicts(disputed, 1, "dave") == []
    set_label(disputed, item.units[-1].id, "dave", "tie")
    assert len(visible_verdicts(disputed, 1, "dave")) == 2
    others = visible_other_labels(disputed, 1, "dave")
    assert others[item.units[0].id] == {"alice": "A", "bob": "B", "openai:judge": "A"}
    mark_revealed(disputed, 1, "dave")
    assert set_label(disputed, item.units[0].id, "dave", "A").after_reveal is True


def test_history_shows_every_change_in_order_and_export(disputed: Study, tmp_path: Path) -> None:
    grant(disputed, "carol", "adjudicator", by="carol")
    unit = disputed.units[(2, "correctness")]  # type: ignore[attr-defined]
    adjudicate(disputed, unit, "A", "both reviewers and the AB order agree", actor="carol")
    path = str(disputed.path)
    disputed.close()
    runner = CliRunner()
    r = runner.invoke(app, ["export", path, "history"])
    rows = [json.loads(line) for line in r.output.splitlines()]
    times = [row["at"] for row in rows]
    assert times == sorted(times)
    actions = [row["action"] for row in rows]
    assert actions.count("label:label") == 7 and actions.count("label:verdict") == 4
    assert actions[-2:] == ["role:add", "adjudicate"]
    assert rows[-1]["entity"] == "p1/correctness" and "both reviewers" in rows[-1]["new"]
    assert actions[0] == "settings" and "import" in actions
    r = runner.invoke(app, ["export", path, "adjudications", "--format", "csv"])
    assert "both reviewers and the AB order agree" in r.output
    r = runner.invoke(app, ["adjudicate", path, "--list"])
    assert r.exit_code == 0 and "p1/correctness" in r.output and "→ A" in r.output
    r = runner.invoke(
        app, ["adjudicate", path, "--unit", "p1/correctness", "--value", "B", "--rationale", "x"]
    )
    assert r.exit_code == 1 and "not an adjudicator" in r.output


def test_headless_adjudication_records_what_it_settles(disputed: Study) -> None:
    grant(disputed, "carol", "adjudicator", by="carol")
    unit = disputed.units[(1, "correctness")]  # type: ignore[attr-defined]
    path = str(disputed.path)
    disputed.close()
    r = CliRunner(env={"LOGNAME": "carol", "USER": "carol"}).invoke(
        app,
        [
            "adjudicate",
            path,
            "--unit",
            "p0/correctness",
            "--value",
            "A",
            "--rationale",
            "A is right",
        ],
    )
    assert r.exit_code == 0, r.output
    s = Study.open(path)
    row = s.conn.execute(
        "SELECT value, settles, actor FROM adjudications WHERE unit_id = ?", (unit,)
    ).fetchone()
    s.close()
    assert (row[0], row[2]) == ("A", "carol")
    assert set(json.loads(row[1])) == {"reviewer_vs_reviewer", "reviewer_vs_judge"}
