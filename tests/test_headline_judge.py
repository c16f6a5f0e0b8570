"""The headline judge is chosen by rule — the most complete judge, then by name — in the
report and the app's live agreement alike, not by name sort."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.analysis.headline import headline_judge
from medjudge.judging.analysis.live import LiveAgreement
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label

from .support.studies import small_study


def test_rule() -> None:
    assert headline_judge({}) is None
    assert headline_judge({"a": 1, "z": 5}) == "z"
    assert headline_judge({"b": 3, "a": 3}) == "a"
    assert headline_judge({"b": 3, "a": 3}, preferred="b") == "b", "the study's setting breaks ties"
    assert headline_judge({"b": 3, "a": 5}, preferred="b") == "a", "completeness comes first"


def test_report_and_live_agree_on_the_most_complete_judge(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    s = small_study(path, pairwise=4, statements=0)
    units = [u for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion='correctness'")]
    for u in units:
        set_label(s, u, "ann", "A")
        set_label(s, u, "bob", "A")
    write_verdicts(
        s, "aaa:sparse", {}, [NewVerdict(units[0], "B", "r", {})], run_id=None, actor="t"
    )
    write_verdicts(
        s, "zzz:complete", {}, [NewVerdict(u, "A", "r", {}) for u in units], run_id=None, actor="t"
    )
    live = LiveAgreement(s)
    live.refresh()
    row = next(r for r in live.rows() if r.criterion == "correctness")
    assert row.judge == "zzz:complete"
    s.close()
    report = json.loads(CliRunner().invoke(app, ["report", str(path), "-f", "json"]).stdout)
    crit = next(c for c in report["criteria"] if c["name"] == "correctness")
    assert crit["headline_judge"] == "zzz:complete"


def test_the_setting_breaks_ties(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    s = small_study(path, pairwise=2, statements=0)
    units = [u for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion='correctness'")]
    for judge in ("aaa:one", "zzz:two"):
        write_verdicts(
            s, judge, {}, [NewVerdict(u, "A", "r", {}) for u in units], run_id=None, actor="t"
        )
    s.close()
    cli = CliRunner()
    r = cli.invoke(app, ["settings", str(path), "--headline-judge", "zzz:two"])
    assert r.exit_code == 0 and "headline judge: zzz:two" in r.stdout, r.output
    report = json.loads(cli.invoke(app, ["report", str(path), "-f", "json"]).stdout)
    assert report["criteria"][0]["headline_judge"] == "zzz:two"
    r = cli.invoke(app, ["settings", str(path), "--headline-judge", ""])
    assert "headline judge: the most complete, then by name" in r.stdout
