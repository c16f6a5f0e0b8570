"""The fifth kind, ``rubric`` (HealthBench-style rubrics): import, judge plan and voting,
scores per source and per tag in the report, the hidden-points setting, and an older study
taking rubric items after the schema stopped listing kinds."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge import kinds
from medjudge.cli import app
from medjudge.judging.llm.specs import parse_judge_spec as parse_spec
from medjudge.judging.protocol.plan import JudgeConfig, plan_item
from medjudge.judging.protocol.resolve import Outcome, resolve_item
from medjudge.kinds.rubric import score
from medjudge.store.items import get_item, list_items
from medjudge.store.study import Study

from .support.checks import some
from .support.kind_rows import write_jsonl
from .support.rubric import MARKS, RUBRIC, SOURCES, rubric_item

cli = CliRunner()


def _study(tmp_path: Path) -> Path:
    db = tmp_path / "rubric.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    src = write_jsonl(tmp_path / "rubric.jsonl", [rubric_item(e) for e in MARKS])
    r = cli.invoke(app, ["import", str(db), str(src), "--kind", "rubric"])
    assert r.exit_code == 0, r.output
    return db


def _expected(marks: list[str], keep: str | None = None) -> float | None:
    return score(
        [
            (m, e["points"])
            for m, e in zip(marks, RUBRIC, strict=True)
            if keep is None or keep in e["tags"]
        ]
    )


def test_score_is_met_points_over_positive_points_clipped() -> None:
    assert score([("met", 8), ("met", 4), ("not_met", -6)]) == 1.0
    assert score([("met", 8), ("not_met", 4), ("met", -6)]) == pytest.approx(2 / 12)
    assert score([("not_met", 8), ("met", -6)]) == 0.0  # clipped, not negative
    assert score([("met", -6)]) is None  # no positive criterion: no score


def test_a_rubric_study_imports_and_reports_scores_per_source_and_tag(tmp_path: Path) -> None:
    db = _study(tmp_path)
    with Study.open(db) as s:
        (first, *_) = list_items(s, kind="rubric")
        item = get_item(s, first.id)
        assert item.question.startswith("user: I was stung")
        assert "assistant: Do you carry" in item.question
        assert [st.text for st in item.statements] == [e["criterion"] for e in RUBRIC]
        assert item.data["rubric"][2] == {"points": -6, "tags": ["accuracy"]}
    r = cli.invoke(app, ["report", str(db), "--format", "json"])
    assert r.exit_code == 0, r.output
    section = json.loads(r.output)["rubric"]
    assert section["answers"] == 4 and section["criteria"] == 12
    by_rater = {rr["rater"]: rr for rr in section["raters"]}
    reference = "reference (adjudicated, else majority)"
    assert set(by_rater) == {"drA", "drB", "majority of reviewers", reference, "ext-judge"}
    assert [by_rater[r]["role"] for r in ("drA", reference, "ext-judge")] == [
        "physician",
        "reference",
        "judge",
    ]
    for rater, which in (("majority of reviewers", 0), ("drA", 0), ("ext-judge", 1)):
        rr = by_rater[rater]
        scores = {e: _expected(MARKS[e][which]) for e in MARKS}
        assert rr["scored"] == 4
        assert rr["overall"]["value"] == pytest.approx(sum(some(v) for v in scores.values()) / 4)
        for src in ("model-x", "model-y"):
            mine = [v for e, v in scores.items() if SOURCES[e] == src]
            (fig,) = [f for f in rr["by_source"] if f["key"] == src]
            assert fig["value"] == pytest.approx(sum(mine) / len(mine))  # type: ignore[arg-type]
            assert fig["n"] == 2
        for tag in ("accuracy", "completeness"):
            tagged = [t for e in MARKS if (t := _expected(MARKS[e][which], tag)) is not None]
            (fig,) = [f for f in rr["by_tag"] if f["key"] == tag]
            assert fig["value"] == pytest.approx(sum(tagged) / len(tagged))
    md = cli.invoke(app, ["report", str(db), "--format", "md"]).output
    assert "## Rubric scores" in md and "4 answers, 12 rubric criteria." in md
    csv_text = cli.invoke(app, ["report", str(db), "--format", "csv"]).output
    assert "rubric,rubric,tag=accuracy,ext-judge" in csv_text
    html = cli.invoke(app, ["report", str(db), "--format", "html"]).output
    section_html = html[html.index('<section id="rubric">') :]
    section_html = section_html[: section_html.index("</section>")]
    assert "<h2>Rubric scores</h2>" in section_html
    assert "completeness" in section_html and "model-y" in section_html


def test_an_answer_is_scored_only_when_every_criterion_is_marked(tmp_path: Path) -> None:
    db = tmp_path / "partial.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    row = rubric_item("r1")
    row["labels"] = [lab for lab in row["labels"] if lab["rubric"] != 1]  # one criterion unmarked
    src = write_jsonl(tmp_path / "p.jsonl", [row, rubric_item("r2")])
    assert cli.invoke(app, ["import", str(db), str(src), "--kind", "rubric"]).exit_code == 0
    section = json.loads(cli.invoke(app, ["report", str(db), "--format", "json"]).output)["rubric"]
    rr = next(r for r in section["raters"] if r["rater"] == "majority of reviewers")
    assert (rr["scored"], rr["answers"]) == (1, 2)
    assert rr["overall"]["value"] == pytest.approx(_expected(MARKS["r2"][0]))


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"rubric": []}, "rubric", "at least one rubric criterion"),
        ({"rubric": [{"criterion": "x", "points": 0}]}, "rubric[0].points", "other than 0"),
        ({"rubric": [{"criterion": "x", "points": True}]}, "rubric[0].points", "other than 0"),
        # 1e308 twice overflows the sum to infinity: a score of 1.00 was reported as 0.00
        ({"rubric": [{"criterion": "x", "points": 1e308}]}, "rubric[0].points", "and 1,000"),
        ({"rubric": [{"criterion": "x", "points": -1001}]}, "rubric[0].points", "-1,000 and"),
        ({"rubric": [{"criterion": " ", "points": 3}]}, "rubric[0].criterion", "needs a text"),
        ({"rubric": [{"criterion": "x", "points": 3, "tags": "a"}]}, "rubric[0].tags", "list"),
        (
            {"question": None, "conversation": [{"role": "doctor", "content": "hi"}]},
            "conversation[0].role",
            "role must be one of",
        ),
        ({"question": None}, "question", "needs a question or a conversation"),
    ],
)
def test_bad_rubric_records_are_refused_naming_the_field(
    tmp_path: Path, change: dict[str, Any], field: str, words: str
) -> None:
    db = tmp_path / "bad.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    row = {**rubric_item("r1"), **change, "labels": []}
    row = {k: v for k, v in row.items() if v is not None}
    src = write_jsonl(tmp_path / "bad.jsonl", [row])
    r = cli.invoke(app, ["import", str(db), str(src), "--kind", "rubric"])
    assert r.exit_code != 0
    assert f"line 1, field '{field}'" in r.output and words in r.output, r.output
    assert "Traceback" not in r.output
    with Study.open(db) as s:
        assert list_items(s) == []


def test_a_judge_asks_once_per_criterion_and_sample_and_settles_a_split_conservatively(
    tmp_path: Path,
) -> None:
    db = _study(tmp_path)
    judge = JudgeConfig(parse_spec("openai:gpt-4o"), samples=2)
    with Study.open(db) as s:
        item = get_item(s, list_items(s, kind="rubric")[1].id)
        calls = plan_item(item, judge, s.settings)
        assert len(calls) == 3 * 2
        assert {c.template.name for c in calls} == {"rubric_v1"}
        assert {c.task for c in calls} == {f"rubric/{st.id}" for st in item.statements}
        assert "Recommends antihistamines alone." in calls[-1].user and "-6" in calls[-1].user
        # samples split 1–1 on every criterion: positive → not met, negative → met
        outcomes = {
            c.key: Outcome(
                "ok", {"criteria_met": "met" if c.sample == 0 else "not_met", "reason": ""}
            )
            for c in calls
        }
        verdicts = resolve_item(item, calls, outcomes, s.settings)
        assert [v.value for v in verdicts] == ["not_met", "not_met", "met"]
        assert {v.trail["rule"] for v in verdicts} == {"no-majority→least credit"}
        # no sample: missing, never a mark
        missing = resolve_item(item, calls, {}, s.settings)
        assert {v.value for v in missing} == {None}


def test_a_judges_version_key_does_not_change_with_the_rubric_prompt() -> None:
    """A judge of an older study keeps its version: the bundled rubric template is no part of
    its key (a custom one is)."""
    judge = JudgeConfig(parse_spec("openai:gpt-4o"))
    assert "rubric" not in judge.templates()
    assert set(judge.templates()) == {"pairwise", "nli", "rating", "match"}


def test_reply_reads_healthbench_grader_json() -> None:
    from medjudge.judging.llm.calls import parse_text

    judge = JudgeConfig(parse_spec("openai:gpt-4o"), samples=1)
    kind = kinds.get("rubric")
    (ask,) = kind.judge_asks(
        type(
            "I",
            (),
            {
                "question": "q",
                "context": [],
                "data": {"rubric": [{"points": 5, "tags": []}]},
                "answers": {"answer": type("A", (), {"text": "a"})()},
                "statements": [type("S", (), {"id": 7, "position": 1, "text": "c"})()],
            },
        )(),
        [],
        judge.statements_protocol,
    )
    got = parse_text(
        "rubric", ask.reply, '```json\n{"explanation": "ok", "criteria_met": true}\n```'
    )
    assert got == {"criteria_met": "met", "reason": "ok"}
    with pytest.raises(ValueError, match="criteria_met 'maybe' is not true or false"):
        parse_text("rubric", ask.reply, '{"criteria_met": "maybe"}')


def test_a_study_made_before_the_schema_opened_its_kinds_takes_rubric_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.store import migrations
    from medjudge.store.migrations import applied

    path = tmp_path / "old.db"
    before = [m for m in migrations.MIGRATIONS if m[0] != "010_open_kinds"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    Study.create(path, actor="tester").close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        conn.execute(
            "INSERT INTO items (ext_id, kind, question, content_hash, created_at) "
            "VALUES ('x', 'rubric', 'q', 'h', 'now')"
        )
    conn.close()
    monkeypatch.undo()
    with Study.open(path) as s:
        assert "010_open_kinds" in applied(s.conn)
    src = write_jsonl(tmp_path / "r.jsonl", [rubric_item("r1")])
    r = cli.invoke(app, ["import", str(path), str(src), "--kind", "rubric"])
    assert r.exit_code == 0, r.output
    with Study.open(path) as s:
        assert [i.kind for i in list_items(s)] == ["rubric"]
        assert "rubric" in [c.name for c in s.settings.criteria]


def test_every_rater_s_score_when_two_physicians_disagree_on_a_criterion(tmp_path: Path) -> None:
    """drB marks r1's first criterion not met where drA says met: there is no majority on it,
    so the majority scores three answers; each physician still scores all four, the
    adjudicated reference all four once the lead settles the criterion, and the grading
    table gives the judge's macro F1 beside the physician pair's (by hand)."""
    db = tmp_path / "split.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    rows = [rubric_item(e) for e in MARKS]
    drb = MARKS["r1"][0].copy()
    drb[0] = "not_met"
    for lab in rows[1]["labels"]:
        if lab["rater"] == "drB":
            lab["value"] = drb[lab["rubric"]]
    src = write_jsonl(tmp_path / "split.jsonl", rows)
    assert cli.invoke(app, ["import", str(db), str(src), "--kind", "rubric"]).exit_code == 0

    def section() -> dict[str, Any]:
        r = cli.invoke(app, ["report", str(db), "--format", "json"])
        assert r.exit_code == 0, r.output
        return dict(json.loads(r.output)["rubric"])

    got = {rr["rater"]: rr for rr in section()["raters"]}
    agreed = {e: some(_expected(MARKS[e][0])) for e in MARKS}
    # drA marks as the table; drB differs on r1's first criterion (8 points, not met)
    dr_b = {**agreed, "r1": some(_expected(drb))}
    assert got["drA"]["scored"] == got["drB"]["scored"] == 4
    assert got["drA"]["overall"]["value"] == pytest.approx(sum(agreed.values()) / 4)
    assert got["drB"]["overall"]["value"] == pytest.approx(sum(dr_b.values()) / 4)
    assert got["majority of reviewers"]["scored"] == 3
    without_r1 = [v for e, v in agreed.items() if e != "r1"]
    assert got["majority of reviewers"]["overall"]["value"] == pytest.approx(sum(without_r1) / 3)
    reference = "reference (adjudicated, else majority)"
    assert got[reference]["scored"] == 3
    # the judge against the reference: 11 criteria with a reference mark (r1's first has
    # none); the physicians against each other: 12 criteria, one disagreement
    grading = {g["tag"]: g for g in section()["graders"]}
    overall = grading["all"]
    assert overall["judge"] == "ext-judge"
    assert overall["macro_f1"]["n"] == 11
    ref = [m for e in MARKS for m in MARKS[e][0]]
    judged = [m for e in MARKS for m in MARKS[e][1]]
    keep = [k for k in range(12) if k != 3]  # r1's first criterion
    want = _macro_f1([ref[k] for k in keep], [judged[k] for k in keep])
    assert overall["macro_f1"]["value"] == pytest.approx(want)
    (pair,) = overall["physician_pairs"]
    assert (pair["rater_a"], pair["rater_b"], pair["macro_f1"]["n"]) == ("drA", "drB", 12)
    drb_all = ref.copy()
    drb_all[3] = "not_met"
    assert pair["macro_f1"]["value"] == pytest.approx(_macro_f1(ref, drb_all))
    assert {g["tag"] for g in section()["graders"]} == {"all", "accuracy", "completeness"}
    md = cli.invoke(app, ["report", str(db), "--format", "md"]).output
    assert "| Grader | Against | Tag | Criteria | Macro F1 [95% CI] |" in md
    assert "| ext-judge | reference | all | 11 |" in md
    csv_text = cli.invoke(app, ["report", str(db), "--format", "csv"]).output
    assert "rubric_grading,rubric,all,ext-judge,reference,macro_f1," in csv_text
    assert "rubric_grading,rubric,tag=accuracy,drB,drA,macro_f1," in csv_text


def _macro_f1(truth: list[str], guess: list[str]) -> float:
    """Macro F1 over met / not met, by hand."""
    f1s = []
    for c in ("met", "not_met"):
        tp = sum(t == c and g == c for t, g in zip(truth, guess, strict=True))
        fp = sum(t != c and g == c for t, g in zip(truth, guess, strict=True))
        fn = sum(t == c and g != c for t, g in zip(truth, guess, strict=True))
        f1s.append(2 * tp / (2 * tp + fp + fn))
    return sum(f1s) / 2
