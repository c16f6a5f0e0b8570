"""The typed records the analyses return: figures with their intervals, and the agreement views.

Every record is a frozen pydantic model with exactly the fields of the report's JSON, in its
order (``extra="forbid"``: a stray key is an error, not a silent addition). Figures share one
shape, :class:`Figure` (the fields of :meth:`.stats.estimates.Estimate.to_dict`); the variants
add what the figure is *of*: a count (:class:`Share`), a standard deviation
(:class:`MeanFigure`), or a key in front (:class:`KeyedFigure`, :class:`RaterFigure`, …).
The sections' records (judge versions, K-QA, MedRGB, win rates, ratings, effort) are in
:mod:`.records_sections`; the report that holds them all is
:class:`medjudge.judging.report.model.Report`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # estimates loads scipy: never at import (``medjudge --help`` stays light)
    from medjudge.judging.stats.estimates import Estimate


class Record(BaseModel):
    """Base of every record: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


R = TypeVar("R", bound=Record)


def json_safe(value: object) -> object:
    """Plain JSON types only: non-finite floats become None, numpy scalars become Python."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, Record)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    item = getattr(value, "item", None)  # a numpy scalar
    if callable(item):
        try:
            return json_safe(item())
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def record(model: type[R], data: object) -> R:
    """``data`` (built as plain values) checked into ``model``: JSON-safe, no stray field."""
    return model.model_validate(json_safe(data))


def records(model: type[R], rows: Iterable[object]) -> list[R]:
    """Each row checked into ``model`` (see :func:`record`)."""
    return [record(model, row) for row in rows]


class Figure(Record):
    """One figure with its interval (undefined parts are None, with a ``reason``).

    Attributes:
        value: the point estimate, or None when undefined.
        ci_low: lower bound, or None without an interval.
        ci_high: upper bound, or None without an interval.
        n: units (or answers, labels …) the figure rests on.
        reason: why the figure or its interval is missing.
        method: how the interval was computed (see ``medjudge.judging.stats.estimates``).
        se: the standard error behind a ``normal_se`` interval.
        unstable: defined but from fewer than 20 units.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    reason: str | None
    method: str
    se: float | None
    unstable: bool

    @classmethod
    def of(cls, e: Estimate) -> Figure:
        """An estimate's figure, field for field (no dict in between; an Estimate holds no
        NaN or infinity, so nothing needs making JSON-safe)."""
        return cls(**figure_fields(e))


class FigureFields(TypedDict):
    """A :class:`Figure`'s fields, as keyword arguments of a figure record's constructor."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    reason: str | None
    method: str
    se: float | None
    unstable: bool


def figure_fields(e: Estimate) -> FigureFields:
    """An estimate's fields, for building a figure record with more fields
    (``KeyedFigure(key=k, **figure_fields(e))``)."""
    return FigureFields(
        value=e.value,
        ci_low=e.ci_low,
        ci_high=e.ci_high,
        n=e.n,
        reason=e.reason,
        method=e.method,
        se=e.se,
        unstable=e.unstable,
    )


class Share(Figure):
    """A share of ``n`` with its ``count`` (``count / n = value``)."""

    count: int

    @classmethod
    def counted(cls, e: Estimate, count: int) -> Share:
        """An estimate of a share, with the count it is of."""
        return cls(**figure_fields(e), count=count)


class MeanFigure(Figure):
    """A mean with its standard deviation."""

    sd: float | None


class _Key(Record):
    key: str


class _Source(Record):
    source: str


class _Rater(Record):
    rater: str


class _Category(Record):
    category: int | str


class KeyedFigure(Figure, _Key):
    """A figure for one value of a field (a model, a test, a p)."""

    @classmethod
    def keyed(cls, key: str, e: Estimate) -> KeyedFigure:
        """An estimate's figure for the value ``key``."""
        return cls(key=key, **figure_fields(e))


class KeyedShare(Share, _Key):
    """A share for one value of a field."""

    @classmethod
    def keyed(cls, key: str, e: Estimate, count: int) -> KeyedShare:
        """An estimate of a share, with its count, for the value ``key``."""
        return cls(key=key, count=count, **figure_fields(e))


class SourceMean(MeanFigure, _Source):
    """A mean for one answer source (model)."""


class RaterFigure(Figure, _Rater):
    """A figure for one rater (e.g. each reviewer vs the others' majority)."""


class CategoryFigure(Figure, _Category):
    """A figure for one category (Fleiss' κ per category)."""


class Confusion(Record):
    """Counts of label pairs: ``matrix[i][j]`` = rater A said ``categories[i]``, B ``[j]``.

    ``cells`` lists the non-empty cells as ``[i, j, count]``; ``matrix`` is the full table, or
    ``None`` past 200 categories (too many to show, and quadratic in size).
    """

    categories: list[int | str]
    cells: list[list[int]]
    matrix: list[list[int]] | None


class LabelScore(Record):
    """A judge as a classifier of one verdict against the reviewers' majority."""

    label: int | str
    """The label as its scale reads it: a number on a rating scale, else its text."""
    support: int
    predicted: int
    precision: Figure
    recall: Figure
    f1: Figure


class Classification(Record):
    """A judge as a classifier of the reviewers' majority: accuracy, macro-F1, per verdict."""

    n: int
    accuracy: Figure
    macro_f1: Figure
    labels: list[LabelScore]
    macro_precision: Figure | None = None
    macro_recall: Figure | None = None


def _absent(value: object) -> bool:
    return value is None


class _ComparisonHead(Record):
    """What every comparison starts with: which view, raters, tie setting and slice."""

    view: str
    criterion: str
    rater_a: str
    rater_b: str | None
    ties: str | None
    slice: str
    slice_by: str | None
    slice_value: str | None
    n: int


class PairComparison(_ComparisonHead):
    """Two label columns over a criterion's units (see ``analysis.views``).

    ``metrics`` maps each statistic's name to its figure; which statistics depend on the
    scale. ``classification`` is there only for the reviewers' majority vs a judge;
    ``rater_kind`` only in the adjudication section.
    """

    n_dropped: int
    chance: float | None
    scale: str
    categories_inferred: bool
    metrics: dict[str, Figure]
    confusion: Confusion | None
    classification: Classification | None = Field(default=None, exclude_if=_absent)
    rater_kind: str | None = Field(default=None, exclude_if=_absent)


class GroupComparison(_ComparisonHead):
    """Three or more reviewers at once (view ``reviewers``): Fleiss, α, pairwise means."""

    n_pairable: int
    n_complete: int
    chance: float | None
    units_note: str
    scale: str
    raters: list[str]
    metrics: dict[str, Figure]
    fleiss_per_category: list[CategoryFigure]
    vs_majority: list[RaterFigure]
    vs_majority_own: list[RaterFigure] = []
    """Each rater vs the majority of all raters, its own vote included (beside vs_majority)."""
    confusion: Confusion | None


Comparison = PairComparison | GroupComparison
"""A comparison record (built by :mod:`.comparison_records`)."""


class ConsensusMethod(Record):
    """How the Dawid–Skene consensus was fitted."""

    name: str
    start: str
    """The start kept: ``majority``, ``random N``, or ``majority vote (fallback)``."""
    starts: int
    converged_starts: int
    alpha: float
    tol: float
    max_iter: int
    seed: int
    iterations: int
    converged: bool
    fallback: bool
    """No start converged: the consensus is the majority vote (said in every output)."""
    log_likelihood: float
    description: str


class ConsensusExample(Record):
    """A unit where the fitted consensus differs from the reviewers' majority."""

    unit: str
    majority: str
    consensus: str


class ConsensusRow(Record):
    """Dawid–Skene consensus of one criterion: each reviewer's accuracy and confusion."""

    criterion: str
    reviewers: list[str]
    categories: list[str]
    n_units: int
    method: ConsensusMethod
    accuracy: dict[str, float]
    confusion: dict[str, list[list[float]]]
    prior: dict[str, float]
    differs: int
    settled: int
    examples: list[ConsensusExample]
    unused: list[str] = []
    """Declared labels no reviewer gave: no class of the model (no row, column or prior)."""


class ConsistencyRow(Record):
    """A judge's self-consistency on one criterion."""

    judge: str
    criterion: str
    kind: str
    panel: bool
    n_verdicts: int
    missing: int
    failed_samples: int
    samples_disagreed: Share | None
    position_inconsistent: Share | None
    judges_disagreed: Share | None


class AnchoringRow(Record):
    """How one reviewer's changed labels moved: toward the judge, the reviewers, elsewhere."""

    reviewer: str
    n_labels: int
    changed: Share
    toward_judge: Share
    toward_reviewers: Share
    elsewhere: Share


class GoldRow(Record):
    """A rater's accuracy on the gold items of one criterion."""

    rater: str
    rater_kind: str
    criterion: str
    n: int
    correct: int
    accuracy: Share
