"""The alternative annotator test (:mod:`medjudge.judging.stats.alt_test`) in a study's report
and app: every judge version against the study's physicians, per criterion.

The table is the criterion's units × raters: every physician (reviewer) column and the judge
version's, the labels current now (a multi-select criterion's declared options each one unit,
as in every agreement figure). The criterion's scale sets the scoring: accuracy on a nominal
scale (pairwise verdicts, statement labels, rubric met / not met), −RMSE on an ordinal or
interval one (ratings, match scores) — on the numbers when every label is one, else on the
positions of the criterion's categories. Too few physicians or shared items, or labels the
scoring cannot place: "not computed", with the reason, never a number.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from medjudge.judging.analysis.records import Record, record
from medjudge.judging.analysis.study_data import StudyData
from medjudge.judging.analysis.views import LabelColumns, criterion_categories
from medjudge.judging.stats.alt_test import (
    EPSILON,
    FDR_Q,
    MIN_ITEMS,
    MIN_RATERS,
    AltTestResult,
    alt_test,
)

SCORING_OF_LEVEL = {"nominal": "accuracy", "ordinal": "neg_rmse", "interval": "neg_rmse"}
"""The alt-test's scoring for a criterion's level of measurement."""

DEFINITION = (
    "Alternative annotator test (Calderon, Reichart & Dror 2025): may the judge version stand "
    "in for the physicians? Each physician left out in turn, the judge and that physician are "
    "scored against the other physicians' labels (accuracy on a nominal scale, −RMSE on an "
    "ordinal or interval one); a one-sided paired t-test per physician asks whether the "
    "physician's advantage is below ε, Benjamini–Yekutieli at level q over the physicians; "
    "ω = the share of physicians the judge wins against (it may stand in when ω ≥ 0.5), "
    "ρ = the judge's mean advantage probability. Needs 3 physicians with enough shared items."
)


@dataclass(frozen=True)
class AltTestOptions:
    """The alt-test's parameters (``report --epsilon --fdr-q --alt-test-min-items``).

    Attributes:
        epsilon: The cost-benefit margin ε (0.2 for experts such as physicians).
        q: The Benjamini–Yekutieli false discovery rate level.
        min_items: A physician with fewer usable items is left out.
    """

    epsilon: float = EPSILON
    q: float = FDR_Q
    min_items: int = MIN_ITEMS


class PhysicianAltTestRow(Record):
    """One physician left out (the fields of :class:`.stats.alt_test.PhysicianAltTest`)."""

    name: str
    n_items: int
    rho_f: float | None
    rho_h: float | None
    t: float | None
    p: float | None
    rejected: bool | None
    excluded: str | None
    note: str | None


class AltTestRow(Record):
    """The alt-test of one judge version on one criterion: the criterion, then the fields of
    :meth:`.stats.alt_test.AltTestResult.to_dict` (``judge`` is the judge version)."""

    criterion: str
    judge: str
    scoring: str
    epsilon: float
    q: float
    min_items: int
    min_raters: int
    physicians: list[PhysicianAltTestRow]
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    reason: str | None


class _Decision(Protocol):
    @property
    def epsilon(self) -> float: ...
    @property
    def winning_rate(self) -> float | None: ...
    @property
    def advantage_probability(self) -> float | None: ...
    @property
    def passed(self) -> bool | None: ...
    @property
    def reason(self) -> str | None: ...


def decision_line(r: _Decision) -> str:
    """The decision in one line, as the report's summary and the app say it."""
    if r.winning_rate is None or r.advantage_probability is None:
        return f"alt-test not computed: {r.reason}"
    verb = "may stand in" if r.passed else "may not stand in"
    return (
        f"{verb} for the physicians (alt-test ω = {r.winning_rate:.2f}, "
        f"ρ = {r.advantage_probability:.2f}, ε = {r.epsilon:g})"
    )


def _number(label: Hashable) -> float | None:
    if isinstance(label, bool):
        return None
    if isinstance(label, (int, float)):
        return float(label)
    try:
        return float(str(label))
    except ValueError:
        return None


def judge_alt_test(
    rows: Sequence[Sequence[Hashable | None]],
    raters: Sequence[str],
    judge: str,
    level: str,
    order: Sequence[Hashable] | None,
    options: AltTestOptions | None = None,
) -> AltTestResult:
    """The alt-test of ``judge`` against the other ``raters`` on a criterion of ``level``.

    Args:
        rows: One row per unit, one label per rater (None: missing).
        raters: The physicians and the judge, aligned with each row.
        judge: The judge version's column.
        level: The criterion's level of measurement (``nominal``, ``ordinal``, ``interval``).
        order: The criterion's categories, in order (−RMSE on text labels scores positions).
        options: ε, q and the items a physician needs.

    Returns:
        The result; not computed, with the reason, when the labels do not allow it.
    """
    options = options or AltTestOptions()
    scoring = SCORING_OF_LEVEL.get(level, "accuracy")
    if scoring == "neg_rmse":  # numbers in text (match scores "0", "0.5", "1") as numbers
        present = {x for row in rows for x in row if x is not None}
        numbers = {x: _number(x) for x in present}
        if all(v is not None for v in numbers.values()):
            rows = [[None if x is None else numbers[x] for x in row] for row in rows]
            order = None
    try:
        return alt_test(
            rows,
            raters,
            judge,
            scoring=scoring,
            epsilon=options.epsilon,
            q=options.q,
            min_items=options.min_items,
            order=order,
        )
    except ValueError as exc:  # a label −RMSE cannot place: said, not a number
        return AltTestResult(
            judge, scoring, options.epsilon, options.q, options.min_items, MIN_RATERS, (),
            None, None, None, str(exc),
        )  # fmt: skip


def alt_tests(data: StudyData, options: AltTestOptions | None = None) -> list[AltTestRow]:
    """Every judge version with labels on a criterion against its physicians, per criterion
    (criteria in the study's order, judge versions by name)."""
    out = []
    for criterion in data.criteria():
        judges = data.raters(criterion, "judge")
        if not judges:
            continue
        crit = data.criterion(criterion)
        level = crit.level if crit is not None else "nominal"
        physicians = data.raters(criterion, "human")
        units = data.units_by_criterion.get(criterion, ())
        column = LabelColumns.of(data, criterion, units)
        human_columns = [column(p) for p in physicians]
        order = criterion_categories(data, criterion).values
        for judge in judges:
            raters = [*physicians, judge]
            rows = list(zip(*human_columns, column(judge), strict=True))
            result = judge_alt_test(rows, raters, judge, level, order, options)
            out.append(record(AltTestRow, {"criterion": criterion, **result.to_dict()}))
    return out
