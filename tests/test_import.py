"""Importers: every format, idempotence, and all-or-nothing failures that name file, line, field."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items
from medjudge.store.label_reads import history
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, statements_row, write_jsonl
from .support.paths import KQA, needs_kqa


def snapshot(study: Study) -> bytes:
    """The study file's bytes with every connection closed (checkpointed)."""
    path = study.path
    study.close()
    return path.read_bytes()


def test_pairwise_jsonl_with_context_and_labels(study: Study, tmp_path: Path) -> None:
    rows = [
        pairwise_row(
            1,
            context=["passage one", "passage two"],
            batch="b1",
            labels=[
                {"rater": "dr_a", "criterion": "correctness", "value": "response_a"},
                {
                    "rater": "dr_a",
                    "criterion": "harmfulness",
                    "value": "Neither",
                    "note": "both fine",
                },
                {"rater": "gpt4-judge", "type": "judge", "criterion": "correctness", "value": "B"},
            ],
        ),
        pairwise_row(2, human_labels={"dr_b": {"correctness": "tie"}}),
    ]
    summary = import_file(study, write_jsonl(tmp_path / "in.jsonl", rows), "pairwise", actor="t")
    assert (summary.items_added, summary.labels_added) == (2, 4)
    item = get_item(study, list_items(study)[0].id)
    assert item.context == ["passage one", "passage two"]
    assert item.batch == "b1"
    assert item.answers["A"].source == "model-x"
    assert [u.criterion for u in item.units] == [
        "correctness",
        "helpfulness",
        "harmfulness",
        "reasoning",
        "efficiency",
        "bias",
    ]
    values = {(r["rater"], r["new_value"]) for r in history(study)}
    assert values == {("dr_a", "A"), ("dr_a", "neither"), ("gpt4-judge", "B"), ("dr_b", "tie")}
    kinds = {r["name"]: r["kind"] for r in study.raters()}
    assert kinds == {"dr_a": "human", "dr_b": "human", "gpt4-judge": "judge"}
    # external judge labels come with a verdict row whose trail says where they came from
    trail = json.loads(study.conn.execute("SELECT trail FROM verdicts").fetchone()[0])
    assert trail["source"] == "import" and trail["line"] == 1


def test_pairwise_csv_with_label_columns(study: Study, tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "id",
                "question",
                "answer_a",
                "answer_b",
                "source_a",
                "source_b",
                "context",
                "human:dr_a:correctness",
            ]
        )
        w.writerow(
            ["c1", "Q?", "multi\nline answer", "B", "m1", "m2", '["p1", "p2"]', "response_b"]
        )
        w.writerow(["c2", "Q2?", "A", "B", "m1", "m2", "", ""])
    summary = import_file(study, path, "pairwise", actor="t")
    assert (summary.items_added, summary.labels_added) == (2, 1)
    item = get_item(study, list_items(study)[0].id)
    assert item.answers["A"].text == "multi\nline answer"
    assert item.context == ["p1", "p2"]


def test_custom_criterion_study(tmp_path: Path) -> None:
    from medjudge.store.settings import DEFAULT_CRITERIA, StudySettings, parse_criterion_option

    settings = StudySettings(
        criteria=[parse_criterion_option("overall:benefit")]
        + [c for c in DEFAULT_CRITERIA if c.kind != "pairwise"]
    )
    s = Study.create(tmp_path / "o.db", settings)
    rows = [pairwise_row(1, human_labels={"dr": {"overall": "a"}})]
    import_file(s, write_jsonl(tmp_path / "o.jsonl", rows), "pairwise", actor="t")
    assert [u.criterion for u in get_item(s, 1).units] == ["overall"]
    bad = [pairwise_row(2, human_labels={"dr": {"correctness": "a"}})]
    with pytest.raises(ImportProblem, match="unknown criterion 'correctness'"):
        import_file(s, write_jsonl(tmp_path / "o2.jsonl", bad), "pairwise", actor="t")
    s.close()


def test_statements_and_rating(study: Study, tmp_path: Path) -> None:
    rows = [
        statements_row(1, labels=[{"rater": "dr", "statement": 2, "value": "contradiction"}]),
        {
            "id": "s2",
            "question": "Q",
            "answer": "A",
            "source": "m",
            "statements": [
                {"text": "x", "category": "must-have"},
                {"text": "y", "category": "nice_to_have"},
            ],
        },
    ]
    s = import_file(study, write_jsonl(tmp_path / "s.jsonl", rows), "statements", actor="t")
    assert (s.items_added, s.statements_added, s.labels_added) == (2, 5, 1)
    item = get_item(study, list_items(study, kind="statements")[0].id)
    assert [st.category for st in item.statements] == ["must_have", "must_have", "nice_to_have"]
    assert len(item.units) == 3 and all(u.statement_id for u in item.units)
    rating = [
        {
            "id": "r1",
            "question": "Case...",
            "options": {"A": "x", "B": "y", "C": "z"},
            "correct": "B",
            "explanation": "Because.",
            "source": "m",
            "labels": [
                {"rater": "dr", "criterion": "relevance", "value": 4},
                {"rater": "dr", "criterion": "completeness", "value": ["C", "A"]},
            ],
        }
    ]
    r = import_file(study, write_jsonl(tmp_path / "r.jsonl", rating), "rating", actor="t")
    assert r.labels_added == 2
    vals = {row["new_value"] for row in history(study, rater="dr")}
    assert {"4", "A,C", "contradicted"} <= vals


def test_reimport_is_idempotent_and_conflicts_are_errors(study: Study, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [pairwise_row(i) for i in range(3)])
    import_file(study, path, "pairwise", actor="t")
    again = import_file(study, path, "pairwise", actor="t")
    assert (again.items_added, again.items_unchanged) == (0, 3)
    assert study.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 3
    changed = write_jsonl(tmp_path / "changed.jsonl", [pairwise_row(1, answer_b="Different.")])
    with pytest.raises(ImportProblem) as info:
        import_file(study, changed, "pairwise", actor="t")
    assert "changed.jsonl, line 1, field 'id'" in str(info.value)
    assert "already exists" in str(info.value)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("bad_json_line_7", "bad.jsonl, line 7: not valid JSON"),
        ("missing_field", "bad.jsonl, line 3, field 'answer_b': missing"),
        ("duplicate_id", "bad.jsonl, line 4, field 'id': duplicate id 'p1' (first on line 2)"),
        ("wrong_type", "bad.jsonl, line 2, field 'question': expected text, got a number"),
        ("bad_label", "bad.jsonl, line 1, field 'labels[0].value'"),
        ("bad_utf8", "bad.jsonl, line 2: is not valid UTF-8"),
    ],
)
def test_bad_input_names_file_line_field_and_changes_nothing(
    pairwise_study: Study, tmp_path: Path, content: str, expected: str
) -> None:
    good = [json.dumps(pairwise_row(i + 100)) for i in range(8)]
    lines = list(good)
    if content == "bad_json_line_7":
        lines[6] = '{"id": "x", "question": '
    elif content == "missing_field":
        row = pairwise_row(102)
        del row["answer_b"]
        lines[2] = json.dumps(row)
    elif content == "duplicate_id":
        lines[1] = json.dumps(pairwise_row(1))
        lines[3] = json.dumps(pairwise_row(1))
    elif content == "wrong_type":
        lines[1] = json.dumps(pairwise_row(101, question=42))
    elif content == "bad_label":
        lines[0] = json.dumps(
            pairwise_row(100, labels=[{"rater": "d", "criterion": "correctness", "value": "maybe"}])
        )
    path = tmp_path / "bad.jsonl"
    data = ("\n".join(lines) + "\n").encode()
    if content == "bad_utf8":
        data = data.replace(b"Question 101?", b"Question \xff101?")
    path.write_bytes(data)
    study_path = pairwise_study.path
    with pytest.raises(ImportProblem) as info:
        import_file(pairwise_study, path, "pairwise", actor="t")
    assert expected in str(info.value)
    before_bytes = snapshot(pairwise_study)
    # The same import through a fresh handle must leave the file byte-for-byte unchanged.
    s = Study.open(study_path)
    with pytest.raises(ImportProblem):
        import_file(s, path, "pairwise", actor="t")
    s.close()
    assert study_path.read_bytes() == before_bytes


def test_failed_write_rolls_back_everything(pairwise_study: Study, tmp_path: Path) -> None:
    """A conflict found late (a label clash on the 3rd item) must not leave items 1–2 behind."""
    from medjudge.store.labels import set_label

    unit = get_item(pairwise_study, 1).unit_for("correctness").id
    set_label(pairwise_study, unit, "dr_a", "A")
    rows = [
        pairwise_row(50),
        pairwise_row(51),
        pairwise_row(0, human_labels={"dr_a": {"correctness": "B"}}),
    ]
    path = write_jsonl(tmp_path / "late.jsonl", rows)
    before = pairwise_study.conn.execute("SELECT count(*) FROM items").fetchone()[0]
    with pytest.raises(ImportProblem, match="late.jsonl, line 3, field 'labels'"):
        import_file(pairwise_study, path, "pairwise", actor="t")
    assert pairwise_study.conn.execute("SELECT count(*) FROM items").fetchone()[0] == before


def test_display_order_is_seeded_stored_and_mixed(study: Study, tmp_path: Path) -> None:
    import_file(
        study,
        write_jsonl(tmp_path / "in.jsonl", [pairwise_row(i) for i in range(40)]),
        "pairwise",
        actor="t",
    )
    orders = [r[0] for r in study.conn.execute("SELECT shown_order FROM items ORDER BY id")]
    assert set(orders) == {"AB", "BA"} and 5 < orders.count("BA") < 35  # randomised
    other = Study.create(tmp_path / "other.db")
    import_file(other, tmp_path / "in.jsonl", "pairwise", actor="t")
    assert [r[0] for r in other.conn.execute("SELECT shown_order FROM items ORDER BY id")] == orders
    other.close()


@needs_kqa()
def test_kqa_real_file(study: Study, tmp_path: Path) -> None:
    refs = [json.loads(line) for line in KQA.read_text(encoding="utf-8").splitlines()]
    answers = tmp_path / "answers.json"
    # K-QA's result format; leave two questions unanswered
    answers.write_text(
        json.dumps(
            [
                {"Question": r["Question"], "result": "" if i in (5, 9) else f"Model answer {i}."}
                for i, r in enumerate(refs)
            ],
            indent=2,
        ),
        encoding="utf-8",
    )
    s = import_file(study, KQA, "kqa", actor="t", answers=answers, source="gpt-4")
    assert s.items_added == 199
    full = tmp_path / "full.json"
    full.write_text(json.dumps([{"Question": r["Question"], "result": "x"} for r in refs]))
    other = Study.create(tmp_path / "k2.db")
    s2 = import_file(other, KQA, "kqa", actor="t", answers=full, source="gpt-4")
    assert s2.statements_added == 1589
    must = other.conn.execute(
        "SELECT count(*) FROM statements WHERE category = 'must_have'"
    ).fetchone()[0]
    assert must == sum(len(r["Must_have"]) for r in refs)
    assert (
        other.conn.execute(
            "SELECT value FROM study_settings WHERE key = 'kqa_questions'"
        ).fetchone()[0]
        == "201"
    )
    other.close()
    bad = tmp_path / "bad.json"
    bad.write_text('[\n  {"Question": "not a K-QA question", "result": "x"}\n]')
    with pytest.raises(ImportProblem, match=r"bad.json, line 2, field 'Question'"):
        import_file(study, KQA, "kqa", actor="t", answers=bad, source="gpt-4")


def test_a_jsonl_import_streams_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSONL file is read a line at a time and hashed in blocks: the import never holds the
    whole file (Path.read_bytes is refused), and the recorded SHA-256 is the file's."""
    import hashlib

    from tests.support.kind_rows import pairwise_row, write_jsonl

    src = write_jsonl(tmp_path / "pw.jsonl", [pairwise_row(i) for i in range(50)])
    src.write_bytes(b"\xef\xbb\xbf" + src.read_bytes().replace(b"\n", b"\r\n"))  # BOM, CRLF
    study = Study.create(tmp_path / "s.db")

    def whole_file(self: Path) -> bytes:
        raise AssertionError(f"{self} was read as a whole")

    monkeypatch.setattr(Path, "read_bytes", whole_file)
    summary = import_file(study, src, "pairwise", actor="t")
    monkeypatch.undo()
    assert summary.items_added == 50
    assert [r.ext_id for r in list_items(study)] == [f"p{i}" for i in range(50)]
    (sha,) = study.conn.execute("SELECT sha256 FROM imports").fetchone()
    assert sha == hashlib.sha256(src.read_bytes()).hexdigest()


def test_bad_utf8_late_in_a_streamed_file_names_its_line(tmp_path: Path) -> None:
    from tests.support.kind_rows import pairwise_row, write_jsonl

    src = write_jsonl(tmp_path / "pw.jsonl", [pairwise_row(i) for i in range(5)])
    src.write_bytes(src.read_bytes() + b'{"id": "x\xff"}\n')
    study = Study.create(tmp_path / "s.db")
    with pytest.raises(ImportProblem) as info:
        import_file(study, src, "pairwise", actor="t")
    assert info.value.line == 6 and "not valid UTF-8" in str(info.value)
    assert list_items(study) == []  # nothing stored


def test_items_are_stored_one_at_a_time_and_a_late_problem_stores_nothing(
    tmp_path: Path,
) -> None:
    """The importer consumes parsed items as they come (each is written before the next one is
    parsed, so memory stays flat however long the file), and a problem in the last record
    still leaves the study as it was."""
    from collections.abc import Iterator

    from medjudge.store.importing.kinds import parse_all
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.readers import read_records
    from medjudge.store.importing.writer import store_items
    from tests.support.kind_rows import pairwise_row, write_jsonl

    study = Study.create(tmp_path / "s.db")
    src = write_jsonl(tmp_path / "pw.jsonl", [pairwise_row(i) for i in range(20)])
    stored_before: list[int] = []

    def watched() -> Iterator[ItemIn]:
        for item in parse_all(read_records(src), "pairwise", study.settings, None):
            stored_before.append(study.conn.execute("SELECT count(*) FROM items").fetchone()[0])
            yield item

    store_items(study, watched(), file=src, kind="pairwise", actor="t")
    assert stored_before == list(range(20))  # item k is parsed after k items are written

    bad = write_jsonl(
        tmp_path / "bad.jsonl", [pairwise_row(i + 100) for i in range(30)] + [{"id": "x"}]
    )
    with pytest.raises(ImportProblem) as info:
        import_file(study, bad, "pairwise", actor="t")
    assert info.value.line == 31
    assert len(list_items(study)) == 20  # none of the 30 good items of the failed file
