"""MedRGB-style `match` items: import, migration, judge (median rule), abstentions."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.abstentions import declining_items
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item
from medjudge.store.study import Study

from .support.checks import some
from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.kind_rows import write_jsonl
from .support.match import match_study, medrgb_rows

cli = CliRunner()


def test_import_keeps_prediction_truth_documents_subquestions_and_metadata(tmp_path: Path) -> None:
    s = match_study(tmp_path)
    item = get_item(s, 1)
    assert item.kind == "match" and item.answers["answer"].source == "model-x"
    assert item.data["ground_truth"] == "A. Epinephrine"
    assert item.data["document_kinds"] == ["signal", "counterfactual", "noise"]
    assert item.context[1] == "Antihistamines are first line."
    assert [st.text for st in item.statements] == ["Route?", "Site?"]
    assert [u.criterion for u in item.units] == ["match", "submatch", "submatch"]
    assert item.meta == {"test": "standard", "p": 0}
    # The abstaining prediction is an abstention, counted apart.
    abstaining = {get_item(s, i).ext_id for i in declining_items(s)}
    assert abstaining == {"sufficiency-40-model-y"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"documents": [{"text": "x", "kind": "rumour"}]}, "line 1, field 'documents[0].kind'"),
        (
            {"subquestions": [{"question": "Q?", "reference": "r"}]},
            "field 'subquestions[0].prediction'",
        ),
        ({"ground_truth": None}, "field 'ground_truth'"),
        ({"options": {"A": "only one"}}, "field 'options'"),
    ],
)
def test_bad_rows_name_file_line_and_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    s = Study.create(tmp_path / "bad.db", actor="lead")
    row = {**medrgb_rows()[0], **change}
    row = {k: v for k, v in row.items() if v is not None}
    with pytest.raises(ImportProblem) as err:
        import_file(s, write_jsonl(tmp_path / "bad.jsonl", [row]), "match", actor="lead")
    assert message in str(err.value)
    assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0


def test_an_older_study_migrates_and_keeps_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from medjudge.store import migrations

    from .support.old_studies import old_study

    path = tmp_path / "old.db"
    before = sum(1 for name, _ in migrations.MIGRATIONS if name < "006")
    old = old_study(path, monkeypatch, before, pairwise=2, statements=1)
    with pytest.raises(Exception, match="CHECK"):
        with old.tx() as conn:
            conn.execute(
                "INSERT INTO items (ext_id, kind, question, content_hash, created_at) "
                "VALUES ('x', 'match', 'q', 'h', 't')"
            )
    counts = old.conn.execute("SELECT count(*) FROM items").fetchone()[0]
    old.close()
    monkeypatch.undo()
    new = Study.open(path)
    try:
        assert "006_match_kind" in migrations.applied(new.conn)
        assert new.conn.execute("SELECT count(*) FROM items").fetchone()[0] == counts
        assert new.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [c.name for c in new.settings.criteria_for("match")] == ["match", "submatch"]
        import_file(new, write_jsonl(tmp_path / "m.jsonl", medrgb_rows()[:2]), "match", actor="t")
        # 010_open_kinds then drops the list: the registered kinds decide, at import
        (sql,) = new.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'items'").fetchone()
        assert "CHECK (kind IN" not in sql
    finally:
        new.close()


def _scorer(req: FakeRequest) -> Reply:
    """Scores by the prediction's text; the second sample of each call disagrees upward."""
    text = req.prompt_text
    prediction = some(re.search(r"<prediction>\s*(.*?)\s*</prediction>", text, re.S)).group(1)
    truth = some(re.search(r"<ground_truth>\s*(.*?)\s*</ground_truth>", text, re.S)).group(1)
    if "WRONG" in prediction or "Insufficient" in prediction:
        score: float = 0
    elif "PARTLY" in prediction:
        score = 0.5
    else:
        score = 1 if prediction.split()[0] in truth or prediction == truth else 0
    messages = req.json.get("messages", [])
    sample = int(req.json.get("seed", 0) or 0)
    if sample == 1 and score < 1:
        score = 1  # one dissenting sample: the median keeps the other two
    return Reply(json.dumps({"score": score, "reason": f"scripted ({len(messages)})"}))


def test_judge_scores_by_the_median_of_samples_through_the_real_sdk(tmp_path: Path) -> None:
    s = match_study(tmp_path)
    with FakeLLMServer(_scorer) as server:
        judge = JudgeConfig(parse_judge_spec(f"openai:fake@{server.openai_url}"), samples=3)
        summary = asyncio.run(run_judges(s, [judge], RunOptions(concurrency=8, actor="t")))
    assert summary.failed == 0
    rows = s.conn.execute(
        "SELECT i.ext_id, u.criterion, u.position, l.value FROM units u "
        "JOIN items i ON i.id = u.item_id JOIN labels l ON l.unit_id = u.id ORDER BY i.id, u.position"
    ).fetchall()
    got = {(r[0], r[1], r[2]): r[3] for r in rows}
    assert got[("standard-0-model-x", "match", 0)] == "1"
    assert got[("standard-0-model-y", "match", 0)] == "0.5"  # 0.5, 1, 0.5 -> median 0.5
    assert got[("sufficiency-40-model-y", "match", 0)] == "0"  # abstention scored 0 by the judge
    assert got[("standard-0-model-x", "submatch", 1)] == "1"
    assert got[("standard-0-model-x", "submatch", 2)] == "0"
    trail = json.loads(
        s.conn.execute(
            "SELECT trail FROM current_verdicts v JOIN units u ON u.id = v.unit_id "
            "JOIN items i ON i.id = u.item_id WHERE i.ext_id = 'standard-0-model-y' "
            "AND u.criterion = 'match'"
        ).fetchone()[0]
    )
    assert sorted(trail["votes"]) == ["0.5", "0.5", "1"] and trail["samples_disagreed"]


def test_cli_import_and_dry_run_count_the_calls(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    assert cli.invoke(app, ["init", str(path)]).exit_code == 0
    src = write_jsonl(tmp_path / "m.jsonl", medrgb_rows())
    r = cli.invoke(app, ["import", str(path), str(src), "--kind", "match"])
    assert r.exit_code == 0, r.output
    r = cli.invoke(
        app, ["judge", str(path), "-j", "openai:gpt-4o-mini", "--dry-run", "--samples", "3"]
    )
    assert r.exit_code == 0, r.output
    # 8 predictions + 2 sub-answers, 3 samples each
    assert "30 calls needed: 0 cached, 30 to make" in r.output


def _review_study(tmp_path: Path) -> Path:
    from medjudge.store.settings import StudySettings

    path = tmp_path / "review.db"
    s = Study.create(path, StudySettings(allow_reviewer_override=True), actor="lead")
    rows = medrgb_rows()
    import_file(s, write_jsonl(tmp_path / "r.jsonl", [rows[0]]), "match", actor="lead")
    s.close()
    return path


def test_review_hides_document_kinds_until_the_labels_are_saved(tmp_path: Path) -> None:
    from medjudge.store.reviewer_aids import document_marks
    from medjudge.tui.app import make_app
    from medjudge.tui.review.screen import ReviewScreen

    from .support.tui import run_async, screen_text, static_text

    path = _review_study(tmp_path)

    @run_async
    async def go() -> None:
        app = make_app(path, reviewer="ann", poll_interval=None)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            text = screen_text(app)
            assert "Prediction (the model's answer)" in text and "Ground truth" in text
            docs = static_text(app, "#context-text")
            assert "Antihistamines are first line." in docs
            assert "counterfactual" not in docs and "signal" not in docs  # blind: kinds hidden
            await pilot.press("w")
            await pilot.press(*"2", "enter")
            await pilot.pause()
            assert "relied on wrongly" in static_text(app, "#context-text")
            await pilot.press("1")  # the prediction matches
            await pilot.press("1")  # sub-question 1 matches
            await pilot.press("0")  # sub-question 2 is wrong
            await pilot.pause()
            assert app.review.session.complete()
            docs = static_text(app, "#context-text")
            assert "2] counterfactual: relied on wrongly" in docs.replace("[", "")
            assert "noise: The clinic opens at nine." in docs
        with Study.open(path) as s:
            got = s.conn.execute(
                "SELECT u.criterion, u.position, l.value FROM labels l JOIN units u "
                "ON u.id = l.unit_id ORDER BY u.position"
            ).fetchall()
            assert [tuple(r) for r in got] == [
                ("match", 0, "1"),
                ("submatch", 1, "1"),
                ("submatch", 2, "0"),
            ]
            assert document_marks(s, 1, "ann") == {2}

    go()


def test_h_scores_half(tmp_path: Path) -> None:
    from medjudge.tui.app import make_app

    from .support.tui import run_async

    path = _review_study(tmp_path)

    @run_async
    async def go() -> None:
        app = make_app(path, reviewer="bob", poll_interval=None)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
        with Study.open(path) as s:
            assert s.conn.execute("SELECT value FROM labels").fetchone()[0] == "0.5"

    go()


def test_report_means_by_model_test_and_p_with_abstentions_apart(tmp_path: Path) -> None:
    from medjudge.judging.report.build import ReportOptions, build_report, render

    s = match_study(tmp_path)
    with FakeLLMServer(_scorer) as server:
        judge = JudgeConfig(parse_judge_spec(f"openai:fake@{server.openai_url}"), samples=3)
        asyncio.run(run_judges(s, [judge], RunOptions(concurrency=8, actor="t")))
    from medjudge.store.labels import set_label

    rows = s.conn.execute(
        "SELECT u.id, a.text FROM units u JOIN answers a ON a.item_id = u.item_id "
        "AND a.position = 'answer' WHERE u.criterion = 'match'"
    ).fetchall()
    for unit_id, text in rows:
        # the declining prediction scores 0 (a score above 0 would say it answered)
        set_label(s, unit_id, "ann", "0" if "insufficient" in text.lower() else "1")
    model = build_report(s, ReportOptions(n_boot=500))
    report = model.model_dump(mode="json")
    m = report["medrgb"]
    assert (m["predictions"], m["abstentions"]) == (8, 1)
    r = next(x for x in m["raters"] if x["rater"].startswith("openai:fake"))
    ann_only = next(x for x in m["raters"] if x["rater"] == "majority of reviewers")
    assert ann_only["overall"]["value"] == 1.0 and ann_only["n"] == 7
    by_source = {x["key"]: (x["value"], x["n"]) for x in r["by_source"]}
    assert by_source == {"model-x": (1.0, 4), "model-y": (0.5, 3)}  # the abstention is apart
    by_p = {x["key"]: x["value"] for x in r["by_p"]}
    assert list(by_p) == ["0", "40", "80"]  # numeric order
    assert by_p["0"] == pytest.approx(0.75)
    assert by_p["40"] == pytest.approx(2.5 / 3)
    by_test = {x["key"]: x["n"] for x in r["by_test"]}
    assert by_test == {"robustness": 4, "standard": 2, "sufficiency": 1}
    abst = {a["key"]: (a["count"], a["n"], a["method"]) for a in m["abstention_by_p"]}
    assert abst == {"0": (0, 2, "wilson"), "40": (1, 4, "wilson"), "80": (0, 2, "wilson")}
    assert r["overall"]["method"] in ("bca_bootstrap", "none")
    # Every match figure is also sliced by test and p in the agreement views.
    crit = next(c for c in report["criteria"] if c["name"] == "match")
    assert {c["slice_by"] for c in crit["comparisons"]} >= {None, "test", "p"}
    md = render(model, "md")
    assert "## MedRGB: predictions against the ground truth" in md
    assert "| " + "openai:fake" in md or "openai:fake@" in md
    html = render(model, "html")
    assert 'id="medrgb"' in html and "<polyline" in html and "Mean score by p" in html
    csv_text = render(model, "csv")
    assert "medrgb,match,p=40,,,abstention_share,0.25" in csv_text
