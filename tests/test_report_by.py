"""`report --by FIELD`: every figure per value of an import row's extra field, numeric
fields in numeric order, each slice's figures computed on exactly its units."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


def _voted_study(
    path: Path, rows: list[dict[str, object]], *, seed: int
) -> dict[tuple[str, str], str]:
    """A pairwise study of ``rows`` where ann and bob vote A or B at random on correctness;
    their votes by (item id, reviewer)."""
    s = Study.create(path, actor="t")
    import_file(s, write_jsonl(path.parent / "p.jsonl", rows), "pairwise", actor="t")
    rng = random.Random(seed)
    votes: dict[tuple[str, str], str] = {}
    units = s.conn.execute(
        "SELECT u.id, i.ext_id FROM units u JOIN items i ON i.id = u.item_id "
        "WHERE u.criterion = 'correctness'"
    ).fetchall()
    for unit, ext in units:
        for who in ("ann", "bob"):
            votes[(ext, who)] = rng.choice("AB")
            set_label(s, unit, who, votes[(ext, who)])
    s.close()
    return votes


def test_figures_per_metadata_value(tmp_path: Path) -> None:
    path = tmp_path / "by.db"
    rows = [
        pairwise_row(i, p=[0, 20, 100][i % 3], test=["noise", "integration"][i % 2])
        for i in range(30)
    ]
    votes = _voted_study(path, rows, seed=5)
    r = cli.invoke(app, ["report", str(path), "-f", "json", "--by", "p", "--by", "test"])
    assert r.exit_code == 0, r.output
    crit = next(c for c in json.loads(r.stdout)["criteria"] if c["name"] == "correctness")
    per_p = [
        c
        for c in crit["comparisons"]
        if c["view"] == "human_human" and c["slice_by"] == "p" and c["ties"] == "with"
    ]
    assert [c["slice_value"] for c in per_p] == ["0", "20", "100"], "numeric order"
    for c in per_p:
        exts = [f"p{i}" for i in range(30) if str([0, 20, 100][i % 3]) == c["slice_value"]]
        agree = sum(votes[(e, "ann")] == votes[(e, "bob")] for e in exts) / len(exts)
        assert c["n"] == len(exts) == 10
        assert abs(c["metrics"]["percent"]["value"] - agree) < 1e-12
    md = cli.invoke(app, ["report", str(path), "-f", "md", "--by", "test"]).stdout
    assert "test = integration" in md or "integration" in md


def test_unknown_field_is_named(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    s = Study.create(path, actor="t")
    import_file(s, write_jsonl(tmp_path / "p.jsonl", [pairwise_row(0, p=1)]), "pairwise", actor="t")
    s.close()
    r = cli.invoke(app, ["report", str(path), "--by", "specialty"])
    assert (
        r.exit_code == 1
        and "no item has the field 'specialty' (fields: batch, kind, p)" in r.stderr
    )


def test_by_batch_and_kind_as_status_takes_them(tmp_path: Path) -> None:
    """``status --by batch`` worked and ``report --by batch`` said no item has the field; a
    metadata field named like a built-in cannot shadow the item's own batch either."""
    path = tmp_path / "b.db"
    rows = [{**pairwise_row(i), "batch": ["w1", "w2"][i % 2]} for i in range(20)]
    votes = _voted_study(path, rows, seed=3)
    status = cli.invoke(app, ["status", str(path), "--by", "batch"])
    assert status.exit_code == 0, status.output
    r = cli.invoke(app, ["report", str(path), "-f", "json", "--by", "batch", "--by", "kind"])
    assert r.exit_code == 0, r.output
    crit = next(c for c in json.loads(r.stdout)["criteria"] if c["name"] == "correctness")
    per_batch = [
        c
        for c in crit["comparisons"]
        if c["view"] == "human_human" and c["slice_by"] == "batch" and c["ties"] == "with"
    ]
    assert [c["slice_value"] for c in per_batch] == ["w1", "w2"]
    for c in per_batch:
        exts = [f"p{i}" for i in range(20) if ["w1", "w2"][i % 2] == c["slice_value"]]
        agree = sum(votes[(e, "ann")] == votes[(e, "bob")] for e in exts) / len(exts)
        assert c["n"] == 10 and abs(c["metrics"]["percent"]["value"] - agree) < 1e-12
    # one kind: no slice of one group
    assert not [c for c in crit["comparisons"] if c["slice_by"] == "kind"]
