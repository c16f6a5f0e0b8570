"""The report's anchoring figure: labels changed after the reveal, and toward whom."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.analysis.anchoring import ALL, anchoring
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import mark_revealed, set_label

from .support.studies import as_json, small_study


def _unit(s, ext_id: str, criterion: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    row = s.conn.execute(
        "SELECT u.id, i.id FROM units u JOIN items i ON i.id = u.item_id "
        "WHERE i.ext_id = ? AND u.criterion = ?",
        (ext_id, criterion),
    ).fetchone()
    return int(row[0]), int(row[1])


@pytest.fixture
def anchored(tmp_path: Path) -> Path:
    """ann changes 3 labels after the reveal: one toward the judge, one toward bob and cy, one
    elsewhere; a change before the reveal and a re-save of the same value do not count."""
    path = tmp_path / "a.db"
    s = small_study(path, pairwise=4, statements=0)
    units = {i: _unit(s, f"p{i}", "correctness") for i in range(4)}
    write_verdicts(
        s,
        "openai:judge",
        {},
        [NewVerdict(units[i][0], "A", "r", {}) for i in range(4)],
        run_id=None,
        actor="t",
    )
    for i in range(4):
        uid, item = units[i]
        set_label(s, uid, "bob", "B")
        set_label(s, uid, "cy", "B")
        set_label(s, uid, "ann", "tie")
    set_label(s, units[3][0], "ann", "neither")  # before the reveal: not anchoring
    for i in range(4):
        mark_revealed(s, units[i][1], "ann")
    set_label(s, units[0][0], "ann", "A")  # toward the judge
    set_label(s, units[1][0], "ann", "B")  # toward bob and cy
    set_label(s, units[2][0], "ann", "neither")  # elsewhere
    set_label(s, units[3][0], "ann", "neither")  # the same value again: no change
    s.close()
    return path


def test_changes_are_counted_by_direction(anchored: Path) -> None:
    from medjudge.store.study import Study

    s = Study.open(anchored)
    rows = {r["reviewer"]: r for r in as_json(anchoring(s))}
    s.close()
    ann = rows["ann"]
    assert ann["n_labels"] == 4
    assert ann["changed"]["count"] == 3
    assert ann["toward_judge"]["count"] == 1 and ann["toward_judge"]["n"] == 3
    assert ann["toward_reviewers"]["count"] == 1
    assert ann["elsewhere"]["count"] == 1
    assert ann["toward_judge"]["value"] == pytest.approx(1 / 3)
    low, high = ann["toward_judge"]["ci_low"], ann["toward_judge"]["ci_high"]
    assert 0 < low < 1 / 3 < high < 1
    assert rows["bob"]["changed"]["count"] == 0 and rows["bob"]["toward_judge"]["value"] is None
    assert rows[ALL]["changed"]["count"] == 3


def test_report_shows_anchoring_in_every_format(anchored: Path) -> None:
    cli = CliRunner()
    data = json.loads(cli.invoke(app, ["report", str(anchored), "-f", "json"]).stdout)
    assert [r["reviewer"] for r in data["anchoring"]] == ["ann", "bob", "cy", ALL]
    md = cli.invoke(app, ["report", str(anchored), "-f", "md"]).stdout
    assert "## Anchoring" in md and "toward a judge" in md
    html = cli.invoke(app, ["report", str(anchored), "-f", "html"]).stdout
    assert "toward a judge" in html or "Toward judge" in html
