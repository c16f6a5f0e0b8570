"""One statistic, one value and one interval: the CLI, the study report and the app agree.

The same labels are read three ways — `medjudge agreement` on the study's wide export (with the
criterion's categories declared), `medjudge report -f json`, and the review app's agreement
detail driven by Pilot — and every figure must be the same number with the same interval.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from typer.testing import CliRunner

from medjudge.cli import app as cli_app
from medjudge.judging.analysis.live import LiveAgreement
from medjudge.judging.stats import figures
from medjudge.judging.stats.estimates import METHOD_TEXT, Estimate
from medjudge.store.labels import set_label
from medjudge.store.study import Study
from medjudge.tui.agreement_screen import AgreementScreen
from medjudge.tui.app import make_app
from medjudge.tui.overview_screen import OverviewScreen

from .support.studies import small_study
from .support.tui import current, run_async, screen_text

cli = CliRunner()
PW = "A,B,tie,neither"
REVIEWERS = ("ann", "bob", "cy")


def _labelled(tmp_path: Path) -> Path:
    path = tmp_path / "surfaces.db"
    s = small_study(path, pairwise=30, statements=0)
    s.save_settings(s.settings.model_copy(update={"allow_reviewer_override": True}), actor="t")
    rng = random.Random(11)
    units = [
        r[0]
        for r in s.conn.execute(
            "SELECT id FROM units WHERE criterion = 'correctness' ORDER BY id"
        ).fetchall()
    ]
    for u in units:
        truth = rng.choice(["A", "A", "B", "B", "tie"])
        for who in REVIEWERS:
            if who == "cy" and rng.random() < 0.3:
                continue  # unequal overlaps: cy labels about 70% of the units
            value = truth if rng.random() < 0.75 else rng.choice(["A", "B", "tie", "neither"])
            set_label(s, u, who, value)
    s.close()
    return path


def _est(d: dict[str, Any]) -> Estimate:
    return Estimate(d["value"], d["ci_low"], d["ci_high"], d["n"], d["reason"], d["method"])


async def _until(
    pilot: Pilot[None], condition: Callable[[], object], timeout: float = 120.0
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


@run_async
async def test_cli_report_and_app_give_the_same_value_and_interval(tmp_path: Path) -> None:
    path = _labelled(tmp_path)
    wide = tmp_path / "wide.csv"
    r = cli.invoke(cli_app, ["export", str(path), "labels", "--wide", "-f", "csv", "-o", str(wide)])
    assert r.exit_code == 0, r.output
    r = cli.invoke(
        cli_app,
        ["agreement", str(wide), "-r", ",".join(REVIEWERS), "--unit", "unit", "--by", "criterion"]
        + ["--categories", PW, "--json"],
    )
    assert r.exit_code == 0, r.output
    ours = next(s for s in json.loads(r.stdout)["slices"] if s["slice"] == "correctness")["stats"]
    report = json.loads(cli.invoke(cli_app, ["report", str(path), "-f", "json"]).stdout)
    crit = next(c for c in report["criteria"] if c["name"] == "correctness")
    records = {
        (c["view"], c["rater_a"], c["rater_b"]): c
        for c in crit["comparisons"]
        if c["ties"] == "with" and c["slice"] == "all"
    }

    # Three or more reviewers: pooled pairwise agreement, Fleiss, α, Randolph, unanimous.
    multi = records[("reviewers", "3 reviewers", None)]["metrics"]
    shown = figures.keys("multi", ours["scale"])
    assert "krippendorff_alpha" in shown and "fleiss" in shown
    for name in shown:
        if ours[name] is not None or name in multi:
            assert _est(ours[name]) == _est(multi[name]), name
    # Every pair: the two-rater figures, AC1 included (it depends on the category set).
    for pair in ours["pairwise"]:
        theirs = records[("human_human", pair["rater_a"], pair["rater_b"])]["metrics"]
        for name in figures.keys("two", ours["scale"]):
            assert _est(pair[name]) == _est(theirs[name]), (pair["rater_a"], name)

    # The app: its overview row is the pooled pairwise agreement, its detail the same text.
    study = Study.open(path)
    live = LiveAgreement(study)
    row = next(x for x in live.rows() if x.criterion == "correctness")
    assert row.human_human.value == multi["mean_pairwise_percent"]["value"]
    assert row.human_kappa.value == multi["fleiss"]["value"]
    study.close()

    app = make_app(path, reviewer="ann", poll_interval=None)
    async with app.run_test(size=(120, 45)) as pilot:
        await pilot.press("o")
        await _until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        from textual.widgets import DataTable

        table = app.screen.query_one("#ov-agreement", DataTable)
        await _until(pilot, lambda: table.row_count > 0)
        table.focus()
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, AgreementScreen) and app.screen.pair)
        await _until(pilot, lambda: "Gwet's AC1" in screen_text(app))
        pair = tuple(current(app, AgreementScreen).pair)
        theirs = records[("human_human", *pair)]["metrics"]
        text = screen_text(app)
        for f in figures.of_group("two", "nominal"):
            assert f.app, f.key  # every two-rater figure of a nominal scale is in the detail
            figure = _est(theirs[f.key]).format(2, flag=False)
            assert f.label in text, f.label
            assert figure in text, (name, figure)


def test_every_figure_has_a_documented_interval_method_and_one_label() -> None:
    from medjudge.judging.stats.conventions import INTERVAL_METHODS, STATISTICS

    methods_text = " ".join(STATISTICS)
    for f in figures.FIGURES:
        assert f.interval in METHOD_TEXT, f.key
        assert INTERVAL_METHODS[f.key] == f.interval, f.key
        assert f.label, f.key
    # a key in two groups (ICC) is one figure: one label, one method
    for key in {f.key for f in figures.FIGURES}:
        assert len({(f.label, f.interval) for f in figures.FIGURES if f.key == key}) == 1, key
    assert "BCa" in methods_text and "Wilson" in methods_text


def test_the_two_rater_result_and_the_registry_name_the_same_figures() -> None:
    from medjudge.judging.stats.agreement.core import two_rater_stats

    for level in ("nominal", "ordinal", "interval"):
        s = two_rater_stats([1, 2, 3, 2, 1, 3], [1, 2, 3, 3, 1, 2], scale=level).to_dict()
        computed = {k for k, v in s.items() if isinstance(v, dict) and "value" in v}
        assert computed == set(figures.keys("two", level)), level
