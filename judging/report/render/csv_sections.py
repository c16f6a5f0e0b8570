"""The CSV report's rows of the per-kind and closing sections: MedRGB, rubric, K-QA, the
answers excluded as abstentions, retired items, rating means and reviewer effort."""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.report.model import Report

from .csv_rows import figure_row, plain_line


def _medrgb(report: Report) -> Iterator[list[str]]:
    m = report.medrgb
    if m:
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


def _rubric(report: Report) -> Iterator[list[str]]:
    r = report.rubric
    if r:
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


def _exclusions(report: Report) -> Iterator[list[str]]:
    ex = report.exclusions
    if ex is None:
        return
    yield plain_line("excluded", None, "all", None, None, "excluded_answers", len(ex.excluded),
                None, None, ex.answers, ex.rule, None)  # fmt: skip
    for e in ex.excluded:
        yield plain_line("excluded", e.section, e.item, e.source, None, "abstention", 1, None, None,
                    None, e.rule, None)  # fmt: skip


def _retired(report: Report) -> Iterator[list[str]]:
    rr = report.retired
    if rr is None:
        return
    yield plain_line("retired", None, "all", None, None, "retired_items", len(rr.items), None,
                None, len(rr.items), rr.rule, None)  # fmt: skip
    for r in rr.items:
        yield plain_line("retired", r.kind, r.item, r.by, r.at, "retired", 1, None, None, None,
                    r.reason, None)  # fmt: skip


def _kqa(report: Report) -> Iterator[list[str]]:
    kqa = report.kqa
    if kqa:
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
                        yield figure_row(
                            "kqa", "entailment", f"source={src}", kr.rater, src, key, fig
                        )
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


def _ratings(report: Report) -> Iterator[list[str]]:
    for rr in report.ratings:
        yield figure_row("rating_mean", rr.criterion, "all", rr.rater, None, "mean", rr.overall)
        for sm in rr.sources:
            yield figure_row(
                "rating_mean",
                rr.criterion,
                f"source={sm.source}",
                rr.rater,
                sm.source,
                "mean",
                sm,
            )


def _effort(report: Report) -> Iterator[list[str]]:
    e = report.effort
    for key, value in e.judge_calls:  # every field, in order
        yield figure_row("effort", metric=f"judge_{key}", value=value)
    for j in e.per_judge:
        for key, value in (
            ("calls", j.calls),
            ("failed", j.failed),
            ("errors", j.errors),
            ("input_tokens", j.input_tokens),
            ("output_tokens", j.output_tokens),
            ("cost_usd", j.cost_usd),
            ("latency_s", j.latency_s),
        ):
            yield figure_row("effort", rater_a=j.judge, metric=f"judge_{key}", value=value)
    for rt in e.reviewers:
        yield figure_row(
            "effort",
            rater_a=rt.reviewer,
            metric="review_seconds",
            value=rt.seconds,
            n=rt.items,
        )
