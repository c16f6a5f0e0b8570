"""The report's tables are defined once (tables, section_tables) and only formatted by the
Markdown and HTML templates."""

from __future__ import annotations

from typing import Any

import pytest

from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records import Share as ShareFigure
from medjudge.judging.report import kind_sections
from medjudge.judging.report import section_tables as st
from medjudge.judging.report import tables as tb
from medjudge.judging.report.build import ReportOptions, build_report
from medjudge.judging.report.cells import (
    ByFormat,
    Code,
    Column,
    Concat,
    Count,
    Est,
    Label,
    Share,
    Table,
    Text,
    plain,
)
from medjudge.judging.report.model import Report
from medjudge.judging.report.render.md import STYLE as MD
from medjudge.judging.report.templating import macro
from medjudge.store.study import Study

from .support.rich_study import EVIL, NOW, build_rich_study


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = build_rich_study(tmp_path_factory.mktemp("tables"))
    with Study.open(path) as s:
        return build_report(s, ReportOptions(n_boot=50), now=NOW)


def _tables(report: Report) -> list[Table]:
    out = [
        tb.summary(report),
        st.adjudicated(report),
        st.reference(report),
        st.consistency(report),
        *(t for section, rec in kind_sections.present(report) for t in section.tables(rec)),
        st.judges(report.protocol),
        st.templates(report.protocol),
        st.judge_effort(report.effort),
        st.reviewer_effort(report.effort),
    ]
    assert kind_sections.record(report, "kqa") is not None
    for c in report.criteria:
        out += [tb.comparisons(c, tb.comparison_records(c)), tb.slices(c)]
        multi = tb.group_comparison(c)
        if multi is not None:
            out += [tb.reviewer_figures(multi)]
        out.append(tb.judge_scores(c))
    return out


def test_every_row_fits_its_columns_and_figures_are_not_text(report: Report) -> None:
    tables = _tables(report)
    assert all(t.rows for t in tables[:11])  # the rich study fills every report-wide table
    assert sum(bool(t.rows) for t in tables) > 30
    for t in tables:
        for row in t.rows:
            assert len(row) == len(t.columns), t.title
            for i in t.numeric_columns:
                assert not isinstance(row[i], (Text, Code, Label)), (t.title, row[i])
        if t.groups:
            assert sum(n for _, n in t.groups) == len(t.columns), t.title


def test_cells_are_formatted_per_format() -> None:
    html = macro("_tables.html.j2", "cell")
    kw: dict[str, Any] = {"value": 0.5, "ci_low": 0.25, "ci_high": 0.75, "n": 8, "reason": None}
    kw |= {"method": "wilson", "se": None, "unstable": True}
    est, share = Figure(**kw), ShareFigure(**kw, count=4)
    assert MD.cell(Text(EVIL)) == r"\<script\>alert(1)\</script\>"
    assert html(Text(EVIL)) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert html(Text("\x1b[2J")) == "\\x1b[2J"  # control characters made visible
    assert html(Code("a|b")) == "<code>a|b</code>" and MD.cell(Code("a|b")) == r"a\|b"
    assert MD.cell(Est(est, pct=True, note="x")) == "50.0%† [25.0, 75.0] (x)"
    assert html(Est(est)) == "0.50†<small>[0.25, 0.75]</small>"
    assert html(Est(est, note="<b>")) == "0.50†<small>[0.25, 0.75]</small><small>&lt;b&gt;</small>"
    assert MD.cell(Share(share)) == "4/8 = 50.0%† [25.0, 75.0]"
    assert html(Share(share)) == "50.0%<small>4/8 · [25.0, 75.0]</small>"
    assert MD.cell(Concat((Text("a_"), Label(" vs it's")))) == r"a\_ vs it's"
    both = ByFormat(Count(1234, grouped=False), Count(1234))
    assert (MD.cell(both), html(both)) == ("1234", "1,234")
    assert plain(Count(None)) == "–"
    with pytest.raises(TypeError):
        plain(Text("x"))


def test_one_table_in_both_formats() -> None:
    t = Table(
        "t",
        (Column("Rater"), Column("Long name", True, "Short")),
        ((Text("a|`b`"), Count(12_345)),),
        (("", 1), ("Group", 1)),
    )
    md_table, html_table = macro("_tables.md.j2", "table"), macro("_tables.html.j2", "table")
    assert md_table(t) == "| Rater | Long name |\n|---|---|\n" + r"| a\|\`b\` | 12,345 |" + "\n\n"
    html = html_table(t)
    assert '<th class="num">Short</th>' in html and '<td class="num">12,345</td>' in html
    assert '<th colspan="1" class="group">Group</th>' in html
    assert md_table(Table("t", (Column("x"),), ())) == "_(none)_\n\n"
    assert html_table(Table("t", (Column("x"),), ())) == '<p class="muted">None.</p>'
