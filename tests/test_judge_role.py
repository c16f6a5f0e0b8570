"""``judge`` needs the lead role, as the app's ``J`` does: a run spends money and writes
verdicts. A dry run only counts, so anyone may ask for one."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.paths import login_name
from medjudge.store.roles import grant, revoke
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer
from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


def test_a_reviewer_cannot_run_a_judge_but_may_dry_run(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0  # this login is the lead
    src = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(0)])
    assert cli.invoke(app, ["import", str(db), str(src), "--kind", "pairwise"]).exit_code == 0
    me = login_name()
    with Study.open(db) as s:
        grant(s, "drlead", "lead", by=me)
        revoke(s, me, "lead", by=me)
        grant(s, me, "reviewer", by="drlead")
    with FakeLLMServer() as server:
        spec = ["-j", f"openai:m@{server.openai_url}", "--price", "0,0"]
        r = cli.invoke(app, ["judge", str(db), *spec])
        assert r.exit_code == 1
        assert f"{me} is not a lead of this study; ask a lead (drlead)" in r.output
        assert server.count() == 0
        r = cli.invoke(app, ["judge", str(db), *spec, "--dry-run"])
        assert r.exit_code == 0, r.output
        with Study.open(db) as s:
            grant(s, me, "lead", by="drlead")
        r = cli.invoke(app, ["judge", str(db), *spec, "--samples", "1"])
        assert r.exit_code == 0, r.output
        assert server.count() > 0
