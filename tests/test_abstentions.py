"""No silent exclusion: a decline phrase alone is a suggestion, not a verdict. An answer
is an abstention only when it opens with a decline phrase and nobody labelled any of its
statements entailed or contradicted; every excluded answer is listed with its rule."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.abstentions import abstentions
from medjudge.store.items import find_item, get_item
from medjudge.store.labels import set_label
from medjudge.store.study import Study
from medjudge.tui.review.screen import ReviewScreen

from .support.checks import some
from .support.kind_rows import write_jsonl
from .support.tui import run_async

RUN = CliRunner()
KQA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "kqa"
DISCLAIMER = (
    "As a medical expert, I cannot provide personalized medical advice. However, here is what "
    "is generally known: "
)
PATTERN = ("entailed", "neutral", "contradicted", "entailed", "entailed")


def label_all(s: Study, reviewers: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """Every statement labelled by each reviewer from a fixed pattern; per item its
    (category, label) pairs (the reviewers agree)."""
    out: dict[str, list[tuple[str, str]]] = {}
    items = [r[0] for r in s.conn.execute("SELECT ext_id FROM items ORDER BY id")]
    for n, ext in enumerate(items):
        item = get_item(s, find_item(s, ext) or 0)
        got = []
        for k, st in enumerate(item.statements):
            value = PATTERN[(n + k) % len(PATTERN)]
            for r in reviewers:
                set_label(s, item.unit_for("entailment", st.id).id, r, value)
            got.append((st.category, value))
        out[ext] = got
    return out


def hand(labels: dict[str, list[tuple[str, str]]]) -> tuple[float, float]:
    """K-QA by hand, no answer excluded: mean comprehensiveness (entailed Must_have / Must_have)
    and mean hallucinations (contradicted statements) over the answers."""
    comp, hall = [], []
    for pairs in labels.values():
        must = [v for c, v in pairs if c == "must_have"]
        comp.append(sum(v == "entailed" for v in must) / len(must))
        hall.append(sum(v == "contradicted" for _, v in pairs))
    return sum(comp) / len(comp), sum(hall) / len(hall)


def report(path: Path, fmt: str) -> str:
    r = RUN.invoke(app, ["report", str(path), "-f", fmt, "--n-boot", "200"])
    assert r.exit_code == 0, r.output
    return r.stdout


def check_nothing_excluded(path: Path, labels: dict[str, list[tuple[str, str]]], src: str) -> None:
    got = json.loads(report(path, "json"))
    assert got["exclusions"]["excluded"] == []
    assert got["exclusions"]["answers"] == len(labels)
    comp, hall = hand(labels)
    for rater in got["kqa"]["raters"]:
        f = rater["by_source"][src]
        assert f["declined"] == 0, rater["rater"]
        assert f["statements_labelled"] == f["statements"]
        assert f["comprehensiveness_answered"]["value"] == pytest.approx(comp, abs=1e-12)
        assert f["hallucinations_answered"]["value"] == pytest.approx(hall, abs=1e-12)
    n = len(labels)
    assert f"0 of {n} answers were excluded from the figures as abstentions." in report(path, "md")


def test_disclaimers_before_real_answers_exclude_nothing(tmp_path: Path) -> None:
    path = tmp_path / "disclaimers.db"
    s = Study.create(path, actor="t")
    rows = [
        {
            "id": f"q{i}",
            "question": f"Question {i}?",
            "answer": DISCLAIMER + f"answer {i} in full.",
            "source": "gpt-4",
            "must_have": [f"must {i}.{k}" for k in range(1 + i % 3)],
            "nice_to_have": [f"nice {i}"],
        }
        for i in range(8)
    ]
    from medjudge.store.importing.run import import_file

    import_file(s, write_jsonl(tmp_path / "st.jsonl", rows), "statements", actor="t")
    assert len(abstentions(s)) == 8, "before any label every disclaimer looks like a refusal"
    labels = label_all(s, ("ann", "bob"))
    assert abstentions(s) == {}
    s.close()
    check_nothing_excluded(path, labels, "gpt-4")


def test_real_kqa_answers_with_a_disclaimer_exclude_nothing(tmp_path: Path) -> None:
    if not (KQA / "questions_w_answers.jsonl").exists():
        pytest.skip(f"the K-QA data is not at {KQA} (../shared absent)")
    ref = [json.loads(x) for x in (KQA / "questions_w_answers.jsonl").read_text().splitlines()]
    picked = ref[:12]
    results = [
        {"Question": q["Question"], "result": DISCLAIMER + q["Free_form_answer"]} for q in picked
    ]
    answers = tmp_path / "results.json"
    answers.write_text(json.dumps(results))
    subset = write_jsonl(tmp_path / "questions_w_answers.jsonl", picked)
    path = tmp_path / "kqa.db"
    assert RUN.invoke(app, ["init", str(path)]).exit_code == 0
    r = RUN.invoke(
        app,
        ["import", str(path), str(subset), "--kind", "kqa", "--answers", str(answers),
         "--source", "gpt-4"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    s = Study.open(path)
    try:
        labels = label_all(s, ("ann", "bob"))
    finally:
        s.close()
    check_nothing_excluded(path, labels, "gpt-4")


def test_a_real_refusal_is_excluded_and_listed_with_its_rule(tmp_path: Path) -> None:
    path = tmp_path / "refusal.db"
    s = Study.create(path, actor="t")
    rows = [
        {"id": "ok", "question": "Q1?", "answer": DISCLAIMER + "take it with food.",
         "source": "m", "must_have": ["with food"]},
        {"id": "no", "question": "Q2?", "answer": "Insufficient information to answer.",
         "source": "m", "must_have": ["with water"]},
    ]  # fmt: skip
    from medjudge.store.importing.run import import_file

    import_file(s, write_jsonl(tmp_path / "st.jsonl", rows), "statements", actor="t")
    for ext, value in (("ok", "entailed"), ("no", "neutral")):
        item = get_item(s, find_item(s, ext) or 0)
        set_label(s, item.unit_for("entailment", item.statements[0].id).id, "ann", value)
    s.close()
    rule = "opens with the decline phrase 'insufficient information' and no rater labelled"
    got = json.loads(report(path, "json"))
    (ex,) = got["exclusions"]["excluded"]
    assert ex["item"] == "no" and ex["section"] == "kqa" and rule in ex["rule"]
    md = report(path, "md")
    assert "1 of 2 answers was excluded from the figures as abstentions; each is listed" in md
    assert rule in md
    assert rule in html.unescape(report(path, "html"))
    csv_rows = [x for x in report(path, "csv").splitlines() if x.startswith("excluded,")]
    assert csv_rows[0].startswith("excluded,,all,,,excluded_answers,1,,,,2,")
    assert csv_rows[1].startswith("excluded,kqa,no,m,,abstention,1,") and rule in csv_rows[1]
    f = got["kqa"]["raters"][0]["by_source"]["m"]
    assert f["declined"] == 1 and f["comprehensiveness_answered"]["value"] == 1.0


@run_async
async def test_the_review_app_only_hints_at_a_refusal(tmp_path: Path) -> None:
    from medjudge.store.importing.run import import_file
    from medjudge.store.settings import StudySettings
    from medjudge.tui.app import make_app
    from medjudge.tui.widgets import Pane

    path = tmp_path / "hint.db"
    s = Study.create(path, StudySettings(allow_reviewer_override=True), actor="t")
    rows = [
        {"id": "d", "question": "Q?", "answer": DISCLAIMER + "rest.", "source": "m",
         "must_have": ["x"]},
        {"id": "a", "question": "Q2?", "answer": "Plain answer.", "source": "m",
         "must_have": ["y"]},
    ]  # fmt: skip
    import_file(s, write_jsonl(tmp_path / "st.jsonl", rows), "statements", actor="t")
    s.close()
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, ReviewScreen)
        assert some(screen.session.item).ext_id == "d"
        assert "looks like a refusal?" in str(screen.query_one("#pane-1", Pane).border_title)
        await pilot.press("e")  # entailed: the reviewer's label decides, not the phrase
        await pilot.pause()
        assert some(screen.session.item).ext_id == "a"
        assert "refusal" not in str(screen.query_one("#pane-1", Pane).border_title)
    s = Study.open(path)
    try:
        assert abstentions(s) == {}
    finally:
        s.close()
