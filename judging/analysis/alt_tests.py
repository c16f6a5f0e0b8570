"""The alternative annotator test (:mod:`medjudge.judging.stats.alt_test`) in a study's report
and app: every judge version against the study's physicians, per criterion.

The table is the criterion's units × raters: every physician (reviewer) column and the judge
version's, the labels current now (a multi-select criterion's declared options each one unit,
as in every agreement figure). The criterion's scale sets the scoring: accuracy on a nominal
scale (pairwise verdicts, statement labels, rubric met / not met), −RMSE on an ordinal or
interval one (ratings, match scores) — on the numbers when every label is one, else on the
positions of the criterion's categories. Too few physicians or shared items, or labels the
scoring cannot place: "not computed", with the reason, never a number.

Beside each test, the planner (:func:`medjudge.judging.stats.alt_test_plan.plan_alt_test`) from
the study's own figures — the physicians' label shares and agreement and the judge's agreement
with them on this criterion (:func:`~medjudge.judging.stats.alt_test_plan.pilot_figures`), the
study's number of physicians (at least 3) — gives the chance that the test passes with 30, 60,
… 300 items (:data:`PLAN_SIMS` simulated studies each, seeded), and the fewest items with at
least an 80% chance: how many items to label before the test can say yes, or why it cannot.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from medjudge.judging.analysis.records import Record
from medjudge.judging.analysis.study_data import StudyData
from medjudge.judging.analysis.views import LabelColumns, criterion_categories
from medjudge.judging.stats.alt_test import (
    EPSILON,
    FDR_Q,
    MIN_ITEMS,
    MIN_PHYSICIANS,
    MIN_RATERS,
    AltTestResult,
    PhysicianAltTest,
    alt_test,
)
from medjudge.judging.stats.alt_test_plan import pilot_figures, plan_alt_test
from medjudge.judging.stats.estimates import clean_float

PLAN_ITEMS = tuple(range(30, 301, 30))
"""The study sizes the report's plan simulates."""

PLAN_SIMS = 400
"""Simulated studies per size (a pass chance within about ±2.5 points)."""

PLAN_POWER = 0.8
"""The chance of passing that "items needed" asks for."""

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
    seed: int = 0
    """Seed of the plan's simulations (the report passes the study's)."""


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


class AltTestPlanPoint(Record):
    """The chance that the alt-test passes with ``n_items`` items (simulated)."""

    n_items: int
    pass_probability: float


class AltTestRow(Record):
    """The alt-test of one judge version on one criterion: the criterion, then the fields of
    :meth:`.stats.alt_test.AltTestResult.to_dict` (``judge`` is the judge version), then the
    plan beside it: the pass chance per number of items, the fewest items with an 80% chance
    (None: not within 300, or no plan) and why there is no plan."""

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
    plan: list[AltTestPlanPoint]
    items_needed: int | None
    plan_note: str | None


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


@dataclass(frozen=True)
class PlanBeside:
    """The plan beside a test (see the module): the pass chance per number of items, the
    fewest items with an 80% chance (None: not within the sizes simulated, or no plan) and
    why there is none."""

    points: tuple[tuple[int, float], ...]
    items_needed: int | None
    note: str | None

    def plan_points(self) -> list[AltTestPlanPoint]:
        """The plan's points, as the ``plan`` of an :class:`AltTestRow`."""
        return [AltTestPlanPoint(n_items=n, pass_probability=p) for n, p in self.points]

    def line(self) -> str:
        """The plan in a few words (the app's agreement detail)."""
        if self.items_needed is not None:
            return f"{self.items_needed} items give it an 80% chance to pass"
        return self.note or "no plan"


def plan_beside(
    rows: Sequence[Sequence[Hashable | None]],
    raters: Sequence[str],
    judge: str,
    scoring: str,
    order: Sequence[Hashable] | None,
    options: AltTestOptions,
) -> PlanBeside:
    """The plan beside the test of ``judge`` on these labels (see the module), or why there is
    none."""
    try:
        pilot = pilot_figures(rows, raters, judge, order)
        plan = plan_alt_test(
            physician_agreement=pilot.physician_agreement,
            judge_agreement=pilot.judge_agreement,
            label_shares=pilot.label_shares,
            n_physicians=max(pilot.n_physicians, MIN_PHYSICIANS),
            item_counts=PLAN_ITEMS,
            epsilon=options.epsilon,
            q=options.q,
            scoring=scoring,
            n_sims=PLAN_SIMS,
            seed=options.seed,
        )
    except ValueError as exc:
        return PlanBeside((), None, f"no plan: {exc}")
    needed = plan.items_needed(PLAN_POWER)
    note = None
    if needed is None:
        note = f"under an 80% chance of passing even with {PLAN_ITEMS[-1]} items"
    return PlanBeside(tuple((p.n_items, p.pass_probability) for p in plan.points), needed, note)


def alt_tests(data: StudyData, options: AltTestOptions | None = None) -> list[AltTestRow]:
    """Every judge version with labels on a criterion against its physicians, per criterion
    (criteria in the study's order, judge versions by name)."""
    out: list[AltTestRow] = []
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
            plan = plan_beside(
                rows, raters, judge, result.scoring, order, options or AltTestOptions()
            )
            out.append(alt_test_row(criterion, result, plan))
    return out


def _physician_row(p: PhysicianAltTest) -> PhysicianAltTestRow:
    return PhysicianAltTestRow(
        name=p.name,
        n_items=p.n_items,
        rho_f=clean_float(p.rho_f),
        rho_h=clean_float(p.rho_h),
        t=clean_float(p.t),
        p=clean_float(p.p),
        rejected=p.rejected,
        excluded=p.excluded,
        note=p.note,
    )


def alt_test_row(criterion: str, result: AltTestResult, plan: PlanBeside) -> AltTestRow:
    """The report's record of one test on ``criterion`` and the plan beside it."""
    return AltTestRow(
        criterion=criterion,
        judge=result.judge,
        scoring=result.scoring,
        epsilon=result.epsilon,
        q=result.q,
        min_items=result.min_items,
        min_raters=result.min_raters,
        physicians=[_physician_row(p) for p in result.physicians],
        winning_rate=clean_float(result.winning_rate),
        advantage_probability=clean_float(result.advantage_probability),
        passed=result.passed,
        reason=result.reason,
        plan=plan.plan_points(),
        items_needed=plan.items_needed,
        plan_note=plan.note,
    )
