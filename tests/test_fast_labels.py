"""Too-fast labels: ``settings --fast-rule FRACTION`` flags a reviewer's items done in under
FRACTION of the smaller of their own and the team's median time on the kind; the report shows
the flagged items and the reviewers' agreement with and without them (every format), ``status``
counts them, and ``requeue --fast`` sends them back to the reviewer (leads only)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.judging.analysis.fast_labels import MIN_TIMED, fast_flags
from medjudge.judging.stats.agreement.two import TwoRaterStats, two_rater_stats
from medjudge.store.labels import set_label
from medjudge.store.paths import login_name
from medjudge.store.roles import grant, revoke
from medjudge.store.study import Study
from medjudge.tui.session import ReviewSession

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()

ITEMS = 8
FAST = ("p2", "p5")
"""carol's items done in a tenth of everyone's time."""
CRITERIA = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")
"""Every criterion of a pairwise item: a reviewer who labels them all is done with it."""


def _value(rater: str, i: int, criterion: str) -> str:
    """alice and bob mostly agree; carol agrees with them except on her fast items."""
    base = "AB"[(i + CRITERIA.index(criterion)) % 2]
    if rater == "bob" and i == 7:
        return "tie"
    if rater == "carol" and f"p{i}" in FAST:
        return "B" if base == "A" else "A"
    return base


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Eight pairwise items; alice, bob and carol label two criteria on each; times written as
    the review app writes them (``ReviewSession.record_time``)."""
    path = tmp_path / "f.db"
    assert cli.invoke(app, ["init", str(path)]).exit_code == 0
    src = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(ITEMS)])
    assert cli.invoke(app, ["import", str(path), str(src), "--kind", "pairwise"]).exit_code == 0
    with Study.open(path) as s:
        for rater in ("alice", "bob", "carol"):
            session = ReviewSession(s, rater)
            for i in range(ITEMS):
                item = _item(s, f"p{i}")
                seconds = 60.0 + 10 * i
                if rater == "carol" and f"p{i}" in FAST:
                    seconds /= 10
                session.record_time(item, seconds)
                for criterion in CRITERIA:
                    set_label(s, _unit(s, f"p{i}", criterion), rater, _value(rater, i, criterion))
    return path


def _item(s: Study, ext: str) -> int:
    return int(s.conn.execute("SELECT id FROM items WHERE ext_id = ?", (ext,)).fetchone()[0])


def _unit(s: Study, ext: str, criterion: str) -> int:
    return int(
        s.conn.execute(
            "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id "
            "WHERE i.ext_id = ? AND u.criterion = ?",
            (ext, criterion),
        ).fetchone()[0]
    )


def _run(*args: str | Path) -> Result:
    return cli.invoke(app, [str(a) for a in args])


def _report(db: Path, fmt: str) -> str:
    r = _run("report", db, "-f", fmt, "--n-boot", "200")
    assert r.exit_code == 0, r.output
    return r.stdout


def _settings_json(db: Path) -> str:
    with Study.open(db) as s:
        return s.settings.model_dump_json()


def test_flagged_under_the_rule_and_not_without(db: Path) -> None:
    report = json.loads(_report(db, "json"))
    assert "fast_labels" in report and report["fast_labels"] is None
    assert "Too-fast" not in _report(db, "md") and "Too-fast" not in _report(db, "html")
    assert "fast_labels" not in _report(db, "csv")
    assert "too-fast" not in _run("status", db).stdout

    r = _run("settings", db, "--fast-rule", "0.33")
    assert r.exit_code == 0, r.output
    assert "too-fast labels: under 0.33" in r.stdout
    with Study.open(db) as s:
        flags = fast_flags(s, 0.33)
    assert [(f.reviewer, f.item) for f in flags.flagged] == [("carol", "p2"), ("carol", "p5")]
    p2 = flags.flagged[0]
    assert p2.seconds == 8.0 and p2.labels == len(CRITERIA)
    assert p2.reviewer_median_s == 80.0  # 8, 11, 60, 70, 90, 100, 120, 130
    assert p2.team_median_s == 90.0
    status = _run("status", db)
    assert (
        f"too-fast labels (under 0.33 × the typical time): {2 * len(CRITERIA)} label(s) on 2 item(s) (carol)"
        in (status.stdout)
    )
    assert json.loads(_run("status", db, "--json").stdout)["fast_labels"]["labels"] == 2 * len(
        CRITERIA
    )

    assert _run("settings", db, "--fast-rule", "off").exit_code == 0
    assert json.loads(_report(db, "json"))["fast_labels"] is None


def test_too_few_timed_items_are_not_judged(db: Path) -> None:
    with Study.open(db) as s:
        ReviewSession(s, "dave").record_time(_item(s, "p0"), 1.0)
        set_label(s, _unit(s, "p0", "correctness"), "dave", "A")
        flags = fast_flags(s, 0.5)
    assert [(n.reviewer, n.timed_items) for n in flags.not_judged] == [("dave", 1)]
    assert 1 < MIN_TIMED and all(f.reviewer != "dave" for f in flags.flagged)
    assert _run("settings", db, "--fast-rule", "0.5").exit_code == 0
    md = _report(db, "md")
    assert "Not judged (fewer than 5 timed items of the kind): dave on pairwise (1)." in md


def _by_hand(criterion: str, a: str, b: str, drop: set[tuple[str, str]]) -> TwoRaterStats:
    xs, ys = [], []
    for i in range(ITEMS):
        ext = f"p{i}"
        xs.append(None if (a, ext) in drop else _value(a, i, criterion))
        ys.append(None if (b, ext) in drop else _value(b, i, criterion))
    return two_rater_stats(xs, ys)


def test_the_report_shows_both_versions_in_every_format(db: Path) -> None:
    assert _run("settings", db, "--fast-rule", "0.33").exit_code == 0
    section = json.loads(_report(db, "json"))["fast_labels"]
    assert section["fraction"] == 0.33 and "0.33 × the smaller" in section["rule"]
    assert [(f["reviewer"], f["item"]) for f in section["flagged"]] == [
        ("carol", "p2"),
        ("carol", "p5"),
    ]
    drop = {("carol", e) for e in FAST}
    rows = {(r["criterion"], r["rater_a"], r["rater_b"]): r for r in section["agreement"]}
    assert set(rows) == {
        (c, a, b)
        for c in CRITERIA
        for a, b in (("alice", "bob"), ("alice", "carol"), ("bob", "carol"))
    }
    for (criterion, a, b), row in rows.items():
        every, kept = _by_hand(criterion, a, b, set()), _by_hand(criterion, a, b, drop)
        assert row["percent_all"]["value"] == pytest.approx(every.percent.value)
        assert row["cohen_all"]["value"] == pytest.approx(every.cohen.value)
        assert row["percent_kept"]["value"] == pytest.approx(kept.percent.value)
        assert row["cohen_kept"]["value"] == pytest.approx(kept.cohen.value)
        assert (row["percent_all"]["n"], row["percent_kept"]["n"]) == (
            ITEMS,
            ITEMS - (2 if "carol" in (a, b) else 0),
        )
    carol = rows[("correctness", "alice", "carol")]
    assert carol["percent_all"]["value"] == pytest.approx(6 / 8)
    assert carol["percent_kept"]["value"] == pytest.approx(1.0)

    md = _report(db, "md")
    assert "## Too-fast labels" in md and "Cohen's κ (without)" in md
    assert "| carol | p2 |" in md.replace("  ", " ")
    html = _report(db, "html")
    assert "Too-fast labels" in html and 'id="fast_labels"' in html
    lines = list(csv.DictReader(io.StringIO(_report(db, "csv"))))
    fast = [x for x in lines if x["section"] == "fast_labels"]
    assert {x["slice"] for x in fast} >= {"all", "without_fast", "item=p2", "item=p5"}
    csv_kept = next(
        x
        for x in fast
        if (x["criterion"], x["rater_a"], x["rater_b"], x["slice"], x["metric"])
        == ("correctness", "alice", "carol", "without_fast", "percent")
    )
    assert float(csv_kept["value"]) == pytest.approx(1.0) and csv_kept["n"] == "6"


def test_requeue_withdraws_and_the_items_are_unfinished_again(db: Path) -> None:
    r = _run("requeue", db, "--fast")
    assert r.exit_code == 1 and "--fast-rule" in r.stderr, r.output
    assert _run("settings", db, "--fast-rule", "0.33").exit_code == 0
    with Study.open(db) as s:
        session = ReviewSession(s, "carol")
        assert session.is_done(_item(s, "p2")) and session.items_done() == ITEMS

    dry = _run("requeue", db, "--fast", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "carol: p2 would send back" in dry.stdout and "dry run: nothing changed" in dry.stdout
    with Study.open(db) as s:
        assert ReviewSession(s, "carol").items_done() == ITEMS

    none = _run("requeue", db, "--fast", "--reviewer", "alice")
    assert none.exit_code == 0 and "alice: no too-fast items" in none.stdout

    r = _run("requeue", db, "--fast", "--reviewer", "carol")
    assert r.exit_code == 0, r.output
    assert f"carol: p2 sent back ({len(CRITERIA)} label(s) withdrawn" in r.stdout
    assert "carol: p5 sent back" in r.stdout and "2 item(s) sent back" in r.stdout
    with Study.open(db) as s:
        session = ReviewSession(s, "carol")
        assert not session.is_done(_item(s, "p2")) and not session.is_done(_item(s, "p5"))
        assert session.is_done(_item(s, "p0")) and session.items_done() == ITEMS - 2
        assert ReviewSession(s, "alice").items_done() == ITEMS  # nobody else's
        history = s.conn.execute(
            "SELECT h.old_value, h.new_value, h.actor FROM label_history h "
            "JOIN raters r ON r.id = h.rater_id WHERE h.action = 'requeue' AND r.name = 'carol'"
        ).fetchall()
        assert len(history) == 2 * len(CRITERIA) and all(new is None for _, new, _ in history)
        assert {actor for *_, actor in history} == {login_name()}
        # the history keeps the withdrawn labels' own rows too
        total = s.conn.execute("SELECT count(*) FROM label_history").fetchone()[0]
        assert total == (3 * ITEMS + 2) * len(CRITERIA)
    again = _run("requeue", db, "--fast")
    assert again.exit_code == 0 and "nothing to send back" in again.stdout


@pytest.mark.parametrize("bad", ["0", "1", "1.5", "-0.2", "nan", "inf", "fast", ""])
def test_a_bad_fast_rule_is_refused_and_changes_nothing(db: Path, bad: str) -> None:
    assert _run("settings", db, "--fast-rule", "0.25").exit_code == 0
    before = _settings_json(db)
    r = _run("settings", db, "--fast-rule", bad, "--name", "renamed")
    assert r.exit_code == 1, r.output
    assert "--fast-rule" in r.stderr and "between 0 and 1" in r.stderr
    assert "Traceback" not in r.output
    assert _settings_json(db) == before


def test_only_a_lead_changes_the_rule_or_requeues(db: Path) -> None:
    assert _run("settings", db, "--fast-rule", "0.33").exit_code == 0
    me = login_name()
    with Study.open(db) as s:
        grant(s, "drlead", "lead", by=me)
        revoke(s, me, "lead", by=me)
    for args in (("requeue", db, "--fast"), ("requeue", db, "--fast", "--dry-run")):
        r = _run(*args)
        assert r.exit_code == 1 and f"{me} is not a lead of this study" in r.stderr, r.output
    r = _run("settings", db, "--fast-rule", "off")
    assert r.exit_code == 1 and "not a lead" in r.stderr
    with Study.open(db) as s:
        assert s.settings.fast_rule == 0.33
        assert ReviewSession(s, "carol").items_done() == ITEMS
