"""The CSV report's rows of the closing sections: the answers excluded as abstentions, retired
items and reviewer effort (a kind's own sections write their rows themselves:
:mod:`medjudge.judging.report.kind_sections`)."""

from __future__ import annotations

from collections.abc import Iterator

from medjudge.judging.report.model import Report

from .csv_rows import figure_row, plain_line


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
