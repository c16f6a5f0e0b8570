"""Agreement views of a study: who is compared with whom, per criterion, whole and sliced.

Every view is a *comparison* of two label columns over a criterion's units, returned as a
record built from the statistics (:mod:`.comparison_records`; see :func:`criterion_comparisons`):

- ``human_human``: each pair of reviewers; with three or more reviewers also ``reviewers``
  (Fleiss' κ, Krippendorff's α, mean pairwise agreement, each reviewer vs the others' majority);
- ``human_judge``: each reviewer vs each judge;
- ``majority_judge``: the reviewers' per-unit strict majority vs each judge (two or more
  reviewers; units without a majority are left out);
- ``judge_judge``: each pair of judges (panels included);
- ``ab_ba``: pairwise criteria, per judge: the verdict of order AB vs that of order BA, from
  the verdict trails (both already in terms of the item's own answers);
- ``reference``: each rater (and the reviewers' majority) vs the latest adjudication.

Pairwise criteria get each comparison with ties and without (units where either side said
``tie`` dropped). Every figure carries the one interval its statistic has everywhere in
medjudge (see :mod:`medjudge.judging.stats.estimates`), whole or sliced; the category set is
the criterion's declared one, so the figures equal ``medjudge agreement --categories``'s.
Comparisons with the reviewers' majority also score the judge as a classifier (accuracy,
precision / recall / F1 per verdict).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

from medjudge import kinds
from medjudge.judging.analysis.comparison_records import (
    MULTI_METRICS,
    TWO_METRICS,
    Compared,
    classification,
    group_comparison,
    pair_comparison,
)
from medjudge.judging.analysis.records import Comparison, Figure, PairComparison
from medjudge.judging.analysis.study_data import MAJORITY, REFERENCE, StudyData
from medjudge.judging.analysis.view_inputs import (
    LabelColumns,
    ViewOptions,
    ab_ba_columns,
    criterion_categories,
    slice_dimensions,
    slice_order,
)
from medjudge.judging.stats.agreement.core import (
    MultiRaterStats,
    TwoRaterStats,
    multi_rater_stats,
    two_rater_stats,
    without_ties,
)
from medjudge.judging.stats.agreement.labels import untied_categories
from medjudge.judging.stats.agreement.two import NO_UNITS
from medjudge.judging.stats.classification import classification_of_cells
from medjudge.judging.stats.estimates import N_BOOT

__all__ = [
    "MULTI_METRICS",
    "TWO_METRICS",
    "LabelColumns",
    "ViewOptions",
    "ab_ba_columns",
    "criterion_categories",
    "criterion_comparisons",
    "reference_comparisons",
    "slice_order",
    "two_stats",
    "unresolved_disagreements",
]
"""The views' names, with those of :mod:`.view_inputs` they are computed from (imported from
here too)."""

VIEW_TITLES = {
    "human_human": "Reviewer vs reviewer",
    "reviewers": "All reviewers",
    "human_judge": "Reviewer vs judge",
    "majority_judge": "Reviewers' majority vs judge",
    "judge_judge": "Judge vs judge",
    "ab_ba": "Judge order AB vs order BA",
    "reference": "Rater vs adjudicated reference",
}
"""Human titles of the views, in report order."""


NO_MAJORITY_UNITS = (
    "no unit has a strict majority of the reviewers: they disagree on every unit they "
    "labelled (or fewer than two labelled it)"
)
ALL_TIES = "every unit both labelled is a tie, and ties are left out here"


def _no_pair(
    a: str, b: str, ca: Sequence[Hashable | None], cb: Sequence[Hashable | None], tied: bool
) -> str:
    """Why two columns share no labelled unit, naming the real cause: a column with no label
    at all (the reviewers' majority: no unit has one), or every shared unit a tie."""
    for name, column in ((a, ca), (b, cb)):
        if all(x is None for x in column):
            return NO_MAJORITY_UNITS if name == MAJORITY else f"{name} labelled none of these units"
    shared = any(x is not None and y is not None for x, y in zip(ca, cb, strict=True))
    return ALL_TIES if tied and shared else NO_UNITS


def two_stats(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    cats: list[Hashable] | None,
    level: str,
    *,
    intervals: bool = True,
    confidence: float = 0.95,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> TwoRaterStats:
    """Two columns of a criterion over its categories and scale (from
    :func:`criterion_categories`, which holds every label given).

    A label outside them all the same (a caller that passed the declared set only) falls back
    to the observed labels on a nominal scale, and the record says the categories were inferred.
    """
    kw: dict[str, Any] = {
        "intervals": intervals,
        "confidence": confidence,
        "n_boot": n_boot,
        "seed": seed,
    }
    try:
        return two_rater_stats(a, b, categories=cats, scale=level, **kw)
    except ValueError:
        return two_rater_stats(a, b, **kw)


def _two(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    cats: list[Hashable] | None,
    level: str,
    opts: ViewOptions,
) -> TwoRaterStats:
    return two_stats(
        a,
        b,
        cats,
        level,
        intervals=opts.intervals,
        confidence=opts.confidence,
        n_boot=opts.n_boot,
        seed=opts.seed,
    )


def _pairs(data: StudyData, criterion: str) -> list[tuple[str, str, str]]:
    """(view, rater_a, rater_b) for every two-column comparison of a criterion."""
    humans = data.raters(criterion, "human")
    judges = data.raters(criterion, "judge")
    out = [("human_human", a, b) for a, b in combinations(humans, 2)]
    out += [("human_judge", h, j) for h in humans for j in judges]
    if len(humans) >= 2:
        out += [("majority_judge", MAJORITY, j) for j in judges]
    out += [("judge_judge", a, b) for a, b in combinations(judges, 2)]
    return out


def criterion_comparisons(
    data: StudyData, criterion: str, opts: ViewOptions | None = None
) -> list[Comparison]:
    """Every agreement view of one criterion, whole and sliced.

    Args:
        data: the loaded study.
        criterion: the criterion's name.
        opts: interval options.

    Returns:
        Records with ``view``, ``criterion``, ``rater_a``, ``rater_b``, ``ties`` (``with``,
        ``without`` or None for non-pairwise criteria), ``slice`` (``all`` or ``by=value``),
        ``slice_by``, ``slice_value``, ``n``, ``metrics`` (name → figure) and ``confusion``
        (categories + matrix, rows = rater_a): :class:`.records.PairComparison`. Multi-rater
        records (view ``reviewers``) are :class:`.records.GroupComparison` (``raters``,
        ``n_complete``, ``vs_majority``).
    """
    opts = opts or ViewOptions()
    crit = data.criterion(criterion)
    kind = data.kind_of(criterion)
    level = crit.level if crit is not None else "nominal"
    cats = criterion_categories(data, criterion).values
    units = data.labelled_units(criterion)
    the_kind = kinds.get(kind)
    pairwise = the_kind.tie_value is not None
    ties: list[str | None] = ["with", "without"] if pairwise else [None]
    by = opts.by
    by = (*by, *(f for f in the_kind.default_slices if f not in by))
    slicers = slice_dimensions(data, units, by) if opts.slices or by else {}
    col = LabelColumns.of(data, criterion, units)
    if col.options is not None:
        slicers = {name: col.options.spread(keys) for name, keys in slicers.items()}
        if opts.slices:
            slicers["option"] = col.options.letters()
    out: list[Comparison] = []

    columns: list[tuple[str, str, str, list[Hashable | None], list[Hashable | None]]] = []
    for view, a, b in _pairs(data, criterion):
        columns.append((view, a, b, col(a), col(b)))
    if pairwise:
        for judge in data.raters(criterion, "judge"):
            ab, ba = ab_ba_columns(data, judge, units)
            if any(x is not None for x in ab) or any(x is not None for x in ba):
                columns.append(("ab_ba", f"{judge} [AB]", f"{judge} [BA]", ab, ba))

    def emit(
        view: str,
        a: str,
        b: str,
        ca: list[Hashable | None],
        cb: list[Hashable | None],
        tie: str | None,
    ) -> None:
        compared = Compared(view=view, criterion=criterion, rater_a=a, rater_b=b, ties=tie)
        xa, xb = without_ties(ca, cb) if tie == "without" else (ca, cb)
        # without ties the tie is no category either (AC1's and S's q)
        stats = _two(xa, xb, untied_categories(cats) if tie == "without" else cats, level, opts)
        scores = None
        if view == "majority_judge":
            scores = classification(
                classification_of_cells(
                    stats.confusion.cells,
                    stats.confusion.categories,
                    intervals=opts.intervals,
                    n_boot=opts.n_boot,
                    seed=opts.seed,
                    confidence=opts.confidence,
                )
            )
        out.append(
            pair_comparison(
                stats,
                compared,
                no_units=None if stats.n else _no_pair(a, b, ca, cb, tie == "without"),
                masi=None if col.options is None else Figure.of(col.masi([a, b], opts)),
                scores=scores,
            )
        )
        if tie == "without":
            return
        for by, keys in slicers.items():
            groups: dict[str, list[int]] = {}
            for i, value in enumerate(keys):
                if value is not None:
                    groups.setdefault(value, []).append(i)
            for value in slice_order(list(groups)):
                idx = groups[value]
                s = _two([ca[i] for i in idx], [cb[i] for i in idx], cats, level, opts)
                if s.n == 0:
                    continue
                out.append(pair_comparison(s, compared, slice_by=by, slice_value=value))

    for view, a, b, ca, cb in columns:
        for tie in ties:
            emit(view, a, b, ca, cb, tie)

    humans = data.raters(criterion, "human")
    if len(humans) >= 3:
        table = [list(row) for row in zip(*(col(h) for h in humans), strict=True)]
        group = Compared(
            view="reviewers",
            criterion=criterion,
            rater_a=f"{len(humans)} reviewers",
            rater_b=None,
            ties="with" if pairwise else None,
        )
        whole = _multi(table, humans, cats, level, opts)
        masi = None if col.options is None else Figure.of(col.masi(humans, opts))
        out.append(group_comparison(whole, group, masi=masi))
        # a multi-select criterion: each option's binary units on their own too
        for letter in slice_order(sorted({x for x in slicers.get("option", []) if x})):
            rows = [row for row, x in zip(table, slicers["option"], strict=True) if x == letter]
            stats = _multi(rows, humans, cats, level, opts)
            out.append(group_comparison(stats, group, slice_by="option", slice_value=letter))
    return out


def _multi(
    table: list[list[Hashable | None]],
    raters: list[str],
    cats: list[Hashable] | None,
    level: str,
    opts: ViewOptions,
) -> MultiRaterStats:
    kw: dict[str, Any] = {
        "intervals": opts.intervals,
        "n_boot": opts.n_boot,
        "seed": opts.seed,
        "confidence": opts.confidence,
    }
    try:
        return multi_rater_stats(table, raters, categories=cats, scale=level, **kw)
    except ValueError:  # a label outside the declared set: observed labels, nominal
        return multi_rater_stats(table, raters, **kw)


def reference_comparisons(
    data: StudyData, criterion: str, opts: ViewOptions | None = None
) -> list[PairComparison]:
    """Each rater (and the reviewers' majority) vs the latest adjudication, on one criterion.

    Accuracy is the percent agreement with the reference; κ is Cohen's κ against it. Only
    units with an adjudication count.

    Returns:
        Records like :func:`criterion_comparisons` with ``view="reference"`` and
        ``rater_b`` = :data:`~.study_data.REFERENCE`.
    """
    opts = opts or ViewOptions()
    crit = data.criterion(criterion)
    units = [u for u in data.labelled_units(criterion) if u in data.adjudications]
    if not units:
        return []
    level = crit.level if crit is not None else "nominal"
    cats = criterion_categories(data, criterion).values
    col = LabelColumns.of(data, criterion, units)
    ref = col(REFERENCE)
    humans = data.raters(criterion, "human")
    raters = humans + ([MAJORITY] if len(humans) >= 2 else []) + data.raters(criterion, "judge")
    out = []
    for r in raters:
        stats = _two(col(r), ref, cats, level, opts)
        compared = Compared(
            view="reference", criterion=criterion, rater_a=r, rater_b=REFERENCE, ties=None
        )
        rater_kind = "majority" if r == MAJORITY else data.rater_kinds.get(r)
        why = None if stats.n else _no_pair(r, REFERENCE, col(r), ref, False)
        out.append(pair_comparison(stats, compared, no_units=why, rater_kind=rater_kind))
    return out


def unresolved_disagreements(data: StudyData, criterion: str) -> int:
    """Units where the current labels of two or more raters differ and nobody adjudicated."""
    m = data.labels.get(criterion)
    if m is None:
        return 0
    return sum(u not in data.adjudications for u in m.disagreeing())
