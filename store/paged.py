"""An item's statements or units read from the study a page at a time.

The importer accepts items of up to 100,000 statements; reading them all (and building a
tuple per row) before the review app can draw anything took most of a second. A
:class:`Paged` list knows its length from one ``count(*)`` and reads a page of rows when an
index in it is first asked for, so the first screen reads the rows it shows and little more.
Iterating reads every row through one cursor (no page arithmetic), for the callers that need
them all (a judge's prompt, the full-screen reader).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

T = TypeVar("T")

PAGE = 500
"""Rows read at once for an index."""


def position(index: int, length: int) -> int:
    """A sequence index made non-negative (``-1`` is the last), as lists count them.

    Raises:
        IndexError: outside the sequence.
    """
    at = index + length if index < 0 else index
    if not 0 <= at < length:
        raise IndexError(index)
    return at


class Paged(Sequence[T]):
    """The rows of ``SELECT … WHERE item_id = ? ORDER BY position`` as a read-only sequence.

    ``select`` is the query without ``LIMIT``; ``make`` builds one element from a row's
    columns. The rows must not change while the sequence lives (an item's statements and
    units never do: they are written once, at import).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        select: str,
        item_id: int,
        count: int,
        make: Callable[..., T],
    ) -> None:
        self._conn = conn
        self._select = select
        self._item_id = item_id
        self._count = count
        self._make = make
        self._pages: dict[int, list[T]] = {}
        self._all: list[T] | None = None

    def __len__(self) -> int:
        return self._count

    @property
    def rows_read(self) -> int:
        """How many rows have been read from the study so far (all of them once iterated)."""
        if self._all is not None:
            return len(self._all)
        return sum(len(rows) for rows in self._pages.values())

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        index = position(index, self._count)
        if self._all is not None:
            return self._all[index]
        page, at = divmod(index, PAGE)
        rows = self._pages.get(page)
        if rows is None:
            rows = self._pages[page] = self._read(f" LIMIT {PAGE} OFFSET {page * PAGE}")
        return rows[at]

    def __iter__(self) -> Iterator[T]:
        if self._all is None:  # one read of every row, kept: pages are no longer needed
            self._all, self._pages = self._read(""), {}
        return iter(self._all)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable cache, compared by content

    def __repr__(self) -> str:
        return f"Paged(item {self._item_id}, {self._count} rows)"

    def _read(self, limit: str) -> list[T]:
        cursor = self._conn.cursor()  # tuples, not Rows
        cursor.row_factory = None
        rows: list[Any] = cursor.execute(self._select + limit, (self._item_id,)).fetchall()
        make = self._make
        return [make(*r) for r in rows]
