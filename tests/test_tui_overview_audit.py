"""The judge audit in the app's overview: with a recorded random sample the overview shows
one row per corrected figure (judge only, physicians only, corrected, with intervals) — the
same figures as the report — and without one no audit table at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from medjudge.tui.app import make_app
from medjudge.tui.overview_screen import OverviewScreen

from .support.audit import build, invoke
from .support.tui import run_async, screen_text, until


def _cell(fig: dict[str, Any], pct: bool) -> str:
    def f(x: float) -> str:
        return f"{x * 100:.0f}" if pct else f"{x:.2f}"

    return f"{f(fig['value'])}{'%' if pct else ''} [{f(fig['ci_low'])}, {f(fig['ci_high'])}]"


async def _overview(app: Any, pilot: Any) -> DataTable[Any]:
    await pilot.press("o")
    await until(pilot, lambda: isinstance(app.screen, OverviewScreen), "the overview")
    await app.workers.wait_for_complete()
    await pilot.pause()
    table: DataTable[Any] = app.screen.query_one("#ov-audit", DataTable)
    return table


@run_async
async def test_overview_shows_the_corrected_figures(tmp_path: Path) -> None:
    db, *_ = build(tmp_path)
    invoke("settings", str(db), "--allow-reviewer-override")
    report = json.loads(invoke("report", str(db), "-f", "json", "--n-boot", "100").stdout)
    (crit,) = report["audit"]["criteria"]
    app = make_app(db, reviewer="drchen", poll_interval=None)
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _overview(app, pilot)
        await until(pilot, lambda: table.row_count > 0, "the audit rows")
        assert table.display
        rows = {
            str(table.get_row_at(i)[1]): [str(c) for c in table.get_row_at(i)]
            for i in range(table.row_count)
        }
        # win, tie, loss per model and the paired difference: one row each
        assert len(rows) == 2 * 3 + 1
        for source in crit["sources"]:
            for outcome in ("win", "tie", "loss"):
                f = source[outcome]
                row = rows[f"{source['source']} {outcome}"]
                assert row[0] == "overall"
                assert row[2:] == [
                    _cell(f["judge_only"], True),
                    _cell(f["physicians_only"], True),
                    _cell(f["corrected"], True),
                ]
        diff = crit["differences"][0]["win_difference"]
        assert rows["model-x − model-y win"][4] == _cell(diff["corrected"], False)
        assert "Judge audit: corrected figures" in screen_text(app)


@run_async
async def test_no_sample_no_audit_table(tmp_path: Path) -> None:
    db, *_ = build(tmp_path, sample=False)
    invoke("settings", str(db), "--allow-reviewer-override")
    app = make_app(db, reviewer="drchen", poll_interval=None)
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _overview(app, pilot)
        assert table.row_count == 0 and not table.display
        assert "Judge audit" not in screen_text(app)
