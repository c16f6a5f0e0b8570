"""A judge's latest verdicts on a study's units, as the report holds them: one entry per unit
in two arrays (the unit's id, which of the judge's distinct verdicts it got), not an object
per verdict, and of each verdict's trail only the facts the figures read (:mod:`.trail_facts`).
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, ItemsView, Iterator
from dataclasses import dataclass

from medjudge.judging.analysis.id_column import ByUnitId, IdColumn
from medjudge.judging.analysis.trail_facts import TrailFacts
from medjudge.judging.analysis.value_codes import code_of


@dataclass(frozen=True, slots=True)
class VerdictInfo:
    """A judge's latest verdict on a unit."""

    value: Hashable | None
    status: str
    facts: TrailFacts
    """What the report reads from the verdict's trail (the trail itself is not kept)."""


class VerdictTable(ByUnitId[VerdictInfo]):
    """One judge's latest verdicts by unit id, as columns: the units (increasing) and, for
    each, which of the judge's distinct verdicts it got (equal verdicts are one object)."""

    def __init__(self) -> None:
        self._ids = IdColumn()
        self._which = array("l")
        self._distinct: list[VerdictInfo] = []
        self._position: dict[VerdictInfo, int] = {}

    def add(self, unit_id: int, verdict: VerdictInfo) -> None:
        """Append the verdict on one unit (units in increasing order).

        Raises:
            ValueError: ``unit_id`` is not greater than the last one added.
        """
        self._ids.append(unit_id)
        self._which.append(code_of(self._distinct, self._position, verdict))

    def __getitem__(self, unit_id: int) -> VerdictInfo:
        return self._distinct[self._which[self._ids.at(unit_id)]]

    def items(self) -> ItemsView[int, VerdictInfo]:  # one pass, no look-up per unit
        return _VerdictItems(self)


class _VerdictItems(ItemsView[int, VerdictInfo]):
    def __init__(self, table: VerdictTable) -> None:
        super().__init__(table)
        self._table = table

    def __iter__(self) -> Iterator[tuple[int, VerdictInfo]]:
        t = self._table
        distinct = t._distinct
        return ((u, distinct[k]) for u, k in zip(t._ids.ids, t._which, strict=True))
