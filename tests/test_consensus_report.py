"""The report's Dawid–Skene section: with three or more reviewers, each reviewer's estimated
accuracy and where the consensus differs from the majority."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.labels import set_label

from .support.studies import small_study


def test_planted_spammers_outvoted_by_the_model(tmp_path: Path) -> None:
    """Two careful reviewers give the truth; three spammers always say A. On every unit whose
    truth is not A the majority is A (3 of 5), but the model learns the spammers carry no
    information and follows the careful two."""
    path = tmp_path / "ds.db"
    s = small_study(path, pairwise=40, statements=0)
    rng = random.Random(3)
    units = [u for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'correctness'")]
    truth = {u: rng.choice(["A", "B", "B", "tie"]) for u in units}
    for u in units:
        for careful in ("c1", "c2"):
            set_label(s, u, careful, truth[u])
        for spammer in ("s1", "s2", "s3"):
            set_label(s, u, spammer, "A")
    s.close()
    declare = ["settings", str(path), "--categories", "correctness=A,B,tie,neither"]
    assert CliRunner().invoke(app, declare).exit_code == 0
    r = CliRunner().invoke(app, ["report", str(path), "-f", "json"])
    report = json.loads(r.stdout)
    (rec,) = [c for c in report["consensus"] if c["criterion"] == "correctness"]
    not_a = sum(v != "A" for v in truth.values())
    assert rec["n_units"] == 40 and rec["settled"] == 0
    assert rec["differs"] == not_a
    assert len(rec["examples"]) == min(not_a, 20)
    assert all(e["majority"] == "A" and e["consensus"] != "A" for e in rec["examples"])
    # the declared labels the reviewers gave, in order: nobody gave 'neither' (issue: no cells
    # for a class no unit has)
    assert rec["categories"] == ["A", "B", "tie"] and rec["unused"] == ["neither"]
    assert min(rec["accuracy"]["c1"], rec["accuracy"]["c2"]) > 0.95
    assert max(rec["accuracy"][x] for x in ("s1", "s2", "s3")) < 0.5
    md = CliRunner().invoke(app, ["report", str(path), "-f", "md"]).stdout
    assert "Dawid–Skene" in md and f"differs from the strict majority on {not_a} unit(s)" in md
    # 'neither' is never used: no prior share, no confusion row or column, no table column.
    assert "neither" not in rec["prior"]
    assert all(len(m) == 3 and all(len(r) == 3 for r in m) for m in rec["confusion"].values())
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if "| Estimated accuracy |" in line)
    assert "neither" not in lines[start] and "No reviewer gave neither" in md


def test_no_section_below_three_reviewers(tmp_path: Path) -> None:
    path = tmp_path / "two.db"
    s = small_study(path, pairwise=3, statements=0)
    for (u,) in s.conn.execute("SELECT id FROM units").fetchall():
        set_label(s, u, "ann", "A")
        set_label(s, u, "bob", "B")
    s.close()
    report = json.loads(CliRunner().invoke(app, ["report", str(path), "-f", "json"]).stdout)
    assert report["consensus"] == []
    assert "Dawid" not in CliRunner().invoke(app, ["report", str(path), "-f", "md"]).stdout


def test_a_model_that_does_not_converge_says_it_fell_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.judging.analysis import consensus
    from medjudge.judging.stats.dawid_skene import dawid_skene

    monkeypatch.setattr(consensus, "dawid_skene", functools.partial(dawid_skene, max_iter=1))
    path = tmp_path / "capped.db"
    s = small_study(path, pairwise=10, statements=0)
    rng = random.Random(1)
    for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'correctness'").fetchall():
        for rater in ("r1", "r2", "r3"):
            set_label(s, u, rater, rng.choice(["A", "B", "tie"]))
    s.close()
    report = json.loads(CliRunner().invoke(app, ["report", str(path), "-f", "json"]).stdout)
    (rec,) = [c for c in report["consensus"] if c["criterion"] == "correctness"]
    assert rec["method"]["fallback"] is True and rec["method"]["converged"] is False
    assert "majority vote" in rec["method"]["name"]
    for fmt in ("md", "html"):
        out = CliRunner().invoke(app, ["report", str(path), "-f", fmt]).stdout
        assert "the consensus shown is the majority vote" in out, fmt
