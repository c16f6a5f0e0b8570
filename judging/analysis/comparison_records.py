"""The agreement statistics as the report's comparison records.

:mod:`medjudge.judging.stats` returns dataclasses and knows no pydantic record; here their
attributes become :class:`.records.PairComparison` and :class:`.records.GroupComparison`, with
their figures, confusion table and classifier scores, field for field what the statistics'
``to_dict`` writes (labels made JSON-safe by ``json_label``, a non-finite chance agreement
None), without a dict in between.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypedDict, cast

from medjudge.judging.analysis.records import (
    CategoryFigure,
    Classification,
    Confusion,
    Figure,
    GroupComparison,
    LabelScore,
    PairComparison,
    RaterFigure,
    figure_fields,
)
from medjudge.judging.stats import figures
from medjudge.judging.stats.agreement.core import MultiRaterStats, TwoRaterStats
from medjudge.judging.stats.agreement.labels import json_label
from medjudge.judging.stats.agreement.two import DENSE_CONFUSION_MAX, NO_UNITS
from medjudge.judging.stats.agreement.two import Confusion as ConfusionTable
from medjudge.judging.stats.classification import Classification as Scores
from medjudge.judging.stats.classification import LabelScores
from medjudge.judging.stats.estimates import Estimate, clean_float

TWO_METRICS = figures.keys("two")
MULTI_METRICS = figures.keys("multi")


class Compared(TypedDict):
    """Who a comparison compares: its view, criterion, raters and tie setting."""

    view: str
    criterion: str
    rater_a: str
    rater_b: str | None
    ties: str | None


def record_label(label: Hashable) -> int | str:
    """A label JSON-safe (``json_label``), as the records hold it: the record checks that it
    is a number or a text."""
    return cast("int | str", json_label(label))


def _name(rater: Hashable) -> str:
    """A rater's name JSON-safe (``json_label``); the record checks that it is a text."""
    return cast("str", json_label(rater))


def confusion(table: ConfusionTable) -> Confusion:
    """A confusion table's record: the full matrix up to ``DENSE_CONFUSION_MAX`` categories."""
    return Confusion(
        categories=[record_label(c) for c in table.categories],
        cells=[list(cell) for cell in table.cells],
        matrix=table.matrix if len(table.categories) <= DENSE_CONFUSION_MAX else None,
    )


def label_score(s: LabelScores) -> LabelScore:
    """One label's precision, recall and F1."""
    return LabelScore(
        label=record_label(s.label),
        support=s.support,
        predicted=s.predicted,
        precision=Figure.of(s.precision),
        recall=Figure.of(s.recall),
        f1=Figure.of(s.f1),
    )


def classification(scores: Scores) -> Classification:
    """A rater scored as a classifier of a reference."""
    return Classification(
        n=scores.n,
        accuracy=Figure.of(scores.accuracy),
        macro_f1=Figure.of(scores.macro_f1),
        labels=[label_score(s) for s in scores.labels],
        macro_precision=None
        if scores.macro_precision is None
        else Figure.of(scores.macro_precision),
        macro_recall=None if scores.macro_recall is None else Figure.of(scores.macro_recall),
    )


def _figure(e: Estimate, no_units: str | None) -> Figure:
    """``e``'s figure; one undefined for want of units says ``no_units`` why, when given."""
    if no_units is None or e.reason != NO_UNITS:
        return Figure.of(e)
    fields = figure_fields(e)
    fields["reason"] = no_units
    return Figure(**fields)


def _metrics(
    stats: TwoRaterStats | MultiRaterStats,
    keys: tuple[str, ...],
    no_units: str | None = None,
    masi: Figure | None = None,
) -> dict[str, Figure]:
    """The figures of ``keys`` the statistics have (None: not on their scale), in that order,
    then ``masi`` when given."""
    found = ((key, getattr(stats, key)) for key in keys)
    out = {key: _figure(e, no_units) for key, e in found if isinstance(e, Estimate)}
    if masi is not None:
        out["masi_alpha"] = masi
    return out


def _slice(slice_by: str | None, slice_value: str | None) -> str:
    return "all" if slice_by is None else f"{slice_by}={slice_value}"


def pair_comparison(
    stats: TwoRaterStats,
    compared: Compared,
    *,
    slice_by: str | None = None,
    slice_value: str | None = None,
    no_units: str | None = None,
    masi: Figure | None = None,
    scores: Classification | None = None,
    rater_kind: str | None = None,
) -> PairComparison:
    """Two label columns' comparison record, whole (no ``slice_by``) or of one slice.

    Args:
        stats: the two columns' figures.
        compared: the view, criterion, raters and tie setting.
        slice_by: the field sliced by, with ``slice_value`` the slice's value.
        slice_value: the slice's value.
        no_units: why the columns share no unit (said by every figure undefined for that).
        masi: MASI α of the option sets (multi-select criteria), after the other figures.
        scores: the judge as a classifier of the reviewers' majority.
        rater_kind: the kind of ``rater_a`` (the adjudication section).
    """
    metrics = _metrics(stats, TWO_METRICS, no_units, masi)
    return PairComparison(
        **compared,
        slice=_slice(slice_by, slice_value),
        slice_by=slice_by,
        slice_value=slice_value,
        n=stats.n,
        n_dropped=stats.n_dropped,
        chance=clean_float(stats.chance),
        scale=stats.scale,
        categories_inferred=stats.categories_inferred,
        metrics=metrics,
        confusion=confusion(stats.confusion),
        classification=scores,
        rater_kind=rater_kind,
    )


def group_comparison(
    stats: MultiRaterStats,
    compared: Compared,
    *,
    slice_by: str | None = None,
    slice_value: str | None = None,
    masi: Figure | None = None,
) -> GroupComparison:
    """Three or more reviewers' comparison record (see :func:`pair_comparison`)."""
    metrics = _metrics(stats, MULTI_METRICS, masi=masi)
    return GroupComparison(
        **compared,
        slice=_slice(slice_by, slice_value),
        slice_by=slice_by,
        slice_value=slice_value,
        n=stats.n_units,
        n_pairable=stats.n_pairable,
        n_complete=stats.n_complete,
        chance=clean_float(stats.chance),
        units_note=stats.units_note,
        scale=stats.scale,
        raters=[_name(r) for r in stats.raters],
        metrics=metrics,
        fleiss_per_category=[
            CategoryFigure(category=record_label(c), **figure_fields(e))
            for c, e in stats.fleiss_per_category.items()
        ],
        vs_majority=[
            RaterFigure(rater=_name(r), **figure_fields(e)) for r, e in stats.vs_majority.items()
        ],
        vs_majority_own=[
            RaterFigure(rater=_name(r), **figure_fields(e))
            for r, e in stats.vs_majority_own.items()
        ],
        confusion=None,
    )
