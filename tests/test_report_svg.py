"""The HTML report's charts (inline SVG) show study text like the rest of the page does.

Every text of a chart — labels, ``<title>`` tooltips, headings and the ``aria-label`` — is
autoescaped, and control characters (ESC sequences, BEL, C1 controls) and bidi overrides are
made visible by the same filter as the page's tables (``format_html.text``). A reviewer or judge
named with a terminal escape or a right-to-left override is shown as ``\\x1b`` / ``<U+202E>``,
never written raw into a tooltip.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.report.chart_shapes import Chart, Dot, Label, Rect
from medjudge.judging.report.templating import macro
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.escapes import inert
from .support.kind_rows import pairwise_row, write_jsonl
from .support.match import match_study
from .support.trails import CONFIG, pairwise_trail

cli = CliRunner()
REVIEWER = "dr\x1b]0;pwned\x07<b>x</b>\u202e\u2066\x9b2J"
JUDGE = "openai:j\x1b[2J\u202dx"


def _charts(page: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", page, flags=re.S)


def _report(study: Path, tmp_path: Path) -> list[str]:
    out = tmp_path / "r.html"
    r = cli.invoke(app, ["report", str(study), "-f", "html", "-o", str(out), "--n-boot", "100"])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    assert not inert(page), inert(page)
    charts = _charts(page)
    assert charts
    for chart in charts:
        assert not inert(chart), (inert(chart), chart[:2000])
        assert "<b>" not in chart  # markup in a name is text
    return charts


def test_reviewer_vs_judge_tooltips(tmp_path: Path) -> None:
    """One reviewer and one judge: the κ chart's dot carries "REVIEWER vs JUDGE: κ" as its
    tooltip — with both hostile names."""
    rnd = random.Random(3)
    s = Study.create(tmp_path / "s.db", actor="lead")
    import_file(
        s,
        write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(12)]),
        "pairwise",
        actor="lead",
    )
    verdicts = []
    for ref in list_items(s):
        for unit in get_item(s, ref.id).units:
            if unit.criterion != "correctness":
                continue
            truth = rnd.choice(["A", "B"])
            set_label(s, unit.id, REVIEWER, truth)
            votes = [truth if rnd.random() < 0.8 else "tie"] * 3
            value, trail = pairwise_trail(s, unit.criterion, votes, votes, judge=JUDGE)
            verdicts.append(NewVerdict(unit.id, value, "r", trail))
    write_verdicts(s, JUDGE, {**CONFIG, "spec": JUDGE}, verdicts, run_id=None, actor="lead")
    s.close()
    charts = _report(tmp_path / "s.db", tmp_path)
    tips = [t for c in charts for t in re.findall(r"<title>(.*?)</title>", c, flags=re.S)]
    shown = r"dr\x1b]0;pwned\x07&lt;b&gt;x&lt;/b&gt;&lt;U+202E&gt;&lt;U+2066&gt;\x9b2J"
    assert any(shown in t and "vs openai:j" in t and "(n = " in t for t in tips), tips


def test_medrgb_chart_titles(tmp_path: Path) -> None:
    """A MedRGB chart is headed (and named, aria-label) by its rater: here a judge."""
    (tmp_path / "m").mkdir()
    s = match_study(tmp_path / "m")
    units = [u for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'match'")]
    verdicts = [NewVerdict(u, "1" if i % 2 else "0", "r", {}) for i, u in enumerate(units)]
    write_verdicts(s, JUDGE, {**CONFIG, "spec": JUDGE}, verdicts, run_id=None, actor="lead")
    path = s.path
    s.close()
    charts = _report(path, tmp_path)
    title = "Mean score by p — openai:j\\x1b[2J&lt;U+202D&gt;x"
    assert any(f'aria-label="{title}"' in c and f">{title}</text>" in c for c in charts), [
        re.findall(r'aria-label="[^"]*"', c) for c in charts
    ]


def test_every_chart_text_goes_through_the_page_filter() -> None:
    """The template, not each chart function, neutralises: a shape whose texts were never
    made printable is still drawn inert."""
    raw = "x\x1b[31m\u202ey\x07"
    chart = Chart(
        100,
        50,
        f"title {raw}",
        (
            Label(1, 2, f"label {raw}", tip=f"tip {raw}"),
            Rect(1, 2, 3, 4, "#fff", tip=f"rect {raw}"),
            Dot(1, 2, 3, "#000", f"dot {raw}"),
        ),
    )
    svg = macro("_charts.html.j2", "chart")(chart)
    assert not inert(svg), inert(svg)
    for what in ("title", "label", "tip", "rect", "dot"):
        assert f"{what} x\\x1b[31m&lt;U+202E&gt;y\\x07" in svg, (what, svg)
