"""A study's units as columns: a few bytes per unit, not an object per unit.

A report of a 100,000-statement study walks every unit several times; holding one Python
object per unit made its memory grow with the study (16 MB of ``UnitInfo`` alone at 100k
units). :class:`UnitTable` keeps the per-unit facts in typed arrays (id, item, criterion,
statement, category: 23 bytes a unit) and the per-item facts (import id, kind, batch, answer
sources, metadata) once per item. ``table[unit_id]`` builds the :class:`UnitInfo` when asked,
so code that reads one unit at a time keeps working while nothing per unit is held.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from medjudge.judging.analysis.id_column import ByUnitId, IdColumn
from medjudge.judging.analysis.value_codes import code_of

NO_STATEMENT = -1
"""The statement column's value for a unit that is not a statement (ids are positive)."""


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """One labelled thing with the item metadata used for slices."""

    id: int
    item_id: int
    item: str
    """The item's id from the import file."""
    kind: str
    criterion: str
    batch: str | None
    sources: tuple[str, ...]
    """Pairwise: (source of answer A, source of answer B); otherwise (the answer's source,)."""
    category: str | None = None
    """Statements only: ``must_have`` or ``nice_to_have``."""
    statement_id: int | None = None
    meta: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    """The item's metadata (extra fields of its import row), as text, for ``--by`` slices."""
    entry: int | None = None
    """A listed entry's number on its item (from 1, as the review app numbers them)."""

    @property
    def source_label(self) -> str:
        """One text naming the unit's answer source(s): ``x`` or ``x vs y`` (sorted)."""
        return source_label(self.sources)


def source_label(sources: tuple[str, ...]) -> str:
    """One text naming answer sources: ``x`` or ``x vs y`` (sorted)."""
    return " vs ".join(sorted(sources))


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """What every unit of one item shares."""

    item_id: int
    ext_id: str
    kind: str
    batch: str | None
    sources: tuple[str, ...]
    meta: dict[str, str]


class UnitTable(ByUnitId[UnitInfo]):
    """Units by id, stored as columns; add them in increasing id order with :meth:`add`."""

    def __init__(self) -> None:
        self._ids = IdColumn()
        self._item = array("l")
        self._criterion = array("h")
        self._category = array("b")
        self._statement = array("q")
        self._entry = array("l")
        self._items: list[ItemFacts] = []
        self._item_index: dict[int, int] = {}
        self._criteria: list[str] = []
        self._criterion_code: dict[str, int] = {}
        self._categories: list[str] = []
        self._category_code: dict[str, int] = {}
        self._by_criterion: dict[str, array[int]] = {}

    def item_index(self, item_id: int) -> int | None:
        """The position of an item added with :meth:`add_item`, else None."""
        return self._item_index.get(item_id)

    def add_item(self, facts: ItemFacts) -> int:
        """Record an item's shared facts; returns its position for :meth:`add`."""
        self._item_index[facts.item_id] = len(self._items)
        self._items.append(facts)
        return len(self._items) - 1

    def add(
        self,
        unit_id: int,
        item: int,
        criterion: str,
        category: str | None,
        statement_id: int | None,
        entry: int | None = None,
    ) -> None:
        """Append one unit (``item``: the position :meth:`add_item` returned; ``entry``: a
        listed entry's number on its item).

        Raises:
            ValueError: ``unit_id`` is not greater than the last one added.
        """
        self._ids.append(unit_id)
        ids = self._by_criterion.get(criterion)
        if ids is None:
            ids = self._by_criterion[criterion] = array("q")
        ids.append(unit_id)
        self._item.append(item)
        self._criterion.append(code_of(self._criteria, self._criterion_code, criterion))
        self._category.append(
            -1 if category is None else code_of(self._categories, self._category_code, category)
        )
        self._statement.append(NO_STATEMENT if statement_id is None else statement_id)
        self._entry.append(0 if entry is None else entry)

    def __getitem__(self, unit_id: int) -> UnitInfo:
        i = self._ids.at(unit_id)
        facts = self._items[self._item[i]]
        category = self._category[i]
        statement = self._statement[i]
        return UnitInfo(
            unit_id,
            facts.item_id,
            facts.ext_id,
            facts.kind,
            self._criteria[self._criterion[i]],
            facts.batch,
            facts.sources,
            None if category < 0 else self._categories[category],
            None if statement == NO_STATEMENT else statement,
            facts.meta,
            self._entry[i] or None,
        )

    def criterion_of(self, unit_id: int) -> str | None:
        """A unit's criterion (no :class:`UnitInfo` built); None for an unknown unit."""
        i = self._ids.position(unit_id)
        return None if i is None else self._criteria[self._criterion[i]]

    def item_of(self, unit_id: int) -> ItemFacts | None:
        """The facts of a unit's item (no :class:`UnitInfo` built); None for an unknown unit."""
        i = self._ids.position(unit_id)
        return None if i is None else self._items[self._item[i]]

    def criterion_units(self) -> dict[str, Sequence[int]]:
        """Each criterion's unit ids, increasing (compact arrays, by first occurrence)."""
        return dict(self._by_criterion)

    def kind_counts(self) -> dict[str, int]:
        """Units per item kind, in the order the kinds first occur."""
        per_item: dict[int, int] = {}
        for i in self._item:
            per_item[i] = per_item.get(i, 0) + 1
        out: dict[str, int] = {}
        for i, n in per_item.items():
            kind = self._items[i].kind
            out[kind] = out.get(kind, 0) + n
        return out
