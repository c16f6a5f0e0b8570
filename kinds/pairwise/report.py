"""The pairwise kind's report section: each model's win / tie / loss / neither shares per
criterion and rater (:func:`medjudge.judging.analysis.metrics.win_rates`), in every report
format (JSON ``win_rates``, Markdown, HTML ``wins`` with a stacked chart, CSV ``win_rate``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from medjudge.judging.analysis.metrics import win_rates
from medjudge.judging.analysis.records_sections import WinRateRow
from medjudge.judging.report.cells import Count, Est, Table, Text, make_columns, make_table
from medjudge.judging.report.chart_shapes import Chart
from medjudge.judging.report.charts import stacked
from medjudge.judging.report.kind_sections import KindSection, SectionInputs

OUTCOMES = ("win", "tie", "neither", "loss")
"""The chart's parts, in order."""


def build(inputs: SectionInputs) -> list[WinRateRow]:
    """The win rates (empty: no pairwise labels)."""
    return win_rates(inputs.data, inputs.confidence)


def notes(recs: Sequence[WinRateRow]) -> list[str]:
    """How wins are counted, once per criterion."""
    seen = dict.fromkeys((r.criterion, r.note) for r in recs)
    return [f"{criterion}: {note}" for criterion, note in seen]


def charts(recs: Sequence[WinRateRow]) -> list[Chart]:
    """Win / tie / neither / loss per model: the reviewers' majority (where there is one)
    and the judges; the table under it has every rater."""
    rows = []
    for r in recs:
        if r.rater_kind == "human" and any(
            x.rater_kind == "majority" for x in recs if x.criterion == r.criterion
        ):
            continue
        for s in r.sources:
            shares = {o: getattr(s, o).value or 0.0 for o in OUTCOMES}
            rows.append((r.criterion, f"{r.rater} · {s.source}", shares, s.n))
    if not rows:
        return []
    title = "Win / tie / neither / loss per model (risk criteria: chosen as worse = loss)"
    return [stacked(rows, OUTCOMES, title=title)]


def tables(recs: Sequence[WinRateRow]) -> list[Table]:
    """Win / tie / loss / neither shares per criterion, rater and model."""
    columns = make_columns(
        "Criterion", "Rater", "Model", "n", "Win", "Tie", "Loss", "Neither", numeric=range(3, 8)
    )
    rows = (
        (
            Text(r.criterion),
            Text(r.rater),
            Text(s.source),
            Count(s.n),
            Est(s.win, pct=True),
            Est(s.tie, pct=True),
            Est(s.loss, pct=True),
            Est(s.neither, pct=True),
        )
        for r in recs
        for s in r.sources
    )
    return [make_table("Win rates", columns, rows)]


def csv_rows(recs: Sequence[WinRateRow]) -> Iterator[list[str]]:
    """``win_rate`` rows: per criterion, rater and model, metric ``win`` / ``tie`` / ``loss`` /
    ``neither``."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for w in recs:
        for s in w.sources:
            for o in ("win", "tie", "loss", "neither"):
                yield figure_row(
                    "win_rate",
                    w.criterion,
                    f"source={s.source}",
                    w.rater,
                    s.source,
                    o,
                    getattr(s, o),
                )


SECTIONS = (
    KindSection(
        key="win_rates",
        title="Win rates (pairwise)",
        record=WinRateRow,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
        charts=charts,
        always_in_json=True,
        many=True,
        anchor="wins",
        csv_section="win_rate",
        folded="Every rater, with 95% Wilson intervals",
    ),
)
"""The kind's report sections."""
