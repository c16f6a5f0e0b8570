"""Random physician samples: ``assign --sample N --seed S`` draws, records and assigns a
uniform random sample of the items not yet sampled; ``export assignments`` says how each item
was assigned."""

from __future__ import annotations

import csv
import io
import json
import random
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.samples import recorded_samples
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

cli = CliRunner()


def make_study(tmp_path: Path, n: int = 300, name: str = "s.db") -> Path:
    db = tmp_path / name
    assert cli.invoke(app, ["init", str(db), "--name", "Audit"]).exit_code == 0
    rows = [pairwise_row(i, batch="b1" if i < n // 2 else "b2") for i in range(n)]
    r = cli.invoke(
        app,
        ["import", str(db), str(write_jsonl(tmp_path / f"{name}.jsonl", rows)), "-k", "pairwise"],
    )
    assert r.exit_code == 0, r.output
    return db


def test_a_sample_is_drawn_recorded_and_assigned(tmp_path: Path) -> None:
    db = make_study(tmp_path)
    r = cli.invoke(app, ["assign", str(db), "drchen", "--sample", "80", "--seed", "7"])
    assert r.exit_code == 0, r.output
    assert "sample 1: 80 of 300 items drawn at random (seed 7; inclusion probability 0.2667)" in (
        r.output
    )
    assert "drchen: 80 new, 80 assigned in all" in r.output
    with Study.open(db) as s:
        (sample,) = recorded_samples(s)
        frame = [i for (i,) in s.conn.execute("SELECT id FROM items ORDER BY id")]
        assigned = {i for (i,) in s.conn.execute("SELECT item_id FROM assignments")}
    assert sample.seed == 7 and sample.size == 80 and sample.frame == tuple(frame)
    assert sample.inclusion_probability == pytest.approx(80 / 300)
    # the documented draw: random.Random(seed).sample over the frame in import order
    assert list(sample.items) == random.Random(7).sample(frame, 80)
    assert assigned == set(sample.items)


def test_the_same_seed_draws_the_same_items(tmp_path: Path) -> None:
    drawn = []
    for name in ("a.db", "b.db"):
        db = make_study(tmp_path, name=name)
        assert (
            cli.invoke(app, ["assign", str(db), "ann", "--sample", "20", "--seed", "3"]).exit_code
            == 0
        )
        r = cli.invoke(app, ["export", str(db), "assignments"])
        drawn.append(sorted(json.loads(line)["item"] for line in r.stdout.splitlines()))
    assert drawn[0] == drawn[1] and len(drawn[0]) == 20


def test_a_second_sample_comes_from_the_items_not_yet_sampled(tmp_path: Path) -> None:
    db = make_study(tmp_path, n=100)
    assert (
        cli.invoke(app, ["assign", str(db), "ann", "--sample", "30", "--seed", "1"]).exit_code == 0
    )
    r = cli.invoke(app, ["assign", str(db), "bob", "--sample", "70", "--seed", "2"])
    assert r.exit_code == 0, r.output
    assert "sample 2: 70 of 70 items drawn" in r.output
    with Study.open(db) as s:
        first, second = recorded_samples(s)
    assert not set(first.items) & set(second.items)
    assert set(second.frame) == set(first.frame) - set(first.items)
    # nothing is left: asking for more names the option and says why, and writes nothing
    r = cli.invoke(app, ["assign", str(db), "cy", "--sample", "1", "--seed", "3"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "--sample 1: only 0 item(s) are left to sample (100 match the filters, 100 of them " in (
        r.stderr
    )


def test_a_sample_larger_than_the_frame_is_a_clear_error(tmp_path: Path) -> None:
    db = make_study(tmp_path, n=40)
    r = cli.invoke(
        app, ["assign", str(db), "ann", "--batch", "b1", "--sample", "21", "--seed", "7"]
    )
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "--sample 21: only 20 item(s) are left to sample (20 match the filters" in r.stderr
    with Study.open(db) as s:
        assert recorded_samples(s) == []
        assert s.conn.execute("SELECT count(*) FROM assignments").fetchone()[0] == 0
    for args, option in (
        (["--seed", "7"], "--seed"),
        (["--sample", "0"], "--sample"),
        (["--sample", "3", "--remove"], "--sample"),
    ):
        r = cli.invoke(app, ["assign", str(db), "ann", *args])
        assert r.exit_code == 2 and option in r.output and "Traceback" not in r.output, args


def test_the_filters_make_the_frame_and_are_recorded(tmp_path: Path) -> None:
    db = make_study(tmp_path, n=40)
    r = cli.invoke(
        app, ["assign", str(db), "ann", "--batch", "b2", "--first", "10", "--sample", "4"]
    )
    assert r.exit_code == 0, r.output
    assert "seed " in r.output and "chosen now" in r.output  # no --seed: one is chosen, shown
    with Study.open(db) as s:
        (sample,) = recorded_samples(s)
        b2 = [i for (i,) in s.conn.execute("SELECT id FROM items WHERE batch = 'b2' ORDER BY id")]
    assert sample.frame == tuple(b2[:10]) and sample.filters == {"batch": "b2", "first": 10}
    assert sample.batch == "b2" and sample.seed >= 1


def test_export_assignments_says_how_each_item_was_assigned(tmp_path: Path) -> None:
    db = make_study(tmp_path, n=20)
    assert cli.invoke(app, ["assign", str(db), "ann", "--first", "2"]).exit_code == 0
    r = cli.invoke(
        app, ["assign", str(db), "ann", "bob", "--sample", "5", "--seed", "11", "--batch", "b1"]
    )
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["export", str(db), "assignments", "-f", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == [
        "item",
        "kind",
        "reviewer",
        "batch",
        "assigned",
        "sample",
        "inclusion_probability",
        "assigned_by",
        "at",
        "retired",
    ]
    with Study.open(db) as s:
        (sample,) = recorded_samples(s)
        ext = dict(s.conn.execute("SELECT id, ext_id FROM items"))
    sampled = {ext[i] for i in sample.items}
    for row in rows:
        if row["item"] in sampled:
            # an item assigned by hand before and drawn now serves the sample
            assert (row["assigned"], row["sample"], row["batch"]) in (
                ("sample:11", "1", "b1"),
                ("sample:11", "1", ""),
            ), row
            assert float(row["inclusion_probability"]) == pytest.approx(5 / 10)
        else:
            assert row["assigned"] == "manual" and row["sample"] == "" and row["reviewer"] == "ann"
    assert {r["reviewer"] for r in rows if r["item"] in sampled} == {"ann", "bob"}
    assert len([r for r in rows if r["item"] in sampled]) == 10
    r = cli.invoke(app, ["export", str(db), "assignments"])  # jsonl
    assert {json.loads(line)["assigned"] for line in r.stdout.splitlines()} == {
        "manual",
        "sample:11",
    }


def test_samples_are_append_only_through_plain_sqlite(tmp_path: Path) -> None:
    db = make_study(tmp_path, n=10)
    assert (
        cli.invoke(app, ["assign", str(db), "ann", "--sample", "3", "--seed", "1"]).exit_code == 0
    )
    conn = sqlite3.connect(db)
    try:
        for sql in (
            "UPDATE samples SET seed = 8",
            "DELETE FROM samples",
            "UPDATE sample_items SET item_id = item_id + 1",
            "DELETE FROM sample_items",
            "INSERT OR REPLACE INTO sample_items (sample_id, item_id, draw) "
            "SELECT sample_id, item_id, draw + 1 FROM sample_items LIMIT 1",
        ):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(sql)
            conn.rollback()
    finally:
        conn.close()


def test_a_study_from_before_samples_keeps_its_assignments_as_manual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.store import migrations
    from medjudge.store.migrations import applied

    from .support.studies import small_study

    path = tmp_path / "old.db"
    before = [m for m in migrations.MIGRATIONS if m[0] != "011_samples"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = small_study(path, pairwise=3, statements=0)
    with old.tx() as conn:  # what `assign` wrote before 011
        conn.execute(
            "INSERT INTO assignments (item_id, login, batch, assigned_by, at) "
            "VALUES (1, 'ann', 'w1', 'tester', 'x')"
        )
    old.close()
    monkeypatch.undo()
    with Study.open(path) as s:
        assert applied(s.conn)[-1] == "011_samples"
    r = cli.invoke(app, ["export", str(path), "assignments"])
    assert r.exit_code == 0, r.output
    (row,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert (row["item"], row["reviewer"], row["batch"], row["assigned"]) == (
        "p0",
        "ann",
        "w1",
        "manual",
    )
    r = cli.invoke(app, ["assign", str(path), "ann", "--sample", "2", "--seed", "5"])
    assert r.exit_code == 0 and "2 of 3 items" in r.output, r.output
