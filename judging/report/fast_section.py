"""The report's "Too-fast labels" section (``settings --fast-rule``): the rule in words, the
flagged items by reviewer, and each reviewer pair's agreement with and without the flagged
labels (:mod:`medjudge.judging.analysis.fast_labels`), in every format (JSON ``fast_labels``,
``null`` without a rule; Markdown, HTML, CSV ``fast_labels``). A study-wide section declared
as the kinds declare theirs (:class:`.kind_sections.KindSection`), so every format draws it.
"""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.analysis.fast_labels import FastLabelsSection, FigureOptions, fast_section
from medjudge.judging.analysis.records import Record

from .cells import Count, Est, Number, Table, Text, make_columns, make_table
from .kind_sections import KindSection, SectionInputs


def build(inputs: SectionInputs) -> Record | None:
    """The section's figures (None: no rule set)."""
    opts = FigureOptions(inputs.confidence, inputs.n_boot, inputs.seed)
    return fast_section(inputs.study, inputs.data, opts)


def notes(rec: FastLabelsSection) -> list[str]:
    """The rule, what it flags, and who was not judged."""
    out = [
        rec.rule,
        f"The rule flags {len(rec.flagged):,} item(s) holding {rec.labels:,} label(s); they "
        "stay in every other figure of the report (medjudge requeue --fast sends them back to "
        "their reviewers). A reviewer fast on every item is not flagged (their own median is "
        "then the smaller one): compare the reviewers' medians under Effort.",
    ]
    if rec.not_judged:
        out.append(
            "Not judged (fewer than "
            f"{rec.min_timed} timed items of the kind): "
            + "; ".join(f"{n.reviewer} on {n.kind} ({n.timed_items})" for n in rec.not_judged)
            + "."
        )
    return out


def tables(rec: FastLabelsSection) -> list[Table]:
    """The flagged items, and the agreement with and without them."""
    flagged = make_table(
        "Too-fast items",
        make_columns(
            "Reviewer",
            "Item",
            "Kind",
            "Seconds",
            "Reviewer median (s)",
            "Team median (s)",
            "Labels",
            numeric=(3, 4, 5, 6),
        ),
        (
            (
                Text(f.reviewer),
                Text(f.item),
                Text(f.kind),
                Number(f.seconds, 1),
                Number(f.reviewer_median_s, 1),
                Number(f.team_median_s, 1),
                Count(f.labels),
            )
            for f in rec.flagged
        ),
    )
    agreement = make_table(
        "Reviewer agreement with and without the too-fast labels",
        make_columns(
            "Criterion",
            "Reviewers",
            "n (all)",
            "Percent (all)",
            "Cohen's κ (all)",
            "n (without)",
            "Percent (without)",
            "Cohen's κ (without)",
            numeric=(2, 3, 4, 5, 6, 7),
        ),
        (
            (
                Text(r.criterion),
                Text(f"{r.rater_a} vs {r.rater_b}"),
                Count(r.percent_all.n),
                Est(r.percent_all, pct=True),
                Est(r.cohen_all),
                Count(r.percent_kept.n),
                Est(r.percent_kept, pct=True),
                Est(r.cohen_kept),
            )
            for r in rec.agreement
        ),
    )
    return [flagged, agreement]


def csv_rows(rec: FastLabelsSection) -> Iterator[list[str]]:
    """``fast_labels`` rows: each flagged item's seconds (slice ``item=ID``), then each pair's
    figures (slice ``all`` and ``without_fast``)."""
    from .render.csv_rows import figure_row

    for f in rec.flagged:
        yield figure_row(
            "fast_labels",
            None,
            f"item={f.item}",
            f.reviewer,
            None,
            "seconds",
            value=f.seconds,
            n=f.labels,
        )
    for r in rec.agreement:
        for slice_, pct, kappa in (
            ("all", r.percent_all, r.cohen_all),
            ("without_fast", r.percent_kept, r.cohen_kept),
        ):
            yield figure_row(
                "fast_labels", r.criterion, slice_, r.rater_a, r.rater_b, "percent", pct
            )
            yield figure_row(
                "fast_labels", r.criterion, slice_, r.rater_a, r.rater_b, "cohen", kappa
            )


SECTIONS = (
    KindSection(
        key="fast_labels",
        title="Too-fast labels",
        record=FastLabelsSection,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
        always_in_json=True,
    ),
)
"""The study-wide sections declared like a kind's."""
