"""The rubric kind's report section (HealthBench): each rater's rubric scores by model and tag,
and each judge's grading against the physicians' (:mod:`medjudge.judging.analysis.rubric`), in
every report format (JSON ``rubric``, Markdown, HTML, CSV ``rubric`` and ``rubric_grading``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.records_sections import RubricSection
from medjudge.judging.analysis.rubric import rubric_scores
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
from medjudge.judging.report.kind_sections import KindSection, SectionInputs
from medjudge.store import reads
from medjudge.store.literal import plural

from .model import DATA_FIELD, KIND

NOTE = (
    "An answer's score is the points of its met rubric criteria over the points of its "
    "positive criteria, clipped to [0, 1] (HealthBench); a tag's score uses the criteria with "
    "that tag. An answer is scored by a rater only when that rater marked every one of its "
    "criteria (for the reviewers' majority: a strict majority on each). Means over answers "
    "with 95% BCa intervals, every rater side by side: each physician, the reviewers' "
    "majority, the reference (adjudicated, else majority) and each judge. Grading: each "
    "judge's macro F1 over met / not met against the reference (HealthBench's grader "
    "meta-evaluation), overall and per tag, beside each physician pair's on the same criteria."
)


def build(inputs: SectionInputs) -> RubricSection | None:
    """The rubric figures (None: no rubric items)."""
    return rubric_scores(
        inputs.data,
        reads.listed_entries(inputs.study, KIND.name, DATA_FIELD),
        n_boot=inputs.n_boot,
        seed=inputs.seed,
        confidence=inputs.confidence,
    )


def notes(r: RubricSection) -> list[str]:
    """What the figures mean, and how many answers and criteria there are."""
    counts = (
        f"{plural(r.answers, 'answer')}, "
        f"{plural(r.criteria, 'rubric criterion', 'rubric criteria')}."
    )
    return [NOTE, counts]


def rubric(r: RubricSection) -> Table:
    """Rubric scores: each rater's mean answer score overall, per source model and per tag."""
    rows: list[tuple[Cell, ...]] = []
    for rr in r.raters:
        groups = (("all", [rr.overall]), ("model", rr.by_source), ("tag", rr.by_tag))
        for dim, records in groups:
            for rec in records:
                rows.append(
                    (
                        Text(rr.rater),
                        Label(rr.role),
                        Label(dim),
                        Text(str(rec.key)),
                        Count(rec.n),
                        Est(rec),
                    )
                )
    columns = make_columns(
        "Rater", "Role", "By", "Value", "Answers", "Mean score [95% CI]", numeric=(4, 5)
    )
    return make_table("Rubric score (met points / positive points)", columns, rows)


def rubric_graders(r: RubricSection) -> Table:
    """HealthBench's grader meta-evaluation: each judge's macro F1 (met / not met) against the
    reference, overall and per tag, beside each physician pair's on the same criteria."""
    rows: list[tuple[Cell, ...]] = []
    for g in r.graders:
        rows.append(
            (Text(g.judge), Text("reference"), Label(g.tag), Count(g.macro_f1.n), Est(g.macro_f1))
        )
        for p in g.physician_pairs:
            rows.append(
                (
                    Text(p.rater_b),
                    Text(p.rater_a),
                    Label(g.tag),
                    Count(p.macro_f1.n),
                    Est(p.macro_f1),
                )
            )
    columns = make_columns(
        "Grader", "Against", "Tag", "Criteria", "Macro F1 [95% CI]", numeric=(3, 4)
    )
    return make_table("Grading met / not met (macro F1): judges and physician pairs", columns, rows)


def rubric_coverage(r: RubricSection) -> Table:
    """How many answers each rater scored (every criterion marked) of all rubric answers."""
    rows = ((Text(rr.rater), Count(rr.scored), Count(rr.answers)) for rr in r.raters)
    columns = make_columns("Rater", "Answers scored", "Of", numeric=(1, 2))
    return make_table("Answers with every rubric criterion marked", columns, rows)


def tables(r: RubricSection) -> list[Table]:
    """The section's tables (the grading only when a judge graded)."""
    return [rubric(r), rubric_coverage(r), *([rubric_graders(r)] if r.graders else [])]


def csv_rows(r: RubricSection) -> Iterator[list[str]]:
    """``rubric`` rows (each rater's scores) and ``rubric_grading`` rows (macro F1)."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for rr in r.raters:
        yield figure_row("rubric", "rubric", "all", rr.rater, None, "mean_score", rr.overall)
        for dim, recs in (("source", rr.by_source), ("tag", rr.by_tag)):
            for rec in recs:
                yield figure_row(
                    "rubric", "rubric", f"{dim}={rec.key}", rr.rater, None, "mean_score", rec
                )
    for g in r.graders:
        where = f"tag={g.tag}" if g.tag != "all" else "all"
        yield figure_row(
            "rubric_grading", "rubric", where, g.judge, "reference", "macro_f1", g.macro_f1
        )
        for p in g.physician_pairs:
            yield figure_row(
                "rubric_grading", "rubric", where, p.rater_b, p.rater_a, "macro_f1", p.macro_f1
            )


AUDIT = audit_forms.RUBRIC_SCORES
"""The judge audit's form of the kind: each answer's rubric score per source."""

SECTIONS = (
    KindSection(
        key="rubric",
        title="Rubric scores",
        record=RubricSection,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
    ),
)
"""The kind's report sections."""
