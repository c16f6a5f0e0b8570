"""The statements kind's report section: K-QA's comprehensiveness and hallucination figures
per rater and model (:mod:`medjudge.judging.analysis.kqa`), in every report format (JSON
``kqa``, Markdown, HTML, CSV ``kqa`` and ``kqa_answer``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.kqa import kqa_metrics
from medjudge.judging.analysis.records_sections import KqaSection
from medjudge.judging.report.cells import (
    Column,
    Est,
    Ratio,
    Share,
    Table,
    Text,
)
from medjudge.judging.report.kind_sections import KindSection, SectionInputs


def build(inputs: SectionInputs) -> KqaSection | None:
    """The K-QA figures (None: no statement labels)."""
    return kqa_metrics(
        inputs.data, n_boot=inputs.n_boot, seed=inputs.seed, confidence=inputs.confidence
    )


def notes(k: KqaSection) -> list[str]:
    """What the figures mean."""
    base = (
        f"the {k.questions_all:,} K-QA reference questions"
        if k.questions_all
        else "the number of answers of that model"
    )
    return [
        "Comprehensiveness = entailed Must_have / labelled Must_have statements; "
        "hallucinations = contradicted statements per answer. 'All questions' divides by "
        f"{base} (unanswered or unlabelled answers count as 0). An answer that opens with a "
        "decline phrase (e.g. 'insufficient information') and none of whose statements any "
        "rater labelled entailed or contradicted is an abstention: counted apart, not scored, "
        "0 in 'all questions', and listed under 'Excluded from the figures'. Per-answer figures "
        "are in the JSON and CSV reports."
    ]


def kqa(k: KqaSection) -> Table:
    """K-QA comprehensiveness and hallucinations per rater and model."""
    columns = (
        Column("Rater"),
        Column("Model"),
        Column("Answers labelled", True, "Answers"),
        Column("Statements labelled", True, "Statements"),
        Column("Comprehensiveness (answered)", True, "Answered"),
        Column("Comprehensiveness (all)", True, "All questions"),
        Column("Hallucinations (answered)", True, "Answered"),
        Column("Hallucinations (all)", True, "All questions"),
        Column("Answers with ≥1 contradiction", True),
        Column("Declined to answer", True, "Declined"),
    )
    rows = tuple(
        (
            Text(r.rater),
            Text(src),
            Ratio(f.answers_with_labels, f.answers),
            Ratio(f.statements_labelled, f.statements),
            Est(f.comprehensiveness_answered, pct=True),
            Est(f.comprehensiveness_all, pct=True),
            Est(f.hallucinations_answered),
            Est(f.hallucinations_all),
            Est(f.contradiction_share, pct=True),
            Share(f.declined_share),
        )
        for r in k.raters
        for src, f in r.by_source.items()
    )
    groups = (
        ("", 2),
        ("Labelled", 2),
        ("Comprehensiveness", 2),
        ("Hallucinations per answer", 2),
        ("", 2),
    )
    return Table("K-QA metrics", columns, rows, groups)


def tables(k: KqaSection) -> list[Table]:
    """The section's tables."""
    return [kqa(k)]


def csv_rows(kqa: KqaSection) -> Iterator[list[str]]:
    """``kqa`` rows per rater and model; ``kqa_answer`` rows per answer."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for kr in kqa.raters:
        for src, f in kr.by_source.items():
            for key, fig in (
                ("comprehensiveness_answered", f.comprehensiveness_answered),
                ("comprehensiveness_all", f.comprehensiveness_all),
                ("hallucinations_answered", f.hallucinations_answered),
                ("hallucinations_all", f.hallucinations_all),
                ("contradiction_share", f.contradiction_share),
            ):
                if fig is not None:
                    yield figure_row("kqa", "entailment", f"source={src}", kr.rater, src, key, fig)
    for ans in kqa.answers:
        for key, number in (
            ("comprehensiveness", ans.comprehensiveness),
            ("hallucinations", ans.hallucinations),
        ):
            yield figure_row(
                "kqa_answer",
                "entailment",
                f"item={ans.item}",
                ans.rater,
                ans.source,
                key,
                value=number,
                n=ans.labelled,
            )


AUDIT = audit_forms.ANSWERS
"""The judge audit's form of the kind: K-QA's figures per answer."""

SECTIONS = (
    KindSection(
        key="kqa",
        title="K-QA metrics (statements)",
        record=KqaSection,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
        always_in_json=True,
    ),
)
"""The kind's report sections."""
