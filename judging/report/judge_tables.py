"""The judges section's tables, for the Markdown and the HTML report.

Built from ``report.judges`` (:func:`medjudge.judging.analysis.judge_versions.judges_section`):
every judge version side by side with its position bias, its agreement with the reviewers'
majority, its cost; judge-vs-judge agreement; and the judges' length bias and self-preference
beside the physicians' (the "Judge biases" table). The alternative annotator test
(``report.alt_test``) has its own section: :func:`alt_test`, :func:`alt_test_physicians` and
the summary's lines, :func:`alt_test_lines`.
"""

from __future__ import annotations

from medjudge.judging.analysis.alt_tests import DEFINITION, AltTestRow, decision_line
from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records_sections import JudgeBias, JudgeVersion, VersionVsMajority
from medjudge.judging.report.cells import (
    Cell,
    Code,
    Column,
    Count,
    Duration,
    Est,
    Label,
    Money,
    Number,
    Ratio,
    Share,
    Table,
    Text,
)

from .model import Report


def _params(v: JudgeVersion) -> str:
    if v.members:
        return f"panel ({v.params.get('rule', '?')}) of " + ", ".join(v.members)
    p = v.params
    if not p:
        return v.spec or "imported with labels"
    return (
        f"{v.spec}; {p.get('samples')} samples, T {p.get('temperature')}, "
        f"≤{p.get('max_tokens')} tokens, statements {p.get('statements_protocol')}; "
        + ", ".join(sorted(set(v.templates.values())))
    )


def versions(report: Report) -> Table:
    """One row per judge version: verdicts, missing, self-consistency and position bias."""
    columns = (
        Column("Judge version"),
        Column("Key"),
        Column("Verdicts", True),
        Column("Missing", True),
        Column("Failed samples", True),
        Column("Not judged (a call errored; items)", True, "Not judged"),
        Column("Samples disagreed (within an order)", True, "Samples disagreed"),
        Column("Position: AB ≠ BA", True, "AB ≠ BA"),
        Column("Position: answer shown first wins", True, "First shown wins"),
    )
    rows: list[tuple[Cell, ...]] = []
    for v in report.judges.versions:
        pos = v.position
        rows.append(
            (
                Text(v.name),
                Code(v.short),
                Count(v.verdicts),
                Share(v.missing),
                Count(v.failed_samples),
                Count(v.not_judged),
                Share(None if v.panel else v.samples_disagreed),
                Share(pos.ab_ne_ba if pos else None),
                Share(pos.first_shown_wins if pos else None),
            )
        )
    return Table("Judge versions side by side", columns, tuple(rows))


def reviewer_position(report: Report) -> Table:
    """The reviewers' own position bias, beside the judges' "answer shown first wins": one row
    per reviewer and one pooled (empty when the orders reviewers saw do not vary)."""
    columns = (
        Column("Reviewer"),
        Column("Position: answer shown first wins", True, "First shown wins"),
    )
    rows: list[tuple[Cell, ...]] = [
        (Text(r.reviewer), Share(r.first_shown_wins)) for r in report.judges.reviewer_position or ()
    ]
    return Table("Reviewers: answer shown first wins", columns, tuple(rows))


def settings_and_cost(report: Report) -> Table:
    """One row per judge version: what it is, and what its verdicts cost."""
    columns = (
        Column("Judge version"),
        Column("Model, parameters and templates"),
        Column("Calls", True),
        Column("Tokens", True),
        Column("Cost", True),
        Column("Cost per item", True),
        Column("Call time (summed)", True, "Call time"),
        Column("Wall time of its runs", True, "Wall time"),
    )
    rows: list[tuple[Cell, ...]] = []
    for v in report.judges.versions:
        tokens = None if v.input_tokens is None else v.input_tokens + (v.output_tokens or 0)
        rows.append(
            (
                Text(v.name),
                Text(_params(v)),
                Count(v.calls),
                Count(tokens),
                Money(v.cost_usd),
                Money(v.cost_per_item),
                Duration(v.latency_s),
                Duration(v.wall_s),
            )
        )
    return Table("Judge versions: settings and cost", columns, tuple(rows))


def _per_value(rec: VersionVsMajority) -> str:
    def f(e: Figure | None) -> str:
        return "–" if e is None or e.value is None else f"{e.value:.2f}"

    return "; ".join(
        f"{p.value}: P {f(p.precision)} R {f(p.recall)} F1 {f(p.f1)}"
        for p in rec.per_value
        if p.support or p.predicted
    )


def vs_majority(report: Report) -> Table:
    """Each judge version against the reviewers' majority, per criterion."""
    columns = (
        Column("Judge version"),
        Column("Criterion"),
        Column("n", True),
        Column("Cohen's κ", True),
        Column("Gwet's AC1", True),
        Column("Accuracy", True),
        Column("Macro F1", True),
        Column("Precision / recall / F1 per verdict (majority as reference)", False, "Per verdict"),
    )
    rows: list[tuple[Cell, ...]] = []
    for v in report.judges.versions:
        for rec in v.vs_majority:
            rows.append(
                (
                    Text(v.name),
                    Text(rec.criterion),
                    Count(rec.n),
                    Est(rec.kappa),
                    Est(rec.ac1),
                    Est(rec.accuracy, pct=True),
                    Est(rec.macro_f1),
                    Text(_per_value(rec)),
                )
            )
    return Table("Judge versions vs the reviewers' majority", columns, tuple(rows))


def pairs(report: Report) -> Table:
    """Judge version against judge version, per criterion."""
    columns = (
        Column("Judge version A"),
        Column("Judge version B"),
        Column("Criterion"),
        Column("n", True),
        Column("Cohen's κ", True),
        Column("Gwet's AC1", True),
        Column("Agreement", True),
    )
    rows = tuple(
        (
            Text(p.a),
            Text(p.b),
            Text(p.criterion),
            Count(p.n),
            Est(p.kappa),
            Est(p.ac1),
            Est(p.percent, pct=True),
        )
        for p in report.judges.pairs
    )
    return Table("Judge version vs judge version", columns, rows)


def bias_name(b: JudgeBias) -> str:
    """What a bias row measures, in a few words."""
    if b.bias == "self_preference":
        return f"self-preference: {b.family} wins"
    if b.bias == "per_100_words":
        return "win chance per 100 words longer"
    return "longer answer wins"


def biases(report: Report) -> Table:
    """Each judge version's length bias and self-preference beside the physicians' value on
    the same units, flagged with the direction when their difference is beyond both intervals."""
    columns = (
        Column("Judge version"),
        Column("Criterion"),
        Column("Bias"),
        Column("Units", True),
        Column("Judge", True),
        Column("Physicians (same units)", True, "Physicians"),
        Column("Flag"),
        Column("Note"),
    )
    rows: list[tuple[Cell, ...]] = []
    for b in report.judges.biases:
        pct = b.bias != "per_100_words"
        rows.append(
            (
                Text(b.judge_version),
                Text(b.criterion),
                Text(bias_name(b)),
                Count(b.units),
                Est(b.judge, pct=pct),
                Est(b.physicians, pct=pct) if b.physicians else Label("no reference label"),
                Label(f"biased: {b.direction}" if b.flagged else "–"),
                Label(b.note or ""),
            )
        )
    return Table("Judge biases", columns, tuple(rows))


def tables(report: Report) -> list[Table]:
    """The section's tables in order (empty tables left out, the first always kept); the
    judge biases follow the versions' position figures."""
    out = [versions(report)]
    out += [t for t in (reviewer_position(report), biases(report)) if t.rows]
    out += [settings_and_cost(report)]
    out += [t for t in (vs_majority(report), pairs(report)) if t.rows]
    return out


ALT_TEST_NOTE = DEFINITION
"""What the alternative annotator test section says above its tables."""
SCORING_NAMES = {"accuracy": "accuracy", "neg_rmse": "−RMSE"}

ALT_TEST_PLAN_NOTE = (
    "How many items the test needs: the chance that it passes with 30, 60, … 300 items, "
    "simulated (400 studies per size, the study's seed) from this criterion's own figures — "
    "the physicians' label shares and agreement, the judge's agreement with them, the "
    "study's physicians (at least 3) — and, in the table above, the fewest items with an "
    "80% chance."
)
"""What the plan's table says above it."""


def _tested(r: AltTestRow) -> Cell:
    """Physicians tested of the physicians listed (the others left out for too few items)."""
    if not r.physicians:
        return Label("–")
    return Ratio(sum(p.excluded is None for p in r.physicians), len(r.physicians), " of ")


def alt_test(report: Report) -> Table:
    """One row per judge version and criterion: the alt-test's parameters, ω, ρ and the
    decision (or why it is not computed)."""
    columns = (
        Column("Judge version"),
        Column("Criterion"),
        Column("Scoring"),
        Column("ε", True),
        Column("q", True),
        Column("Physicians tested", True),
        Column("Winning rate ω", True, "ω"),
        Column("Advantage probability ρ", True, "ρ"),
        Column("Decision"),
        Column("Items for an 80% chance to pass", True, "Items for 80%"),
    )
    rows: list[tuple[Cell, ...]] = []
    for r in report.alt_test:
        if r.winning_rate is None:
            decision: Cell = Text(f"not computed: {r.reason}")
        else:
            decision = Label(
                "may stand in for the physicians (ω ≥ 0.5)"
                if r.passed
                else "may not stand in for the physicians (ω < 0.5)"
            )
        rows.append(
            (
                Text(r.judge),
                Text(r.criterion),
                Label(SCORING_NAMES.get(r.scoring, r.scoring)),
                Label(f"{r.epsilon:g}"),
                Label(f"{r.q:g}"),
                _tested(r),
                Number(r.winning_rate),
                Number(r.advantage_probability),
                decision,
                Count(r.items_needed) if r.items_needed is not None else Label(r.plan_note or "–"),
            )
        )
    return Table("Alternative annotator test", columns, tuple(rows))


def alt_test_plan(report: Report) -> Table:
    """The plan beside each test: the chance that it passes with 30, 60, … items, simulated
    from the study's own figures on the criterion (:func:`.alt_tests.plan_beside`)."""
    sizes = sorted({p.n_items for r in report.alt_test for p in r.plan})
    columns = (
        Column("Judge version"),
        Column("Criterion"),
        *(Column(f"{n} items", True) for n in sizes),
    )
    rows: list[tuple[Cell, ...]] = []
    for r in report.alt_test:
        if not r.plan:
            continue
        chance = {p.n_items: p.pass_probability for p in r.plan}
        rows.append(
            (
                Text(r.judge),
                Text(r.criterion),
                *(Number(chance.get(n), 2) for n in sizes),
            )
        )
    return Table(
        "Chance the alternative annotator test passes, by number of items", columns, tuple(rows)
    )


def alt_test_physicians(report: Report) -> Table:
    """One row per judge version, criterion and physician left out: items, ρ_f, ρ_h, t, p
    and whether the judge wins against that physician (or why the physician is left out)."""
    columns = (
        Column("Judge version"),
        Column("Criterion"),
        Column("Physician"),
        Column("Items", True),
        Column("Judge's advantage ρ_f", True, "ρ_f"),
        Column("Physician's advantage ρ_h", True, "ρ_h"),
        Column("t", True),
        Column("p", True),
        Column("Judge wins"),
    )
    rows: list[tuple[Cell, ...]] = []
    for r in report.alt_test:
        for p in r.physicians:
            if p.excluded is not None:
                wins: Cell = Label(f"left out: {p.excluded}")
            else:
                wins = Label(("yes" if p.rejected else "no") + (f" ({p.note})" if p.note else ""))
            rows.append(
                (
                    Text(r.judge),
                    Text(r.criterion),
                    Text(p.name),
                    Count(p.n_items),
                    Number(p.rho_f, 3),
                    Number(p.rho_h, 3),
                    Number(p.t, 3),
                    Label("–" if p.p is None else f"{p.p:.3g}"),
                    wins,
                )
            )
    return Table("Alternative annotator test per physician", columns, tuple(rows))


def alt_test_lines(report: Report) -> list[tuple[str, str, str]]:
    """The summary's lines: (criterion, judge version, the decision in one line)."""
    return [(r.criterion, r.judge, decision_line(r)) for r in report.alt_test]
