"""The report's tables, defined once for the Markdown and the HTML report.

Each function here picks its rows out of the typed :class:`.model.Report` and returns a
:class:`.cells.Table` of typed cells (study text, counts, estimates, shares, money, durations)
that the Markdown and HTML templates format, each for its own format (escaping, intervals).
Header wording and ``Label`` cells are medjudge's own words.

Where the two formats deliberately differ, it is said here: a column's ``short`` header (the
HTML report groups columns under common headings) and ``ByFormat`` cells.
"""

from __future__ import annotations

from medjudge import kinds
from medjudge.judging.analysis.records import (
    Comparison,
    GroupComparison,
    PairComparison,
)
from medjudge.judging.report.cells import (
    ByFormat,
    Cell,
    Column,
    Concat,
    Count,
    Est,
    Label,
    Number,
    Ratio,
    Table,
    Text,
    make_columns,
    make_table,
)

from . import text as rt
from .model import CriterionSection, Report

_cols = make_columns
_table = make_table


def _metric(record: Comparison, name: str) -> Est:
    return Est(record.metrics.get(name), pct=name in rt.PERCENT_METRICS)


_PAIR = ("View", "Rater A", "Rater B")


def _pair(r: Comparison) -> tuple[Cell, ...]:
    """The view and the two raters of a comparison record."""
    return Text(rt.VIEW_NAMES[r.view]), Text(r.rater_a), Text(r.rater_b)


def summary(report: Report) -> Table:
    """One row per criterion: units, reviewer agreement, reviewers vs the first judge."""
    rows = []
    for c in report.criteria:
        h = rt.headline(c)
        # pₑ beside every κ: a high agreement with a high pₑ is what a low κ means.
        pe = rt.chance_note(h.reviewer_chance)
        kappa: Cell = Est(h.reviewer_kappa, note=pe)
        if h.kappa_name.startswith("Fleiss"):  # say which κ: three or more reviewers
            kappa = ByFormat(
                Est(h.reviewer_kappa, note=rt.join_notes("Fleiss", pe)),
                Est(h.reviewer_kappa, note=rt.join_notes("Fleiss' κ", pe)),
            )
        rows.append(
            (
                Text(c.name),
                Text(c.kind),
                Ratio(c.n_units, c.n_units_total, " / "),
                Count(len(c.reviewers), grouped=False),
                Est(h.reviewer_percent, pct=True),
                kappa,
                Text(h.judge or "–"),
                Est(h.judge_percent, pct=True),
                Est(h.judge_kappa, note=rt.chance_note(h.judge_chance)),
                # Markdown has always written this count without thousands separators.
                ByFormat(Count(c.unresolved, grouped=False), Count(c.unresolved)),
            )
        )
    columns = (
        Column("Criterion"),
        Column("Kind"),
        Column("Units labelled", True),
        Column("Reviewers", True),
        Column("Reviewer agreement", True, "Agreement"),
        Column("Reviewer κ", True, "κ"),
        Column("Judge"),
        Column("Reviewers vs judge agreement", True, "Agreement"),
        Column("Reviewers vs judge κ", True, "κ"),
        Column("Unresolved", True),
    )
    groups = (("", 4), ("Among reviewers", 2), ("Reviewers vs first judge", 3), ("", 1))
    return Table("Summary", columns, tuple(rows), groups)


def comparison_records(c: CriterionSection, ties: str | None = "with") -> list[PairComparison]:
    """A criterion's whole-criterion two-rater comparisons for one tie setting."""
    return [r for r in rt.whole(c, ties=ties) if isinstance(r, PairComparison)]


def comparisons(c: CriterionSection, records: list[PairComparison]) -> Table:
    """Two-rater comparisons of a criterion, with its metrics (ordinal scales get more)."""
    names = rt.two_metric_names(c)
    # Chance agreement (pₑ of Cohen's κ) sits beside κ: a high percent agreement with a
    # high pₑ is what a low κ means.
    at = names.index("cohen") + 1 if "cohen" in names else len(names)
    heads = [rt.METRIC_NAMES[m] for m in names]
    heads.insert(at, "Chance (pₑ)")
    columns = _cols(*_PAIR, "n", *heads, numeric=range(3, 5 + len(names)))
    rows = []
    for r in records:
        cells: list[Cell] = [_metric(r, m) for m in names]
        cells.insert(at, Number(r.chance, 3))
        rows.append((*_pair(r), Count(r.n), *cells))
    return _table(f"{c.name}: two-rater comparisons", columns, rows)


def reviewer_figures(multi: GroupComparison) -> Table:
    """The all-reviewers figures (Fleiss, α, pairwise, Randolph, unanimous, ICC), each vs majority."""
    m = multi.metrics
    rows: list[tuple[Cell, ...]] = [
        (
            Label(rt.METRIC_NAMES[k]),
            Est(
                m[k],
                pct=k in rt.PERCENT_METRICS,
                note=rt.chance_note(multi.chance) if k == "fleiss" else None,
            ),
            Count(m[k].n),
        )
        for k in rt.METRIC_NAMES
        if k in m
    ]
    rows += [
        (
            Concat((Label("Fleiss' κ, category "), Text(str(e.category)))),
            Est(e),
            Count(e.n),
        )
        for e in multi.fleiss_per_category
    ]
    rows += [
        (
            Concat((Text(v.rater), Label(" vs the others' majority"))),
            Est(v, pct=True),
            Count(v.n),
        )
        for v in multi.vs_majority
    ]
    rows += [
        (
            Concat((Text(v.rater), Label(" vs the majority including its own vote"))),
            Est(v, pct=True),
            Count(v.n),
        )
        for v in multi.vs_majority_own
    ]
    columns = _cols("Figure", "Value [95% CI]", "n", numeric=(1, 2))
    return _table(f"All {len(multi.raters)} reviewers", columns, rows)


def group_comparison(c: CriterionSection) -> GroupComparison | None:
    """A criterion's all-reviewers comparison (three or more reviewers), if it has one."""
    return next(
        (r for r in c.comparisons if isinstance(r, GroupComparison) and r.slice == "all"), None
    )


def judge_scores(c: CriterionSection) -> Table:
    """Each judge scored against the reviewers' majority: accuracy, per-verdict P / R / F1."""
    rows: list[tuple[Cell, ...]] = []
    for r in rt.whole(c, ties="with" if kinds.get(c.kind).tie_value is not None else None):
        cl = r.classification if isinstance(r, PairComparison) else None
        if r.view != "majority_judge" or cl is None:
            continue
        rows.append(
            (
                Text(r.rater_b),
                Label("all"),
                Count(cl.n),
                Est(cl.accuracy, pct=True),
                Est(cl.macro_precision, pct=True),
                Est(cl.macro_recall, pct=True),
                Est(cl.macro_f1),
            )
        )
        for s in cl.labels:
            rows.append(
                (
                    Text(r.rater_b),
                    Text(str(s.label)),
                    Count(s.support),
                    Est(None),
                    Est(s.precision, pct=True),
                    Est(s.recall, pct=True),
                    Est(s.f1),
                )
            )
    columns = _cols(
        "Judge",
        "Verdict",
        "n (majority)",
        "Accuracy",
        "Precision (all: macro)",
        "Recall (all: macro)",
        "F1 (all: macro)",
        numeric=(2, 3, 4, 5, 6),
    )
    return _table("Judge vs the reviewers' majority, per verdict", columns, rows)


def slices(c: CriterionSection) -> Table:
    """The sliced comparisons of a criterion (batch, answer source, statement category)."""
    columns = _cols(*_PAIR, "Slice", "n", "% agreement", "Cohen's κ", numeric=(4, 5, 6))
    rows = (
        (
            *_pair(r),
            Text(r.slice),
            Count(r.n),
            _metric(r, "percent"),
            _metric(r, "cohen"),
        )
        for r in c.comparisons
        if r.slice != "all"
    )
    return _table("Slices", columns, rows)


def confusion_records(c: CriterionSection) -> list[PairComparison]:
    """The comparisons whose confusion matrix the report shows (reviewers, majority, AB/BA;
    not a matrix of more than 200 categories, which the JSON gives as its non-empty cells)."""
    return [
        r
        for r in rt.whole(c)
        if isinstance(r, PairComparison)
        and (r.confusion is None or r.confusion.matrix is not None)
        and (
            r.view in ("human_human", "majority_judge", "ab_ba")
            or (r.view == "human_judge" and len(c.reviewers) == 1)
        )
    ]
