"""Every extra field of an import row is kept as item metadata."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.items import find_item, get_item
from medjudge.store.study import Study

from .support.checks import some
from .support.kind_rows import pairwise_row, statements_row, write_jsonl


def test_extra_fields_are_kept_and_known_ones_are_not(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "m.db", actor="t")
    rows = [
        pairwise_row(
            0, specialty="cardiology", p=20, test="noise", **{"human:ann:correctness": "A"}
        ),
        pairwise_row(1, specialty="  ", batch="b1"),
    ]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    import_file(
        s,
        write_jsonl(tmp_path / "s.jsonl", [statements_row(0, dataset="K-QA")]),
        "statements",
        actor="t",
    )
    first = get_item(s, some(find_item(s, "p0")))
    assert first.meta == {"specialty": "cardiology", "p": 20, "test": "noise"}
    assert get_item(s, some(find_item(s, "p1"))).meta == {}, (
        "empty cells and batch are not metadata"
    )
    assert get_item(s, some(find_item(s, "s0"))).meta == {"dataset": "K-QA"}
    s.close()


def test_csv_metadata_is_text(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "m.db", actor="t")
    row = pairwise_row(0, p="40")
    path = tmp_path / "p.csv"
    path.write_text(",".join(row) + "\n" + ",".join(str(v) for v in row.values()) + "\n")
    import_file(s, path, "pairwise", actor="t")
    assert get_item(s, some(find_item(s, "p0"))).meta == {"p": "40"}
    s.close()


def test_labels_export_carries_the_metadata(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from medjudge.cli import app
    from medjudge.store.labels import set_label

    s = Study.create(tmp_path / "m.db", actor="t")
    rows = [pairwise_row(0, specialty="cardiology", p=20), pairwise_row(1)]
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    for (unit,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'bias'").fetchall():
        set_label(s, unit, "ann", "A")
    s.close()
    out = CliRunner().invoke(app, ["export", str(tmp_path / "m.db"), "labels"]).stdout
    metas = {r["item"]: r["meta"] for r in map(json.loads, out.splitlines())}
    assert metas == {"p0": {"specialty": "cardiology", "p": 20}, "p1": None}
