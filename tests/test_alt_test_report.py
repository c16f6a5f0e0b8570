"""The alternative annotator test in a study's report and app, end to end through the real
CLI: a 60-item pairwise study with four physicians, a judge copying their majority (it may
stand in for them) and a random judge (it may not); a 1–5 rating criterion (−RMSE). The
report's ``alt_test`` equals :func:`medjudge.judging.stats.alt_test.alt_test` run here on
the same units × raters table, and every format (JSON, Markdown, HTML with its navigation,
CSV, the summary's line) says the decision; with two physicians, or too few shared items,
every format says "not computed" with the reason, never a number. The review app's
agreement detail shows the same line for the judge (a Pilot test)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.widgets import DataTable
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.analysis.alt_tests import decision_line
from medjudge.judging.stats.alt_test import AltTestResult, alt_test
from medjudge.tui.agreement_screen import AgreementScreen
from medjudge.tui.app import make_app
from medjudge.tui.overview_screen import OverviewScreen

from .support.kind_rows import pairwise_row, rating_row, write_jsonl
from .support.tui import current, run_async, screen_text, until

cli = CliRunner()
N = 60
PHYSICIANS = ("dr1", "dr2", "dr3", "dr4")
COPY, RANDOM = "judge-copy", "judge-random"
VERDICTS = ("A", "B", "tie")


def _invoke(*args: str) -> Any:
    r = cli.invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r


def _labels(seed: int = 5, n: int = N) -> dict[str, list[str]]:
    """Four physicians who agree with a true verdict 75% of the time, a judge giving their
    majority (dr1's label without one) and a judge drawing verdicts at random."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(VERDICTS, size=n, p=[0.45, 0.45, 0.1])
    out: dict[str, list[str]] = {}
    for p in PHYSICIANS:
        keep = rng.random(n) < 0.75
        out[p] = [
            str(t) if k else str(rng.choice(VERDICTS)) for t, k in zip(truth, keep, strict=True)
        ]
    copy = []
    for i in range(n):
        value, count = Counter(out[p][i] for p in PHYSICIANS).most_common(1)[0]
        copy.append(value if count * 2 > len(PHYSICIANS) else out["dr1"][i])
    out[COPY] = copy
    out[RANDOM] = [str(v) for v in rng.choice(VERDICTS, size=n)]
    return out


def _pairwise_study(
    path: Path, labels: dict[str, list[str]], physicians: tuple[str, ...], n: int = N
) -> Path:
    _invoke(
        "init", str(path), "--name", "Alt", "-c", "overall:benefit:Which is better?",
        "--allow-reviewer-override",
    )  # fmt: skip
    rows = [
        pairwise_row(
            i,
            human_labels={p: {"overall": labels[p][i]} for p in physicians},
            judge_labels={j: {"overall": labels[j][i]} for j in (COPY, RANDOM)},
        )
        for i in range(n)
    ]
    _invoke(
        "import", str(path), str(write_jsonl(path.with_suffix(".jsonl"), rows)), "-k", "pairwise"
    )
    return path


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    labels = _labels()
    return _pairwise_study(tmp_path_factory.mktemp("alt") / "alt.db", labels, PHYSICIANS), labels


def _expected(
    labels: dict[str, list[str]], judge: str, physicians: tuple[str, ...] = PHYSICIANS, **kw: Any
) -> AltTestResult:
    raters = [*physicians, judge]
    rows = [[labels[r][i] for r in raters] for i in range(len(labels[judge]))]
    return alt_test(rows, raters, judge, **kw)


def _report(db: Path, fmt: str, *extra: str) -> str:
    return str(_invoke("report", str(db), "-f", fmt, "--n-boot", "100", *extra).stdout)


PLAN_KEYS = ("plan", "items_needed", "plan_note")


def _json(db: Path, *extra: str) -> dict[tuple[str, str], Any]:
    """The report's alt-test rows without the plan beside each (see test_the_plan_beside_…)."""
    report = json.loads(_report(db, "json", *extra))
    return {
        (r["criterion"], r["judge"]): {k: v for k, v in r.items() if k not in PLAN_KEYS}
        for r in report["alt_test"]
    }


def _plain(result: AltTestResult) -> Any:
    return json.loads(json.dumps(result.to_dict()))


def test_the_json_equals_the_alt_test_on_the_same_table(study: Any) -> None:
    db, labels = study
    got = _json(db)
    assert sorted(got) == [("overall", COPY), ("overall", RANDOM)]
    for judge in (COPY, RANDOM):
        assert got[("overall", judge)] == {
            "criterion": "overall",
            **_plain(_expected(labels, judge)),
        }
    copy, rand = got[("overall", COPY)], got[("overall", RANDOM)]
    assert copy["scoring"] == "accuracy" and (copy["epsilon"], copy["q"]) == (0.2, 0.05)
    assert copy["passed"] is True and copy["winning_rate"] >= 0.5 and copy["reason"] is None
    assert rand["passed"] is False and rand["winning_rate"] < 0.5
    assert [p["name"] for p in copy["physicians"]] == list(PHYSICIANS)
    assert all(p["n_items"] == N for p in copy["physicians"])


def test_the_options_reach_the_test(study: Any) -> None:
    db, labels = study
    got = _json(db, "--epsilon", "0.1", "--fdr-q", "0.1", "--alt-test-min-items", "61")
    for judge in (COPY, RANDOM):
        want = _expected(labels, judge, epsilon=0.1, q=0.1, min_items=61)
        assert got[("overall", judge)] == {"criterion": "overall", **_plain(want)}
        assert (
            want.reason == "only 0 physicians with at least 61 usable items (the alt-test needs 3)"
        )
    got = _json(db, "--epsilon", "0.1", "--fdr-q", "0.1")
    assert got[("overall", COPY)] == {
        "criterion": "overall",
        **_plain(_expected(labels, COPY, epsilon=0.1, q=0.1)),
    }
    r = cli.invoke(app, ["report", str(db), "--fdr-q", "1"])
    assert r.exit_code != 0 and "--fdr-q" in r.output


def test_every_format_says_the_decision(study: Any) -> None:
    db, labels = study
    copy, rand = _expected(labels, COPY), _expected(labels, RANDOM)
    assert decision_line(copy) == (
        f"may stand in for the physicians (alt-test ω = {copy.winning_rate:.2f}, "
        f"ρ = {copy.advantage_probability:.2f}, ε = 0.2)"
    )
    assert decision_line(rand).startswith("may not stand in for the physicians (alt-test ω = ")
    md = _report(db, "md")
    assert f"- overall, {COPY}: {decision_line(copy)}" in md  # the summary
    assert f"- overall, {RANDOM}: {decision_line(rand)}" in md
    assert "## Alternative annotator test" in md
    row = next(x for x in md.splitlines() if x.startswith(f"| {COPY} | overall | accuracy |"))
    assert "| 0.2 | 0.05 | 4 of 4 |" in row and "may stand in for the physicians" in row
    assert f"{copy.winning_rate:.2f} | {copy.advantage_probability:.2f}" in row
    assert any(x.startswith(f"| {RANDOM} | overall | dr3 | 60 |") for x in md.splitlines())
    html = _report(db, "html")
    assert '<a href="#alt-test">Alternative annotator test</a>' in html  # the navigation
    assert '<section id="alt-test">' in html
    assert decision_line(copy) in html and decision_line(rand) in html
    rows = list(csv.DictReader(io.StringIO(_report(db, "csv"))))
    mine = [r for r in rows if r["section"] == "alt_test"]
    by = {(r["rater_a"], r["rater_b"], r["metric"]): r for r in mine}
    for judge, result in ((COPY, copy), (RANDOM, rand)):
        assert float(by[(judge, "physicians", "winning_rate")]["value"]) == result.winning_rate
        assert (
            float(by[(judge, "physicians", "advantage_probability")]["value"])
            == result.advantage_probability
        )
        assert by[(judge, "physicians", "passed")]["value"] == str(int(bool(result.passed)))
        for p in result.physicians:
            cell = by[(judge, p.name, "p")]
            assert float(cell["value"]) == p.p and cell["n"] == str(N)
        assert {r["slice"] for r in mine} == {"scoring=accuracy;epsilon=0.2;q=0.05"}


def test_two_physicians_is_not_computed_in_every_format(tmp_path: Path) -> None:
    labels = _labels(7)
    db = _pairwise_study(tmp_path / "two.db", labels, PHYSICIANS[:2])
    reason = "needs at least 3 physicians besides the judge (got 2)"
    got = _json(db)
    for judge in (COPY, RANDOM):
        r = got[("overall", judge)]
        assert r == {"criterion": "overall", **_plain(_expected(labels, judge, PHYSICIANS[:2]))}
        assert r["reason"] == reason and r["physicians"] == []
        assert (r["winning_rate"], r["advantage_probability"], r["passed"]) == (None, None, None)
    md = _report(db, "md")
    assert f"- overall, {COPY}: alt-test not computed: {reason}" in md
    row = next(x for x in md.splitlines() if x.startswith(f"| {COPY} | overall | accuracy |"))
    assert f"| – | – | – | not computed: {reason} |" in row
    html = _report(db, "html")
    assert f"alt-test not computed: {reason}" in html and 'id="alt-test"' in html
    rows = [
        r for r in csv.DictReader(io.StringIO(_report(db, "csv"))) if r["section"] == "alt_test"
    ]
    rows = [r for r in rows if r["rater_b"] != "plan"]
    assert {r["metric"] for r in rows} == {"winning_rate", "advantage_probability", "passed"}
    assert all(r["value"] == "" and r["reason"] == reason for r in rows)


def test_too_few_shared_items_is_not_computed(tmp_path: Path) -> None:
    labels = _labels(8, n=20)
    db = _pairwise_study(tmp_path / "few.db", labels, PHYSICIANS[:3], n=20)
    r = _json(db)[("overall", COPY)]
    assert r["winning_rate"] is None and r["passed"] is None
    assert r["reason"] == "only 0 physicians with at least 30 usable items (the alt-test needs 3)"
    assert [p["excluded"] for p in r["physicians"]] == [
        "20 usable items, fewer than the minimum of 30"
    ] * 3
    md = _report(db, "md")
    assert f"- overall, {COPY}: alt-test not computed: {r['reason']}" in md
    assert "left out: 20 usable items, fewer than the minimum of 30" in md


def test_a_rating_scale_is_scored_by_negative_rmse(tmp_path: Path) -> None:
    db = tmp_path / "rating.db"
    _invoke("init", str(db), "--name", "Rating")
    rng = np.random.default_rng(11)
    n = 40
    truth = rng.integers(1, 6, size=n)
    values = {
        p: [int(np.clip(t + rng.integers(-1, 2), 1, 5)) for t in truth]
        for p in ("drA", "drB", "drC")
    }
    values["gpt"] = [int(t) for t in truth]
    rows = []
    for i in range(n):
        row = rating_row(i)
        row["labels"] = [
            {"rater": r, "criterion": "correctness_rating", "value": values[r][i]}
            | ({"type": "judge"} if r == "gpt" else {})
            for r in values
        ]
        rows.append(row)
    _invoke("import", str(db), str(write_jsonl(tmp_path / "r.jsonl", rows)), "-k", "rating")
    got = _json(db)[("correctness_rating", "gpt")]
    raters = ["drA", "drB", "drC", "gpt"]
    want = alt_test(
        [[values[r][i] for r in raters] for i in range(n)], raters, "gpt", scoring="neg_rmse"
    )
    assert got == {"criterion": "correctness_rating", **_plain(want)}
    assert got["scoring"] == "neg_rmse" and got["passed"] is not None
    md = _report(db, "md")
    assert "| gpt | correctness_rating | −RMSE |" in md


def test_the_plan_beside_the_test_is_the_planner_on_the_study_s_own_figures(study: Any) -> None:
    """Beside each test: the chance of passing with 30 … 300 items, simulated from this
    criterion's label shares and agreements (the pilot figures), and the fewest items with an
    80% chance — equal to the planner run here on the same table and the study's seed; a
    judge below chance agreement gets the planner's reason instead."""
    from medjudge.judging.analysis.alt_tests import PLAN_ITEMS, PLAN_SIMS
    from medjudge.judging.stats.alt_test_plan import pilot_figures, plan_alt_test

    db, labels = study
    report = json.loads(_report(db, "json"))
    seed = report["protocol"]["intervals"]["seed"]
    rows = {r["judge"]: r for r in report["alt_test"]}
    raters = [*PHYSICIANS, COPY]
    table = [[labels[r][i] for r in raters] for i in range(len(labels[COPY]))]
    pilot = pilot_figures(table, raters, COPY, ["A", "B", "tie", "neither"])
    want = plan_alt_test(
        physician_agreement=pilot.physician_agreement,
        judge_agreement=pilot.judge_agreement,
        label_shares=pilot.label_shares,
        n_physicians=len(PHYSICIANS),
        item_counts=PLAN_ITEMS,
        n_sims=PLAN_SIMS,
        seed=seed,
    )
    got = rows[COPY]
    assert [(p["n_items"], p["pass_probability"]) for p in got["plan"]] == [
        (p.n_items, p.pass_probability) for p in want.points
    ]
    assert got["items_needed"] == want.items_needed(0.8) == 30 and got["plan_note"] is None
    # the random judge agrees with the physicians below chance: no plan, and why
    assert rows[RANDOM]["plan"] == [] and rows[RANDOM]["items_needed"] is None
    assert rows[RANDOM]["plan_note"].startswith("no plan: judge agreement 0.")
    md = _report(db, "md")
    assert "| Judge version | Criterion | 30 items | 60 items |" in md
    row = next(x for x in md.splitlines() if x.startswith(f"| {COPY} | overall | accuracy |"))
    assert row.rstrip(" |").endswith("| 30")
    rows_csv = [
        r
        for r in csv.DictReader(io.StringIO(_report(db, "csv")))
        if r["section"] == "alt_test" and r["rater_b"] == "plan"
    ]
    metrics = {(r["rater_a"], r["metric"]): r for r in rows_csv}
    assert metrics[(COPY, "items_needed")]["value"] == "30"
    assert metrics[(RANDOM, "items_needed")]["reason"] == rows[RANDOM]["plan_note"]
    assert float(metrics[(COPY, "pass_probability:items=300")]["value"]) == 1.0
    assert "Chance the alternative annotator test passes, by number of items" in _report(db, "html")


@run_async
async def test_the_apps_agreement_detail_shows_the_decision(study: Any) -> None:
    db, labels = study
    line = decision_line(_expected(labels, COPY))
    tui = make_app(db, reviewer="dr1", poll_interval=None)
    async with tui.run_test(size=(160, 50)) as pilot:
        await pilot.press("o")
        await until(
            pilot,
            lambda: (
                isinstance(tui.screen, OverviewScreen)
                and tui.screen.query_one("#ov-agreement", DataTable).row_count > 0
            ),
        )
        tui.screen.query_one("#ov-agreement", DataTable).focus()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(tui.screen, AgreementScreen) and bool(current(tui, AgreementScreen).pair)
            ),
        )
        assert "alt-test" not in screen_text(tui)  # dr1 vs dr2: no judge
        for _ in range(len(PHYSICIANS) + 2):  # the columns: the next rater, up to the judge
            if current(tui, AgreementScreen).pair[1:] == [COPY]:
                break
            await pilot.press("b")
            await tui.workers.wait_for_complete()
            await pilot.pause()
        await until(pilot, lambda: f"columns: {COPY}" in screen_text(tui))
        await until(pilot, lambda: f"{COPY}: {line}" in screen_text(tui))
        # the plan beside it, as the report's
        await until(pilot, lambda: "30 items give it an 80% chance to pass" in screen_text(tui))
