"""What the agreement views (:mod:`.views`) compare: the options the figures are computed with,
a criterion's categories, its label columns (a multi-select criterion's as binary option units),
a judge's AB and BA verdict columns, and the slice dimensions with their order."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from medjudge import kinds
from medjudge.judging.analysis.study_data import (
    MAJORITY,
    REFERENCE,
    StudyData,
    categories_for,
    strict_majority,
)
from medjudge.judging.analysis.unit_table import UnitInfo
from medjudge.judging.stats.agreement.sets import OptionUnits, masi_alpha_estimate, parse_ticks
from medjudge.judging.stats.estimates import N_BOOT, Estimate
from medjudge.store.slices import finite_number


@dataclass(frozen=True)
class ViewOptions:
    """How the figures are computed.

    Attributes:
        intervals: Compute confidence intervals (each statistic's one method).
        n_boot: Bootstrap resamples (BCa figures).
        seed: Bootstrap seed (same seed, same intervals).
        confidence: Confidence level.
        slices: Compute slices at all.
    """

    intervals: bool = True
    n_boot: int = N_BOOT
    seed: int = 0
    confidence: float = 0.95
    slices: bool = True
    by: tuple[str, ...] = ()
    """Item fields (metadata of the import rows) to slice every figure by, besides the usual."""


@dataclass(frozen=True)
class Categories:
    """The categories a criterion's figures count, and where they come from."""

    values: list[Hashable] | None
    """In order: the declared (or default) ones, then :attr:`extra`; None for option sets."""
    declared: bool
    """Whether the study declared them (``settings --categories``), else the kind's default."""
    extra: list[Hashable]
    """Labels raters gave that are outside the declared or default set (counted too)."""
    options: bool = False
    """A multi-select criterion: the categories of its binary option units."""

    def note(self, criterion: str) -> str:
        """One sentence for every output: the categories, how many, and why."""
        if self.values is None:
            return "Categories: the option sets raters gave (a multi-select criterion)."
        if self.options:
            return (
                f"Categories (q = {len(self.values)}): {', '.join(map(str, self.values))} — "
                "each option an item declares is one unit (a multi-select criterion); the sets "
                "as wholes get Krippendorff's α with the MASI distance."
            )
        base = [v for v in self.values if v not in self.extra]
        how = (
            "declared with settings --categories"
            if self.declared
            else f"the default; declare them with settings --categories {criterion}=…"
        )
        line = f"Categories (q = {len(self.values)}): {', '.join(map(str, base))} ({how})"
        if self.extra:
            line += (
                f", and {', '.join(map(str, self.extra))}, outside that set but given by "
                "raters, so counted too"
            )
        return line + "."


def criterion_categories(data: StudyData, criterion: str) -> Categories:
    """The criterion's categories (:func:`.study_data.categories_for`) plus any label a rater,
    a judge's AB or BA order, or an adjudication gave outside them."""
    crit = data.criterion(criterion)
    base = categories_for(crit)
    declared = crit is not None and crit.categories is not None
    if base is None:
        return Categories(None, declared, [])
    if crit is not None and crit.options:  # binary units of the declared options: no extras
        return Categories(base, True, [], options=True)
    known = set(base)
    units = data.labelled_units(criterion)
    seen: set[Hashable] = set()
    m = data.labels.get(criterion)
    for rater in m.raters() if m is not None else ():
        seen.update(data.column(criterion, rater, units))
    seen.update(data.column(criterion, REFERENCE, units))
    if kinds.get(data.kind_of(criterion)).two_orders:
        for judge in data.raters(criterion, "judge"):
            for column in ab_ba_columns(data, judge, units):
                seen.update(column)
    extra = [v for v in seen if v is not None and v not in known]
    order = list(kinds.get(data.kind_of(criterion)).values or ())
    extra.sort(key=lambda v: (order.index(v) if v in order else len(order), str(v)))
    return Categories([*base, *extra], declared, extra)


def slice_order(values: list[str]) -> list[str]:
    """Slice values in order: numerically when all are numbers (p = 0, 20, 100), else as text
    (``NaN`` and ``inf`` are text here: they have no place among numbers)."""
    numbers: list[float] = []
    for v in values:
        n = finite_number(v)
        if n is None:
            return sorted(values)
        numbers.append(n)
    return [v for _, v in sorted(zip(numbers, values, strict=True), key=lambda p: p[0])]


def slice_dimensions(
    data: StudyData, units: Sequence[int], by: Sequence[str] = ()
) -> dict[str, list[str | None]]:
    """Slice dimensions that split this criterion's units into two or more groups: batch,
    answer source, statement category, and each metadata field of ``by``; each with its
    value per unit (aligned with ``units``)."""
    candidates: dict[str, Callable[[UnitInfo], str | None]] = {
        "batch": lambda u: u.batch,
        "source": lambda u: u.source_label or None,
        "category": lambda u: u.category,
    }
    for name in by:
        if name == "kind":  # the item fields status --by takes too (store.slices.BUILT_IN)
            candidates[name] = lambda u: u.kind
        elif name != "batch":  # batch: the item's own field, above
            candidates[name] = lambda u, name=name: u.meta.get(name)  # type: ignore[misc]
    keys: dict[str, list[str | None]] = {name: [] for name in candidates}
    for u in units:
        info = data.units[u]  # built once per unit, read by every dimension
        for name, key in candidates.items():
            keys[name].append(key(info))
    return {name: values for name, values in keys.items() if len(set(values) - {None}) >= 2}


def ab_ba_columns(
    data: StudyData, judge: str, units: Sequence[int]
) -> tuple[list[Hashable | None], list[Hashable | None]]:
    """A judge's per-order verdicts (AB, BA) over units, from the verdict trails."""
    verdicts = data.verdicts_of(judge)
    ab: list[Hashable | None] = []
    ba: list[Hashable | None] = []
    for u in units:
        v = verdicts.get(u)
        ab.append(v.facts.ab if v is not None else None)
        ba.append(v.facts.ba if v is not None else None)
    return ab, ba


@dataclass(frozen=True)
class LabelColumns:
    """A criterion's label columns over its units, as its statistics compare them.

    A multi-select criterion (a set of ticked options per item) is compared the standard way:
    each option its item declares is a binary unit, ``ticked`` or ``not_ticked``
    (:class:`~medjudge.judging.stats.agreement.sets.OptionUnits`; the reviewers' majority is
    taken per option), and the sets as wholes by Krippendorff's α with the MASI distance
    (:meth:`masi`). Any other criterion's columns are its labels as stored.
    """

    data: StudyData
    criterion: str
    units: Sequence[int]
    options: OptionUnits | None

    @classmethod
    def of(cls, data: StudyData, criterion: str, units: Sequence[int]) -> LabelColumns:
        """The columns of ``criterion`` over ``units``."""
        crit = data.criterion(criterion)
        multi = crit is not None and crit.options
        options = OptionUnits.of(data.declared_options(units)) if multi else None
        return cls(data, criterion, units, options)

    def __call__(self, rater: str) -> list[Hashable | None]:
        """One rater's column (``MAJORITY`` and ``REFERENCE`` too)."""
        if self.options is None:
            return self.data.column(self.criterion, rater, self.units)
        if rater == MAJORITY and rater not in self.data.rater_kinds:
            humans = [self(h) for h in self.data.raters(self.criterion, "human")]
            return [strict_majority(votes) for votes in zip(*humans, strict=True)]
        return self.options.column(self.data.column(self.criterion, rater, self.units))

    def masi(self, raters: Sequence[str], opts: ViewOptions) -> Estimate:
        """MASI α of the raters' whole option sets (the majority: the whole-set majority)."""
        sets = [
            [
                parse_ticks(None if v is None else str(v))
                for v in self.data.column(self.criterion, r, self.units)
            ]
            for r in raters
        ]
        return masi_alpha_estimate(
            sets,
            intervals=opts.intervals,
            n_boot=opts.n_boot,
            seed=opts.seed,
            confidence=opts.confidence,
        )
