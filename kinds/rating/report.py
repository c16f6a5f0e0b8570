"""The rating kind's report section: each rater's mean rating per scaled criterion, over all
models and per model (:func:`medjudge.judging.analysis.metrics.rating_means`), in every report
format (JSON ``ratings``, Markdown, HTML, CSV ``rating_mean``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.metrics import rating_means
from medjudge.judging.analysis.records import SourceMean
from medjudge.judging.analysis.records_sections import RatingRow
from medjudge.judging.report.cells import Count, Est, Number, Table, Text, make_columns, make_table
from medjudge.judging.report.kind_sections import KindSection, SectionInputs


def build(inputs: SectionInputs) -> list[RatingRow]:
    """The rating means (empty: no scaled criterion has a label)."""
    return rating_means(inputs.data, inputs.confidence)


def notes(recs: Sequence[RatingRow]) -> list[str]:
    """None: the table says it all."""
    return []


def tables(recs: Sequence[RatingRow]) -> list[Table]:
    """Rating means per criterion and rater, over all models and per model."""
    columns = make_columns(
        "Criterion", "Rater", "Model", "n", "Mean [95% CI]", "SD", numeric=(3, 4, 5)
    )
    rows = (
        (Text(r.criterion), Text(r.rater), Text(s.source), Count(s.n), Est(s), Number(s.sd))
        for r in recs
        for s in [SourceMean(source="all models", **r.overall.model_dump()), *r.sources]
    )
    return [make_table("Rating means", columns, rows)]


def csv_rows(recs: Sequence[RatingRow]) -> Iterator[list[str]]:
    """``rating_mean`` rows: each rater's mean per criterion, over all models (slice ``all``)
    and per model."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for rr in recs:
        yield figure_row("rating_mean", rr.criterion, "all", rr.rater, None, "mean", rr.overall)
        for sm in rr.sources:
            yield figure_row(
                "rating_mean", rr.criterion, f"source={sm.source}", rr.rater, sm.source, "mean", sm
            )


AUDIT = audit_forms.SCORES
"""The judge audit's form of the kind: each criterion's numeric label, averaged per source."""

SECTIONS = (
    KindSection(
        key="ratings",
        title="Rating means",
        record=RatingRow,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
        always_in_json=True,
        many=True,
        csv_section="rating_mean",
    ),
)
"""The kind's report sections."""
