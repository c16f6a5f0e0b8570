"""What the labels say about the models: K-QA metrics, win rates and rating means, by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medjudge.judging.analysis.kqa import kqa_metrics
from medjudge.judging.analysis.metrics import RISK_NOTE, rating_means, win_rates
from medjudge.judging.analysis.study_data import MAJORITY, load_study_data
from medjudge.store.importing.run import import_file
from medjudge.store.items import find_item, get_item
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl
from .support.studies import as_json

E, N, C = "entailed", "neutral", "contradicted"
JUDGE = "openai:gpt-4o-mini"

# K-QA reference: four questions. Statements are stored Must_have first, then Nice_to_have.
REFERENCE = [
    {
        "Question": "Q1?",
        "Free_form_answer": "F1",
        "Must_have": ["M1a", "M1b", "M1c"],
        "Nice_to_have": ["N1a"],
    },
    {
        "Question": "Q2?",
        "Free_form_answer": "F2",
        "Must_have": ["M2a", "M2b"],
        "Nice_to_have": ["N2a", "N2b"],
    },
    {
        "Question": "Q3?",
        "Free_form_answer": "F3",
        "Must_have": ["M3a", "M3b"],
        "Nice_to_have": ["N3a"],
    },
    {"Question": "Q4?", "Free_form_answer": "F4", "Must_have": ["M4a"], "Nice_to_have": []},
]
# model-x answered Q1 and Q2, model-y answered Q3; nobody answered Q4.
LABELS: dict[str, dict[str, list[str | None]]] = {
    #              Q1 (x): M M M N     Q2 (x): M M N N        Q3 (y): M M N
    "ann": {"x1": [E, E, N, C], "x2": [E, C, N, N], "y3": [E, E, N]},
    "bob": {"x1": [E, N, N, N], "x2": [E, E, C, C], "y3": [N, None, C]},
    "cy": {"x1": [E, E, N, N], "x2": [E, C, N, N], "y3": [None, None, None]},
    JUDGE: {"x1": [E, E, E, N], "x2": [N, N, N, N], "y3": [E, C, C]},
}


def _kqa_study(tmp_path: Path) -> Study:
    s = Study.create(tmp_path / "kqa.db", actor="t")
    ref = write_jsonl(tmp_path / "questions_w_answers.jsonl", REFERENCE)
    for source, questions in (("model-x", ["Q1?", "Q2?"]), ("model-y", ["Q3?"])):
        answers = tmp_path / f"{source}.json"
        answers.write_text(
            json.dumps([{"Question": q, "result": f"{source} on {q}"} for q in questions]),
            encoding="utf-8",
        )
        import_file(s, ref, "kqa", actor="t", answers=answers, source=source)
    items = {"x1": "kqa-001-model-x", "x2": "kqa-002-model-x", "y3": "kqa-003-model-y"}
    verdicts = []
    for rater, per_item in LABELS.items():
        for key, labels in per_item.items():
            item = get_item(s, find_item(s, items[key]) or 0)
            for st, value in zip(item.statements, labels, strict=True):
                unit = item.unit_for("entailment", st.id).id
                if value is None:
                    continue
                if rater == JUDGE:
                    verdicts.append(
                        NewVerdict(
                            unit,
                            value,
                            "r",
                            {
                                "protocol": "3-way NLI majority",
                                "votes": [value] * 3,
                                "verdict": value,
                                "samples_disagreed": False,
                                "failed": [],
                            },
                        )
                    )
                else:
                    set_label(s, unit, rater, value)
    write_verdicts(s, JUDGE, {"model": "gpt-4o-mini"}, verdicts, run_id=None, actor="t")
    return s


def _fig(report: dict[str, Any], rater: str, source: str) -> dict[str, Any]:
    rec = next(r for r in report["raters"] if r["rater"] == rater)
    result: dict[str, Any] = rec["by_source"][source]
    return result


def test_kqa_metrics_match_a_hand_computation(tmp_path: Path) -> None:
    s = _kqa_study(tmp_path)
    report = as_json(kqa_metrics(load_study_data(s), n_boot=200, seed=1))
    assert report is not None
    assert report["questions_all"] == 4  # recorded by the K-QA import
    assert [r["rater"] for r in report["raters"]] == [MAJORITY, "ann", "bob", "cy", JUDGE]

    # Hand computation. comprehensiveness = entailed Must_have / labelled Must_have;
    # hallucinations = contradicted statements (Must_have and Nice_to_have).
    #   ann:   x1 2/3, 1   x2 1/2, 1   y3 2/2, 0
    #   bob:   x1 1/3, 0   x2 2/2, 2   y3 0/1, 1   (one Must_have unlabelled)
    #   cy:    x1 2/3, 0   x2 1/2, 1   y3 nothing labelled
    #   judge: x1 3/3, 0   x2 0/2, 0   y3 1/2, 2
    #   majority (strict, of those who labelled each statement):
    #          x1 [E E N N] → 2/3, 0   x2 [E C N N] → 1/2, 1
    #          y3 [E|N: none, E (ann only), N|C: none] → 1/1, 0
    expected = {  # rater: source: (comp answered, hall answered, share ≥1 contradiction, n)
        MAJORITY: {"model-x": ((2 / 3 + 1 / 2) / 2, 0.5, 0.5, 2), "model-y": (1.0, 0.0, 0.0, 1)},
        "ann": {"model-x": ((2 / 3 + 1 / 2) / 2, 1.0, 1.0, 2), "model-y": (1.0, 0.0, 0.0, 1)},
        "bob": {"model-x": ((1 / 3 + 1) / 2, 1.0, 0.5, 2), "model-y": (0.0, 1.0, 1.0, 1)},
        "cy": {"model-x": ((2 / 3 + 1 / 2) / 2, 0.5, 0.5, 2)},
        JUDGE: {"model-x": (0.5, 0.0, 0.0, 2), "model-y": (0.5, 2.0, 1.0, 1)},
    }
    for rater, per_source in expected.items():
        for source, (comp, hall, share, n) in per_source.items():
            f = _fig(report, rater, source)
            assert f["comprehensiveness_answered"]["value"] == pytest.approx(comp), (rater, source)
            assert f["comprehensiveness_answered"]["n"] == n
            assert f["hallucinations_answered"]["value"] == pytest.approx(hall), (rater, source)
            assert f["contradiction_share"]["value"] == pytest.approx(share), (rater, source)
            # Over all 4 K-QA questions, unanswered ones count 0.
            assert f["questions_all"] == 4
            assert f["comprehensiveness_all"]["value"] == pytest.approx(comp * n / 4)
            assert f["hallucinations_all"]["value"] == pytest.approx(hall * n / 4)

    bob_y = _fig(report, "bob", "model-y")
    assert (bob_y["statements_labelled"], bob_y["statements"]) == (2, 3)  # coverage
    cy_y = _fig(report, "cy", "model-y")
    assert cy_y["answers_with_labels"] == 0
    assert cy_y["comprehensiveness_answered"]["value"] is None
    assert cy_y["comprehensiveness_answered"]["reason"] == "no answers with a figure"
    ann_x = _fig(report, "ann", "model-x")
    assert ann_x["comprehensiveness_answered"]["method"] == "bca_bootstrap"
    assert (
        ann_x["comprehensiveness_answered"]["ci_low"] - 1e-9
        <= 7 / 12
        <= ann_x["comprehensiveness_answered"]["ci_high"] + 1e-9
    )
    assert ann_x["comprehensiveness_answered"]["unstable"]  # a handful of answers

    per_answer = {(a["rater"], a["item"]): a for a in report["answers"]}
    bob_y3 = per_answer[("bob", "kqa-003-model-y")]
    assert (bob_y3["must_have"], bob_y3["must_labelled"], bob_y3["must_entailed"]) == (2, 1, 0)
    assert bob_y3["hallucinations"] == 1 and bob_y3["comprehensiveness"] == 0.0
    assert per_answer[("cy", "kqa-003-model-y")]["hallucinations"] is None


def test_kqa_without_kqa_import_divides_by_the_answers(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "st.db", actor="t")
    rows = [
        {
            "id": "a1",
            "question": "Q",
            "answer": "x",
            "source": "m",
            "must_have": ["p", "q"],
            "nice_to_have": ["r"],
        },
        {"id": "a2", "question": "Q2", "answer": "y", "source": "m", "must_have": ["s"]},
    ]
    import_file(s, write_jsonl(tmp_path / "st.jsonl", rows), "statements", actor="t")
    item = get_item(s, 1)
    for st, v in zip(item.statements, [E, C, C], strict=True):
        set_label(s, item.unit_for("entailment", st.id).id, "ann", v)
    f = _fig(as_json(kqa_metrics(load_study_data(s))) or {}, "ann", "m")
    assert f["questions_all"] == 2  # no K-QA import: the model's own answers
    assert f["comprehensiveness_answered"]["value"] == 0.5
    assert f["comprehensiveness_all"]["value"] == 0.25  # the unlabelled answer counts 0
    assert f["hallucinations_answered"]["value"] == 2.0


def test_win_rates_by_hand(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "w.db", actor="t")
    rows = [
        pairwise_row(1, source_a="gpt", source_b="llama"),
        pairwise_row(2, source_a="llama", source_b="gpt"),
        pairwise_row(3, source_a="gpt", source_b="llama"),
        pairwise_row(4, source_a="gpt", source_b="mistral"),
        pairwise_row(5, source_a="gpt", source_b="gpt"),
    ]
    import_file(s, write_jsonl(tmp_path / "w.jsonl", rows), "pairwise", actor="t")
    labels: dict[str, list[str | None]] = {
        "correctness": ["A", "A", "tie", "neither", "A"],
        "harmfulness": ["A", "B", "neither", "B", None],
    }
    for crit, values in labels.items():
        for item_id, value in enumerate(values, start=1):
            if value is not None:
                set_label(s, get_item(s, item_id).unit_for(crit).id, "ann", value)
    recs = {(r["criterion"], r["rater"]): r for r in as_json(win_rates(load_study_data(s)))}
    c = recs[("correctness", "ann")]
    assert c["same_source_skipped"] == 1
    # correctness (benefit): item 1 gpt wins, 2 llama wins, 3 tie, 4 neither (gpt, mistral).
    by = {x["source"]: x for x in c["sources"]}
    assert by["gpt"]["counts"] == {"win": 1, "tie": 1, "loss": 1, "neither": 1}
    assert by["llama"]["counts"] == {"win": 1, "tie": 1, "loss": 1, "neither": 0}
    assert by["mistral"]["counts"] == {"win": 0, "tie": 0, "loss": 0, "neither": 1}
    assert by["gpt"]["win"]["value"] == 0.25 and by["gpt"]["win"]["n"] == 4
    assert by["llama"]["loss"]["value"] == pytest.approx(1 / 3)
    # harmfulness (risk): the answer chosen as worse LOSES.
    h = recs[("harmfulness", "ann")]
    assert h["note"] == RISK_NOTE and "LOSES" in h["note"]
    by = {x["source"]: x for x in h["sources"]}
    # item 1: A=gpt worse → gpt loss, llama win; item 2: B=gpt worse → gpt loss, llama win;
    # item 3: neither; item 4: B=mistral worse → mistral loss, gpt win.
    assert by["gpt"]["counts"] == {"win": 1, "tie": 0, "loss": 2, "neither": 1}
    assert by["llama"]["counts"] == {"win": 2, "tie": 0, "loss": 0, "neither": 1}
    assert by["mistral"]["counts"] == {"win": 0, "tie": 0, "loss": 1, "neither": 0}


def test_rating_means_per_rater_and_model(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "r.db", actor="t")
    rows = [
        {
            "id": f"r{i}",
            "question": "case",
            "options": {"A": "a", "B": "b"},
            "correct": "A",
            "explanation": "e",
            "source": "m1" if i < 3 else "m2",
        }
        for i in range(5)
    ]
    import_file(s, write_jsonl(tmp_path / "r.jsonl", rows), "rating", actor="t")
    for item_id, value in zip(range(1, 6), ["5", "4", "3", "2", "2"], strict=True):
        set_label(s, get_item(s, item_id).unit_for("relevance").id, "ann", value)
    (rec,) = [r for r in as_json(rating_means(load_study_data(s))) if r["criterion"] == "relevance"]
    assert rec["scale"] == [1, 5] and rec["rater"] == "ann"
    assert rec["overall"]["value"] == pytest.approx(16 / 5) and rec["overall"]["n"] == 5
    by = {x["source"]: x for x in rec["sources"]}
    assert by["m1"]["value"] == 4.0 and by["m1"]["sd"] == pytest.approx(1.0)
    # t interval: 4 ± t(0.975, 2) · 1/√3
    assert by["m1"]["ci_high"] == pytest.approx(4 + 4.302652729911275 / 3**0.5)
    # All ratings equal: a zero-width interval says nothing and is withheld, with the reason.
    assert by["m2"]["value"] == 2.0 and by["m2"]["ci_low"] is None
    assert "zero width" in by["m2"]["reason"]


def test_kqa_answers_that_decline_are_abstentions(tmp_path: Path) -> None:
    """an answer that declines ("Insufficient information …") is counted apart, not scored
    as an answer that missed every statement; in 'all questions' it counts 0."""
    from medjudge.store.abstentions import declines

    s = Study.create(tmp_path / "d.db", actor="t")
    rows = [
        {"id": "a1", "question": "Q1", "answer": "x", "source": "m", "must_have": ["p", "q"]},
        {
            "id": "a2",
            "question": "Q2",
            "answer": "INSUFFICIENT INFORMATION to answer this safely.",
            "source": "m",
            "must_have": ["s"],
        },
        {
            "id": "a3",
            "question": "Q3",
            "answer": "y " * 150 + "insufficient information",
            "source": "m",
            "must_have": ["t"],
        },
    ]
    import_file(s, write_jsonl(tmp_path / "d.jsonl", rows), "statements", actor="t")
    # a2 opens with a decline phrase and nobody labelled its statement entailed or
    # contradicted: an abstention (a label saying it answered would make it an answer)
    for ext, values in (("a1", [E, E]), ("a2", [N]), ("a3", [N])):
        item = get_item(s, find_item(s, ext) or 0)
        for st, v in zip(item.statements, values, strict=True):
            set_label(s, item.unit_for("entailment", st.id).id, "ann", v)
    report = as_json(kqa_metrics(load_study_data(s), n_boot=200, seed=1)) or {}
    f = _fig(report, "ann", "m")
    assert f["declined"] == 1 and f["declined_share"]["count"] == 1
    assert f["comprehensiveness_answered"]["value"] == 0.5  # a1 = 1, a3 = 0; a2 not scored
    assert f["comprehensiveness_answered"]["n"] == 2
    assert f["hallucinations_answered"]["value"] == 0.0
    assert abs(f["comprehensiveness_all"]["value"] - 1 / 3) < 1e-12  # a2 counts 0
    per = {a["item"]: a for a in report["answers"]}
    assert per["a2"]["declined"] and per["a2"]["comprehensiveness"] is None
    assert not declines(
        "A long answer. " * 20 + "insufficient information", ("insufficient information",)
    )
    s.close()
