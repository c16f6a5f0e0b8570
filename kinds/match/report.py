"""The match kind's report section (MedRGB): each rater's mean score against the ground truth
by model, test and p, and the abstentions by p (:mod:`medjudge.judging.analysis.medrgb`), in
every report format (JSON ``medrgb``, Markdown, HTML with a score-by-p chart per rater, CSV
``medrgb``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.medrgb import match_figures
from medjudge.judging.analysis.records_sections import MedrgbSection
from medjudge.judging.report.cells import (
    Cell,
    Count,
    Est,
    Label,
    Table,
    Text,
    make_columns,
    make_table,
)
from medjudge.judging.report.chart_shapes import Chart
from medjudge.judging.report.charts import lines
from medjudge.judging.report.kind_sections import KindSection, SectionInputs
from medjudge.store.literal import plural

NOTE = (
    "Each prediction is scored against the ground truth: 1 = it matches, 0.5 = it matches "
    "part of it and is relevant, 0 = wrong or irrelevant (MedRGB). Means with 95% BCa "
    "intervals per rater; predictions that decline to answer (a decline phrase, and no rater "
    "scored them above 0) are abstentions, left out of the means, counted apart and listed "
    "under 'Excluded from the figures'."
)


def build(inputs: SectionInputs) -> MedrgbSection | None:
    """The MedRGB figures (None: no match items)."""
    return match_figures(
        inputs.data, n_boot=inputs.n_boot, seed=inputs.seed, confidence=inputs.confidence
    )


def notes(m: MedrgbSection) -> list[str]:
    """What the figures mean, and how many predictions there are."""
    counts = f"{plural(m.predictions, 'prediction')}, {plural(m.abstentions, 'abstention')}."
    return [NOTE, counts]


def charts(m: MedrgbSection) -> list[Chart]:
    """Mean MedRGB score by p, one chart per rater, one line per model."""
    return [
        lines(
            [(c.source, [(str(p.key), p) for p in c.points]) for c in r.chart],
            title=f"Mean score by p — {r.rater}",
            x_label="p: share of signal documents in the context (%)",
        )
        for r in m.raters
        if any(c.points for c in r.chart)
    ]


def medrgb(m: MedrgbSection) -> Table:
    """MedRGB: each rater's mean score by source model, test and p (BCa intervals)."""
    rows: list[tuple[Cell, ...]] = []
    for r in m.raters:
        groups = (("all", [r.overall]), ("model", r.by_source), ("test", r.by_test))
        for dim, records in (*groups, ("p", r.by_p)):
            for rec in records:
                rows.append((Text(r.rater), Label(dim), Text(str(rec.key)), Count(rec.n), Est(rec)))
    columns = make_columns("Rater", "By", "Value", "n", "Mean score [95% CI]", numeric=(3, 4))
    return make_table("Mean score against the ground truth (1 / 0.5 / 0)", columns, rows)


def medrgb_abstentions(m: MedrgbSection) -> Table:
    """MedRGB: the share of predictions that decline to answer, per p."""
    rows = (
        (Text(str(a.key)), Count(a.n), Count(a.count), Est(a, pct=True)) for a in m.abstention_by_p
    )
    columns = make_columns("p", "Predictions", "Abstentions", "Share [95% CI]", numeric=(1, 2, 3))
    return make_table("Abstentions (insufficient information) by p", columns, rows)


def tables(m: MedrgbSection) -> list[Table]:
    """The section's tables."""
    return [medrgb(m), medrgb_abstentions(m)]


def csv_rows(m: MedrgbSection) -> Iterator[list[str]]:
    """``medrgb`` rows: each rater's mean score by source, test and p; abstentions by p."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for mr in m.raters:
        for dim, recs in (("source", mr.by_source), ("test", mr.by_test), ("p", mr.by_p)):
            for rec in recs:
                yield figure_row(
                    "medrgb",
                    "match",
                    f"{dim}={rec.key}",
                    mr.rater,
                    None,
                    "mean_score",
                    rec,
                )
        yield figure_row("medrgb", "match", "all", mr.rater, None, "mean_score", mr.overall)
    for a in m.abstention_by_p:
        yield figure_row("medrgb", "match", f"p={a.key}", None, None, "abstention_share", a)


AUDIT = audit_forms.SCORES
"""The judge audit's form of the kind: each criterion's numeric label, averaged per source."""

SECTIONS = (
    KindSection(
        key="medrgb",
        title="MedRGB: predictions against the ground truth",
        record=MedrgbSection,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
        charts=charts,
        always_in_json=True,
    ),
)
"""The kind's report sections."""
