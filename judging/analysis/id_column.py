"""Ids in increasing order, 8 bytes each, found by binary search: the key column of the
report's per-unit tables (:mod:`.unit_table`, the verdicts of :mod:`.study_data`)."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from typing import TypeVar

V = TypeVar("V")


class IdColumn:
    """Unit ids, appended in increasing order."""

    def __init__(self) -> None:
        self.ids = array("q")

    def append(self, unit_id: int) -> None:
        """Add the next id.

        Raises:
            ValueError: ``unit_id`` is not greater than the last one.
        """
        if self.ids and unit_id <= self.ids[-1]:
            raise ValueError(f"units must be added in increasing id order ({unit_id})")
        self.ids.append(unit_id)

    def position(self, unit_id: object) -> int | None:
        """Where ``unit_id`` is, or None."""
        if not isinstance(unit_id, int):
            return None
        i = bisect_left(self.ids, unit_id)
        return i if i < len(self.ids) and self.ids[i] == unit_id else None

    def at(self, unit_id: int) -> int:
        """Where ``unit_id`` is.

        Raises:
            KeyError: it is not here.
        """
        i = self.position(unit_id)
        if i is None:
            raise KeyError(unit_id)
        return i

    def __contains__(self, unit_id: object) -> bool:
        return self.position(unit_id) is not None

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


class ByUnitId(Mapping[int, V]):
    """A read-only mapping keyed by an :class:`IdColumn` (``_ids``); subclasses give
    ``__getitem__``."""

    _ids: IdColumn

    def __contains__(self, unit_id: object) -> bool:
        return unit_id in self._ids

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)
