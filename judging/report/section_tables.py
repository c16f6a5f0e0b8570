"""Report tables of the sections beyond agreement: adjudication, judge consistency,
anchoring, consensus, gold, effort, exclusions, retired items and protocol (a kind's own
sections bring their tables: :mod:`.kind_sections`).

Each function turns one part of the report dict into a :class:`~.cells.Table` that the
Markdown and HTML renderers place; agreement tables are in :mod:`.tables`.
"""

from __future__ import annotations

from medjudge.judging.analysis.records import ConsensusRow
from medjudge.judging.analysis.records_sections import (
    ExclusionsSection,
    RetiredSection,
)
from medjudge.judging.report.cells import (
    ByFormat,
    Cell,
    Code,
    Column,
    Concat,
    Count,
    Duration,
    Label,
    Money,
    Number,
    Share,
    Table,
    Text,
)

from .model import Effort, Protocol, Report
from .tables import _cols, _metric, _table


def adjudicated(report: Report) -> Table:
    """Adjudicated units and unresolved disagreements per criterion."""
    columns = _cols("Criterion", "Adjudicated", "Unresolved disagreements", numeric=(1, 2))
    rows = (
        (Text(c.criterion), Count(c.adjudicated), Count(c.unresolved))
        for c in report.adjudication.criteria
    )
    return _table("Adjudication", columns, rows)


def reference(report: Report) -> Table:
    """Each rater against the adjudicated reference: accuracy and Cohen's κ."""
    columns = _cols("Criterion", "Rater", "n", "Accuracy", "Cohen's κ", numeric=(2, 3, 4))
    rows = (
        (
            Text(c.criterion),
            Text(r.rater_a),
            Count(r.n),
            _metric(r, "percent"),
            _metric(r, "cohen"),
        )
        for c in report.adjudication.criteria
        for r in c.comparisons
    )
    return _table("Each rater vs the adjudicated reference", columns, rows)


def consistency(report: Report) -> Table:
    """Judge self-consistency per judge and criterion."""
    columns = (
        *_cols("Judge", "Criterion", "Verdicts", "Missing", "Failed samples", numeric=(2, 3, 4)),
        Column("Samples disagreed (within an order)", True, "Samples disagreed"),
        Column("Position inconsistent (AB ≠ BA)", True),
        Column("Panel members disagreed", True),
    )
    rows = (
        (
            Text(r.judge),
            Text(r.criterion),
            Count(r.n_verdicts),
            Count(r.missing),
            Count(r.failed_samples),
            Share(r.samples_disagreed),
            Share(r.position_inconsistent),
            Share(r.judges_disagreed),
        )
        for r in report.consistency
    )
    return _table("Judge self-consistency", columns, rows)


def anchoring(report: Report) -> Table:
    """Labels changed after the reveal, per reviewer, and toward whom."""
    columns = (
        *_cols("Reviewer", "Labels", numeric=(1,)),
        Column("Changed after the reveal", True, "Changed"),
        Column("Of those: toward a judge's verdict", True, "Toward judge"),
        Column("Of those: toward the other reviewers' majority", True, "Toward reviewers"),
        Column("Of those: elsewhere", True, "Elsewhere"),
    )
    rows = (
        (
            Text(r.reviewer),
            Count(r.n_labels),
            Share(r.changed),
            Share(r.toward_judge),
            Share(r.toward_reviewers),
            Share(r.elsewhere),
        )
        for r in report.anchoring
    )
    return _table("Anchoring: labels changed after the reveal", columns, rows)


def consensus_accuracy(rec: ConsensusRow) -> Table:
    """One criterion's Dawid–Skene fit: each reviewer's accuracy and confusion-matrix diagonal."""
    cats = rec.categories
    columns = (
        *_cols("Reviewer", "Estimated accuracy", numeric=(1,)),
        *(Column(f"Says {c} when it is {c}", True, f"{c}") for c in cats),
    )
    rows: list[tuple[Cell, ...]] = [
        (
            Text(name),
            Number(rec.accuracy[name], 3),
            # A category the model gives no units (prior ≈ 0) has no confusion row to speak of:
            # its diagonal is only the smoothing; shown as "–".
            *(
                Number(
                    rec.confusion[name][i][i] if rec.prior.get(c, 1.0) >= 1e-3 else None,
                    3,
                )
                for i, c in enumerate(cats)
            ),
        )
        for name in rec.reviewers
    ]
    return _table(f"Dawid–Skene consensus: {rec.criterion}", columns, rows)


def gold(report: Report) -> Table:
    """Each rater's accuracy on the gold units, per criterion."""
    columns = (
        *_cols("Rater", "Kind", "Criterion", "Gold units", "Correct", numeric=(3, 4)),
        Column("Accuracy on gold", True, "Accuracy"),
    )
    rows = (
        (
            Text(r.rater),
            Text(r.rater_kind),
            Text(r.criterion),
            Count(r.n),
            Count(r.correct),
            Share(r.accuracy),
        )
        for r in report.gold
    )
    return _table("Accuracy on gold items", columns, rows)


def per_item_reviewers(e: Effort) -> Table:
    """Active seconds per item per reviewer (median, IQR) and the projection."""
    p = e.per_item
    columns = _cols(
        "Reviewer",
        "Items timed",
        "Median per item",
        "IQR",
        f"Projected for {p.n_more:,} items",
        numeric=(1, 2, 4),
    )
    rows = (
        (
            Text(r.reviewer),
            Count(r.items),
            Duration(r.median_s),
            Concat((Duration(r.q1_s), Label("–"), Duration(r.q3_s))),
            Duration(r.projected_s),
        )
        for r in p.reviewers
    )
    return _table("Reviewer time per item", columns, rows)


def per_item_judges(e: Effort) -> Table:
    """Cost and calls per judged item per judge, and the projection."""
    p = e.per_item
    columns = _cols(
        "Judge",
        "Items judged",
        "Calls per item",
        "Cost per item",
        f"Projected for {p.n_more:,} items",
        numeric=(1, 2, 3, 4),
    )
    rows = (
        (
            Text(r.judge),
            Count(r.items),
            Number(r.calls_per_item, 1),
            Money(r.cost_per_item_usd),
            Money(r.projected_cost_usd),
        )
        for r in p.judges
    )
    return _table("Judge cost per item", columns, rows)


def judges(p: Protocol) -> Table:
    """The judges and their settings (the protocol section)."""
    columns = _cols(
        "Judge",
        "Provider",
        "Model",
        "Samples",
        "Temperature",
        "Statements protocol",
        "Panel of",
        "Verdicts",
        numeric=(3, 7),
    )
    rows = []
    for j in p.judges:
        members = ", ".join(j.members or [])
        rule = f" ({j.panel_rule})" if j.panel_rule else ""
        temperature = j.temperature
        rows.append(
            (
                Text(j.name),
                Text(j.provider or "–"),
                Text(j.model or "–"),
                Count(j.samples),
                Text("–" if temperature is None else temperature),
                Text(j.statements_protocol or "–"),
                # Markdown names the panel rule too; HTML only the members.
                ByFormat(Text(members + rule or "–"), Text(members or "–")),
                Count(j.verdicts),
            )
        )
    return _table("Judges", columns, rows)


def templates(p: Protocol) -> Table:
    """The prompt templates each judge used, with their hashes and call counts."""
    columns = _cols("Judge", "Template", "Hash", "Calls", numeric=(3,))
    rows = (
        (Text(j.name), Text(t.template), Code(t.hash), Count(t.calls))
        for j in p.judges
        for t in j.templates
    )
    return _table("Templates", columns, rows)


def judge_effort(e: Effort) -> Table:
    """Judge calls, tokens, cost and latency per judge."""
    columns = _cols(
        "Judge",
        "Calls",
        "Failed",
        "Errors",
        "Input tokens",
        "Output tokens",
        "Cost",
        "Latency (sum)",
        numeric=range(1, 8),
    )
    rows = (
        (
            Text(j.judge),
            Count(j.calls),
            Count(j.failed),
            Count(j.errors),
            Count(j.input_tokens),
            Count(j.output_tokens),
            Money(j.cost_usd),
            Duration(j.latency_s),
        )
        for j in e.per_judge
    )
    return _table("Judge effort", columns, rows)


def reviewer_effort(e: Effort) -> Table:
    """Labels and time per reviewer."""
    columns = _cols(
        "Reviewer", "Labels", "Items timed", "Time", "Time per item", numeric=range(1, 5)
    )
    rows = (
        (
            Text(r.reviewer),
            Count(r.labels),
            Count(r.items),
            Duration(r.seconds),
            Duration(r.seconds_per_item),
        )
        for r in e.reviewers
    )
    return _table("Reviewer effort", columns, rows)


def exclusions(e: ExclusionsSection) -> Table:
    """Every answer left out of the figures, with the rule that left it out."""
    rows = ((Text(x.section), Text(x.item), Text(x.source), Text(x.rule)) for x in e.excluded)
    columns = _cols("Section", "Item", "Model", "Rule that excluded it")
    return _table("Answers excluded as abstentions", columns, rows)


def retired(r: RetiredSection) -> Table:
    """Every retired item: its id, kind, why, who retired it and when."""
    rows = ((Text(x.item), Text(x.kind), Text(x.reason), Text(x.by), Text(x.at)) for x in r.items)
    columns = _cols("Item", "Kind", "Reason", "Retired by", "When (UTC)")
    return _table("Retired items", columns, rows)
