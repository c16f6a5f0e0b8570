"""Gold items: an import may give an item's expected value; the report gives each rater's
accuracy on gold with a Wilson interval; the review screen never marks them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.gold import gold_values
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, statements_row, write_jsonl

cli = CliRunner()


def _unit(s: Study, ext_id: str, criterion: str, position: int | None = None) -> int:
    row = s.conn.execute(
        "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id "
        "LEFT JOIN statements st ON st.id = u.statement_id "
        "WHERE i.ext_id = ? AND u.criterion = ? AND st.position IS ?",
        (ext_id, criterion, position),
    ).fetchone()
    return int(row[0])


@pytest.fixture
def gold_study(tmp_path: Path) -> Path:
    path = tmp_path / "g.db"
    s = Study.create(path, actor="t")
    rows = [pairwise_row(i, gold={"correctness": "response_a" if i % 2 else "B"}) for i in range(6)]
    rows.append(pairwise_row(6))  # not gold
    import_file(s, write_jsonl(tmp_path / "p.jsonl", rows), "pairwise", actor="t")
    srow = statements_row(0, gold={"entailment": ["entailed", None, "contradicted"]})
    import_file(s, write_jsonl(tmp_path / "s.jsonl", [srow]), "statements", actor="t")
    for i in range(7):
        u = _unit(s, f"p{i}", "correctness")
        set_label(s, u, "ann", "A" if i % 2 else "B")  # always right
        set_label(s, u, "bob", "A" if i < 3 else "tie")  # right on p1 only... and p0? no
    write_verdicts(
        s,
        "openai:j",
        {},
        [NewVerdict(_unit(s, f"p{i}", "correctness"), "B", "r", {}) for i in range(6)],
        run_id=None,
        actor="t",
    )
    set_label(s, _unit(s, "s0", "entailment", 0), "ann", "entailed")
    set_label(s, _unit(s, "s0", "entailment", 2), "ann", "neutral")
    s.close()
    return path


def test_gold_values_map_to_units(gold_study: Path) -> None:
    s = Study.open(gold_study)
    gold = gold_values(s)
    assert len(gold) == 8  # 6 pairwise + 2 of 3 statements
    assert gold[_unit(s, "p1", "correctness")] == "A", "import spellings are canonicalised"
    assert gold[_unit(s, "s0", "entailment", 2)] == "contradicted"
    assert _unit(s, "s0", "entailment", 1) not in gold
    s.close()


def test_report_gives_each_raters_accuracy_on_gold(gold_study: Path) -> None:
    report = json.loads(cli.invoke(app, ["report", str(gold_study), "-f", "json"]).stdout)
    rows = {(r["rater"], r["criterion"]): r for r in report["gold"]}
    ann = rows[("ann", "correctness")]
    assert (ann["n"], ann["correct"]) == (6, 6) and ann["accuracy"]["value"] == 1.0
    assert ann["accuracy"]["ci_low"] < 1.0, "a Wilson interval, not [1, 1]"
    bob = rows[("bob", "correctness")]
    # bob says A on p0..p2 (gold B, A, B) and tie on p3..p5: right only on p1
    assert (bob["n"], bob["correct"]) == (6, 1)
    judge = rows[("openai:j", "correctness")]
    assert judge["rater_kind"] == "judge" and (judge["n"], judge["correct"]) == (6, 3)
    ent = rows[("ann", "entailment")]
    assert (ent["n"], ent["correct"]) == (2, 1)
    md = cli.invoke(app, ["report", str(gold_study), "-f", "md"]).stdout
    assert "## Gold items" in md


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        ("A", "expected an object"),
        ({"entailment": "A"}, "does not apply to pairwise items"),
        ({"correctness": "maybe"}, "is not a pairwise verdict"),
    ],
)
def test_bad_gold_names_the_field(tmp_path: Path, gold: object, message: str) -> None:
    s = Study.create(tmp_path / "b.db", actor="t")
    path = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(0), pairwise_row(1, gold=gold)])
    with pytest.raises(ImportProblem) as exc:
        import_file(s, path, "pairwise", actor="t")
    assert "line 2" in str(exc.value) and "gold" in str(exc.value) and message in str(exc.value)
    s.close()


def test_statement_gold_needs_one_value_per_statement(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "b.db", actor="t")
    path = write_jsonl(tmp_path / "s.jsonl", [statements_row(0, gold={"entailment": ["entailed"]})])
    with pytest.raises(ImportProblem, match="list of 3 values"):
        import_file(s, path, "statements", actor="t")
    s.close()


def test_the_review_screen_does_not_mark_a_gold_item(tmp_path: Path) -> None:
    """The same item with and without gold looks the same to the reviewer."""
    from medjudge.tui.app import make_app

    from .support.tui import run_async, screen_text, until

    texts = []
    for gold in ({"correctness": "A"}, None):
        folder = tmp_path / ("gold" if gold else "plain")
        folder.mkdir()
        settings = StudySettings(name="g", allow_reviewer_override=True)
        s = Study.create(folder / "x.db", settings, actor="t")
        row = pairwise_row(0, gold=gold) if gold else pairwise_row(0)
        import_file(s, write_jsonl(folder / "p.jsonl", [row]), "pairwise", actor="t")
        s.close()

        @run_async
        async def look(path: Path = folder / "x.db") -> None:
            app = make_app(path, reviewer="alice", poll_interval=None)
            async with app.run_test(size=(100, 40)) as pilot:
                # the panes and the footer rendered (a loaded machine takes longer)
                done = lambda: "Question 0?" in (t := screen_text(app)) and "v Read" in t  # noqa: E731
                await until(pilot, done, "the item and the footer")
                texts.append(screen_text(app))

        look()
    assert "Question 0?" in texts[0] and "gold" not in texts[0].lower()
    assert texts[0] == texts[1]
