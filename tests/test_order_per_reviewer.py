"""``settings --order per-reviewer``: each reviewer sees a pairwise item in their own
seeded order; the order seen is stored with the label, exported, used by the review app and
search, and the report gives the reviewers' own position bias."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app as cli
from medjudge.judging.analysis.judge_versions import POOLED, judges_section
from medjudge.judging.analysis.study_data import load_study_data
from medjudge.judging.report.build import ReportOptions, build_report, render
from medjudge.store import export
from medjudge.store.items import get_item, list_items, order_for, reviewer_order, seen_by
from medjudge.store.labels import set_label
from medjudge.store.search import search
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.checks import some
from .support.tui import add_verdicts, build_study, item_swap, labels, run_async, screen_text


def reviewer_swap(seed: int, login: str, ext_id: str) -> bool:
    """Whether the reviewer's own order of a two-answer item shows answer B first."""
    return reviewer_order("pairwise", seed, login, ext_id, "AB") == "BA"


PAIRWISE = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")


def per_reviewer(path: Path) -> int:
    """Switch a study to per-reviewer orders; its seed."""
    study = Study.open(path)
    try:
        study.save_settings(
            study.settings.model_copy(update={"order": "per-reviewer"}), actor="lead"
        )
        return study.settings.seed
    finally:
        study.close()


def logins(seed: int, ext_id: str, swapped: bool, n: int = 1) -> list[str]:
    """The first ``n`` logins r0, r1, … whose own order of ``ext_id`` is (not) swapped."""
    found = [f"r{i}" for i in range(200) if reviewer_swap(seed, f"r{i}", ext_id) == swapped]
    return found[:n]


def test_orders_are_reproducible_independent_and_about_half_swapped() -> None:
    ids = [f"item-{i}" for i in range(400)]
    alice = [reviewer_swap(7, "alice", i) for i in ids]
    assert alice == [reviewer_swap(7, "alice", i) for i in ids]  # reproducible
    bob = [reviewer_swap(7, "bob", i) for i in ids]
    assert alice != bob  # each reviewer has their own
    assert 0.4 < sum(alice) / len(ids) < 0.6 and 0.4 < sum(bob) / len(ids) < 0.6
    differ = sum(a != b for a, b in zip(alice, bob, strict=True))
    assert 0.4 < differ / len(ids) < 0.6  # independent: they differ about half the time
    assert alice != [reviewer_swap(8, "alice", i) for i in ids]  # the study seed counts


def test_per_item_default_keeps_the_items_order(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    study = Study.open(path)
    try:
        assert study.settings.order == "per-item"
        for ref in list_items(study):
            item = get_item(study, ref.id)
            assert seen_by(item, study.settings, "anyone") is item
        settings = study.settings.model_copy(update={"order": "per-reviewer"})
        # a kind without a display order is never swapped
        assert order_for(settings, "r0", "rating", "x", None) is None
    finally:
        study.close()


def test_settings_order_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    monkeypatch.setenv("USER", "lead")
    monkeypatch.setenv("LOGNAME", "lead")
    res = CliRunner().invoke(cli, ["settings", str(path)])
    assert res.exit_code == 0, res.output
    assert "answer order: per-item" in res.output
    res = CliRunner().invoke(cli, ["settings", str(path), "--order", "per-reviewer"])
    assert res.exit_code == 0, res.output
    assert "answer order: per-reviewer" in res.output
    study = Study.open(path)
    try:
        assert study.settings.order == "per-reviewer"
    finally:
        study.close()


@run_async
async def test_app_shows_the_reviewers_order_and_a_stores_their_first_answer(
    tmp_path: Path,
) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    seed = per_reviewer(path)
    # a reviewer who sees p0 the other way round from the item's own (per-item) order
    (login,) = logins(seed, "p0", not item_swap(path, "p0"))
    first, second = ("B", "A") if reviewer_swap(seed, login, "p0") else ("A", "B")
    add_verdicts(path, "p0", dict.fromkeys(PAIRWISE, first))  # the judge picks X's first
    app = make_app(path, reviewer=login, poll_interval=None)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, ReviewScreen)
        assert some(screen.session.item).ext_id == "p0"
        text = screen_text(app)
        assert text.index(f"Answer {first} 0.") < text.index(f"Answer {second} 0.")
        await pilot.press("a", "b", "t", "n", "a", "a")
        await pilot.pause()
        got = labels(path, login)
        assert got[("p0", "correctness")] == first  # a: the answer the reviewer saw first
        assert got[("p0", "helpfulness")] == second
        # the reveal speaks in the reviewer's display letters: the judge chose "A" for them
        assert "judge A" in screen_text(app)
    conn = sqlite3.connect(path)
    try:
        orders = conn.execute(
            "SELECT DISTINCT l.display_order FROM labels l JOIN raters r ON r.id = l.rater_id "
            "WHERE r.name = ?",
            (login,),
        ).fetchall()
        history = conn.execute(
            "SELECT DISTINCT h.display_order FROM label_history h "
            "JOIN raters r ON r.id = h.rater_id WHERE r.name = ?",
            (login,),
        ).fetchall()
    finally:
        conn.close()
    assert orders == history == [(first + second,)]


def test_export_carries_the_order_each_reviewer_saw(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    seed = per_reviewer(path)
    (plain,) = logins(seed, "p0", False)
    (swapped,) = logins(seed, "p0", True)
    study = Study.open(path)
    try:
        item = get_item(study, next(r.id for r in list_items(study) if r.ext_id == "p0"))
        unit = item.unit_for("correctness").id
        for login in (plain, swapped):
            mine = seen_by(item, study.settings, login)
            order = mine.order
            assert order is not None
            set_label(study, unit, login, order[0], display_order=order)
        set_label(study, unit, "no-app", "tie")  # not given in the app: no order seen
        rows = {r["rater"]: r for r in export.rows(study, "labels") if r["item"] == "p0"}
    finally:
        study.close()
    assert rows[plain]["display_order"] == "AB" and rows[plain]["value"] == "A"
    assert rows[swapped]["display_order"] == "BA" and rows[swapped]["value"] == "B"
    # a label stored without an order falls back to the item's own order, as before
    assert rows["no-app"]["display_order"] == item.order


def test_search_names_answers_in_the_reviewers_order(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    seed = per_reviewer(path)
    (plain,) = logins(seed, "p0", False)
    (swapped,) = logins(seed, "p0", True)
    study = Study.open(path)
    try:

        def where(login: str) -> str | None:
            found = search(study, '"Answer A 0"', reviewer=login)
            (hit,) = [h for h in found.hits if h.ext_id == "p0"]
            return next(m.position for m in hit.matches if m.where == "answer")

        assert where(plain) == "A" and where(swapped) == "B"
        lead = search(study, '"Answer A 0"', reveal_sources=True, reviewer=swapped)
        assert next(m.position for h in lead.hits for m in h.matches if m.where == "answer") == "A"
    finally:
        study.close()


def _small_study(tmp_path: Path) -> tuple[Study, dict[str, tuple[int, int]]]:
    """Two reviewers label four items in the orders they saw; returns the hand count per
    reviewer: (won by the answer shown first, decisive labels)."""
    path = build_study(tmp_path, statements=0, rating=0)
    seed = per_reviewer(path)
    study = Study.open(path)
    plan = {  # reviewer → value per item p0..p3 (file letters)
        "ann": ["A", "B", "A", "tie"],
        "bob": ["B", "B", "neither", "A"],
    }
    hand: dict[str, tuple[int, int]] = {}
    for login, values in plan.items():
        first = n = 0
        for i, value in enumerate(values):
            item = get_item(study, next(r.id for r in list_items(study) if r.ext_id == f"p{i}"))
            order = "BA" if reviewer_swap(seed, login, item.ext_id) else "AB"
            set_label(study, item.unit_for("correctness").id, login, value, display_order=order)
            if value in ("A", "B"):
                n += 1
                first += value == order[0]
        hand[login] = (first, n)
    return study, hand


def test_report_reviewer_position_equals_a_hand_count(tmp_path: Path) -> None:
    study, hand = _small_study(tmp_path)
    try:
        orders = {
            r[0]
            for r in study.conn.execute(
                "SELECT display_order FROM labels WHERE display_order IS NOT NULL"
            )
        }
        assert orders == {"AB", "BA"}  # the figure needs orders that vary
        section = judges_section(study, load_study_data(study))
        assert section.reviewer_position is not None
        got = {r.reviewer: r.first_shown_wins for r in section.reviewer_position}
        for login, (first, n) in hand.items():
            assert (got[login].count, got[login].n) == (first, n)
            assert got[login].value == first / n
            low = got[login].ci_low
        assert low is not None and low <= first / n
        pooled = got[POOLED]
        assert pooled.count == sum(f for f, _ in hand.values())
        assert pooled.n == sum(n for _, n in hand.values())
        report = build_report(study, ReportOptions())
        md = render(report, "md")
        assert "Reviewers: answer shown first wins" in md
        assert "Reviewers: answer shown first wins" in render(report, "html")
        doc = json.loads(render(report, "json"))
        assert {r["reviewer"] for r in doc["judges"]["reviewer_position"]} == {
            "ann",
            "bob",
            POOLED,
        }
        csv_rows = [
            line for line in render(report, "csv").splitlines() if "reviewer_position" in line
        ]
        assert len(csv_rows) == 3 and all("first_shown_wins" in line for line in csv_rows)
    finally:
        study.close()


def test_report_leaves_the_figure_out_without_recorded_orders(tmp_path: Path) -> None:
    path = build_study(tmp_path, statements=0, rating=0)
    study = Study.open(path)
    try:
        for ref in list_items(study):
            unit = get_item(study, ref.id).unit_for("correctness").id
            set_label(study, unit, "ann", "A")  # no order recorded (as imports and the API)
        report = build_report(study, ReportOptions())
        assert report.judges.reviewer_position is None
        assert "reviewer_position" not in json.loads(render(report, "json"))["judges"]
        assert "reviewer_position" not in render(report, "csv")
    finally:
        study.close()
