"""The pairwise kind's report sections, in every report format: each model's win / tie / loss /
neither shares per criterion and rater (:func:`medjudge.judging.analysis.metrics.win_rates`:
JSON ``win_rates``, HTML ``wins`` with a stacked chart, CSV ``win_rate``), and, with three
or more models, their Bradley–Terry ranking for the physicians and each judge, with Kendall's
τ between them (:mod:`medjudge.judging.analysis.model_ranking`: JSON ``model_ranking``, CSV
``model_ranking``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.metrics import win_rates
from medjudge.judging.analysis.model_ranking import NOTE as RANKING_NOTE
from medjudge.judging.analysis.model_ranking import RaterRanking, model_rankings
from medjudge.judging.analysis.records_sections import WinRateRow
from medjudge.judging.report.cells import (
    Count,
    Est,
    Number,
    Table,
    Text,
    make_columns,
    make_table,
)
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


def build_ranking(inputs: SectionInputs) -> list[RaterRanking]:
    """The rankings (empty: no pairwise criterion with three or more models)."""
    return model_rankings(
        inputs.data, n_boot=inputs.n_boot, seed=inputs.seed, confidence=inputs.confidence
    )


def ranking_notes(recs: Sequence[RaterRanking]) -> list[str]:
    """How the strengths are made, and each ranking that is undefined, with why."""
    undefined = [f"{r.criterion}, {r.rater}: {r.reason}" for r in recs if r.reason]
    return [RANKING_NOTE, *undefined]


def ranking_tables(recs: Sequence[RaterRanking]) -> list[Table]:
    """Each ranking, best first; then each judge's Kendall's τ with the physicians'."""
    columns = make_columns(
        "Criterion", "Rater", "Model", "Rank", "Strength", "Wins", "Comparisons",
        numeric=range(3, 7),
    )  # fmt: skip
    rows = (
        (
            Text(r.criterion),
            Text(r.rater),
            Text(c.candidate),
            Count(c.rank),
            Est(c.strength),
            Number(c.wins, 1),
            Count(c.comparisons),
        )
        for r in recs
        for c in r.candidates
    )
    tables = [make_table("Model ranking (Bradley–Terry)", columns, rows)]
    taus = [r for r in recs if r.tau_vs_physicians is not None]
    if taus:
        tau_columns = make_columns("Criterion", "Judge", "Kendall's τ", "Questions", numeric=(2, 3))
        tau_rows = (
            (Text(r.criterion), Text(r.rater), Est(r.tau_vs_physicians), Count(r.questions))
            for r in taus
        )
        tables.append(
            make_table("Judge ranking vs the physicians' (Kendall's τ-b)", tau_columns, tau_rows)
        )
    return tables


def ranking_csv_rows(recs: Sequence[RaterRanking]) -> Iterator[list[str]]:
    """``model_ranking`` rows: metric ``strength`` per model (with ``rank`` and ``wins``), and
    ``kendall_tau`` per judge against the physicians."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for r in recs:
        row = partial(figure_row, "model_ranking", r.criterion, "all", r.rater)

        for c in r.candidates:
            yield row(c.candidate, "strength", est=c.strength)
            yield row(c.candidate, "rank", value=c.rank, n=c.comparisons)
            yield row(c.candidate, "wins", value=c.wins, n=c.comparisons)
        if r.tau_vs_physicians is not None:
            yield row("physicians", "kendall_tau", est=r.tau_vs_physicians)


AUDIT = audit_forms.SHARES
"""The judge audit's form of the kind: each source's win / tie / loss share per unit."""

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
    KindSection(
        key="model_ranking",
        title="Model ranking (pairwise, Bradley–Terry)",
        record=RaterRanking,
        build=build_ranking,
        notes=ranking_notes,
        tables=ranking_tables,
        csv_rows=ranking_csv_rows,
        many=True,
    ),
)
"""The kind's report sections."""
