"""Reading items, their answers, statements and units.

Read-only helpers; items are written by :mod:`store.importing.writer`. An item's *units* are
what gets labelled: one per (item, criterion) for pairwise and rating items, one per statement
for statements items.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from medjudge import kinds
from medjudge.kinds import orders

from .db import StudyError
from .frames import shown_order
from .json_types import JsonObject
from .migrations import damaged
from .paged import Paged
from .retirements import retired_ids
from .settings import StudySettings
from .study import Study


@dataclass(frozen=True)
class Answer:
    """One model answer (or explanation) of an item; ``source`` is hidden from reviewers."""

    position: str
    text: str
    source: str


class Statement(NamedTuple):
    """A reference statement of a statements item (a tuple: an item may hold 100,000)."""

    id: int
    position: int
    text: str
    category: str


class Unit(NamedTuple):
    """One labelable thing: a criterion of an item, or one statement (a tuple, as above)."""

    id: int
    criterion: str
    statement_id: int | None
    position: int


@dataclass(frozen=True)
class Item:
    """An item with everything needed to show or judge it."""

    id: int
    ext_id: str
    kind: str
    question: str
    data: dict[str, Any]
    context: list[str]
    batch: str | None
    order: str | None
    """The order its answers are shown in, slot letters first shown first (``BA``, ``CAB``);
    None for kinds that do not shuffle their answers (:mod:`medjudge.kinds.orders`)."""
    answers: dict[str, Answer]
    statements: Sequence[Statement] = field(default_factory=list)
    """In position order; a :class:`~store.paged.Paged` list when read with ``paged=True``."""
    units: Sequence[Unit] = field(default_factory=list)
    """In labelling (position) order: the per-item criteria first, then one unit per listed
    entry, in the order of ``statements``."""

    @property
    def meta(self) -> JsonObject:
        """The import row's extra fields (``specialty``, ``test``, ``p``, …): item metadata."""
        meta: dict[str, Any] = self.data.get("meta") or {}
        return meta

    @property
    def slots(self) -> str:
        """The item's answer slots in file order (``AB``, ``ABC``; empty for items whose
        answers are not lettered: one ``answer``, an ``explanation``)."""
        return orders.slots_of(self.answers)

    def shown_answers(self) -> tuple[Answer, ...]:
        """The item's lettered answers in the order reviewers see them (left to right, top to
        bottom): the display order of :func:`store.frames.shown_order`."""
        order = shown_order(self) or self.slots
        return tuple(self.answers[slot] for slot in order)

    def statement_index(self, position: int | None) -> int | None:
        """The index in ``statements`` of the statement at this position (None: no such
        statement). The importer numbers an item's statements on without gaps, so the index is
        computed and checked — one page read for a paged item — and looked for only when the
        check fails."""
        statements = self.statements
        if position is None or not statements:
            return None
        guess = position - statements[0].position
        if 0 <= guess < len(statements) and statements[guess].position == position:
            return guess
        return next((n for n, st in enumerate(statements) if st.position == position), None)

    def unit_for(self, criterion: str, statement_id: int | None = None) -> Unit:
        """The unit of a criterion (or of one statement)."""
        for u in self.units:
            if u.criterion == criterion and u.statement_id == statement_id:
                return u
        raise KeyError((criterion, statement_id))


def item_order(kind: str, seed: int, ext_id: str, slots: str) -> str | None:
    """The order an item's answers are shown in, fixed at import: seeded by the study seed and
    the item id, reproducible (:meth:`medjudge.kinds.base.Kind.display_order`; for two answers
    about half are ``BA``); None for kinds that do not shuffle their answers."""
    return kinds.get(kind).display_order(slots, f"{seed}:{ext_id}")


def reviewer_order(kind: str, seed: int, login: str, ext_id: str, slots: str) -> str | None:
    """The order one reviewer sees an item's answers in (``settings --order per-reviewer``):
    seeded by the study seed, the reviewer's login and the item id — reproducible, independent
    between reviewers and items."""
    return kinds.get(kind).display_order(slots, json.dumps([seed, login, ext_id]))


def order_for(
    settings: StudySettings,
    reviewer: str | None,
    kind: str,
    ext_id: str,
    order: str | None,
) -> str | None:
    """The display order a reviewer sees an item with: the item's own (``per-item``, or no
    reviewer), or the reviewer's (``per-reviewer``, :func:`reviewer_order`); None for kinds
    without a display order."""
    if order is None or not kinds.get(kind).shuffles_answers:
        return None
    if settings.order == "per-reviewer" and reviewer is not None:
        return reviewer_order(kind, settings.seed, reviewer, ext_id, "".join(sorted(order)))
    return order


def seen_by(item: Item, settings: StudySettings, reviewer: str) -> Item:
    """The item as one reviewer sees it: its ``order`` is the reviewer's display order
    (:func:`order_for`), so everything that shows or converts letters for the reviewer
    (``Item.shown_answers``, :func:`store.frames.shown_order`) uses the reviewer's order."""
    order = order_for(settings, reviewer, item.kind, item.ext_id, item.order)
    return item if order == item.order else replace(item, order=order)


_STATEMENTS = (
    "SELECT id, position, text, category FROM statements WHERE item_id = ? ORDER BY position"
)
_UNITS = (
    "SELECT id, criterion, statement_id, position FROM units WHERE item_id = ? ORDER BY position"
)


def _count(conn: sqlite3.Connection, table: str, item_id: int) -> int:
    return int(
        conn.execute(f"SELECT count(*) FROM {table} WHERE item_id = ?", (item_id,)).fetchone()[0]
    )


def get_item(study: Study, item_id: int, *, paged: bool = False) -> Item:
    """Load one item with its answers, statements and units.

    With ``paged``, statements and units are :class:`~store.paged.Paged` lists, read a page
    at a time as they are indexed (the review app: an item may hold 100,000 statements and
    the first screen shows a few dozen); otherwise they are read at once.

    Raises:
        KeyError: no item with that id.
    """
    conn = study.conn
    row = conn.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        raise KeyError(item_id)
    answers = {
        r["position"]: Answer(r["position"], r["text"], r["source"])
        for r in conn.execute(
            "SELECT position, text, source FROM answers WHERE item_id = ?", (item_id,)
        )
    }
    statements: Sequence[Statement]
    units: Sequence[Unit]
    if paged:
        statements = Paged(
            conn, _STATEMENTS, item_id, _count(conn, "statements", item_id), Statement
        )
        units = Paged(conn, _UNITS, item_id, _count(conn, "units", item_id), Unit)
    else:
        plain = conn.cursor()  # tuples, not Rows: an item may have 100,000 statements
        plain.row_factory = None
        statements = list(itertools.starmap(Statement, plain.execute(_STATEMENTS, (item_id,))))
        units = list(itertools.starmap(Unit, plain.execute(_UNITS, (item_id,))))
    data, context = _stored_json(study, row)
    return Item(
        id=row["id"],
        ext_id=row["ext_id"],
        kind=row["kind"],
        question=row["question"],
        data=data,
        context=context,
        batch=row["batch"],
        order=row["shown_order"],
        answers=answers,
        statements=statements,
        units=units,
    )


def _stored_json(study: Study, row: sqlite3.Row) -> tuple[dict[str, Any], list[str]]:
    """An item's ``data`` (a JSON object) and ``context`` (a JSON list of texts), as the import
    wrote them; anything else is damage, said naming the item (every reader of items — a judge
    run's plan, the review app, adjudication — comes through :func:`get_item`).

    Raises:
        StudyError: the stored text is not valid JSON or not of that shape.
    """
    out: list[Any] = []
    for column, shape, empty in (("data", dict, "{}"), ("context", list, "[]")):
        text = row[column] or empty
        try:
            value = json.loads(text)
        except (ValueError, TypeError):
            problem = "is not valid JSON"
        else:
            if isinstance(value, shape) and (
                shape is dict or all(isinstance(x, str) for x in value)
            ):
                out.append(value)
                continue
            problem = "is not a JSON object" if shape is dict else "is not a JSON list of texts"
        raise StudyError(damaged(study.path, f"item {row['ext_id']}: its {column} {problem}"))
    return out[0], out[1]


def find_item(study: Study, ext_id: str) -> int | None:
    """The internal id of an item given its id from the import file."""
    row = study.conn.execute("SELECT id FROM items WHERE ext_id = ?", (ext_id,)).fetchone()
    return int(row[0]) if row else None


class ItemRef(NamedTuple):
    """A light reference to an item, for lists and navigation (a tuple: 10,000 of them are
    built in milliseconds when the review app opens)."""

    id: int
    ext_id: str
    kind: str
    batch: str | None


def list_items(
    study: Study,
    *,
    kind: str | None = None,
    assigned_to: str | None = None,
    batch: str | None = None,
    retired: bool = False,
) -> list[ItemRef]:
    """Items in import order, optionally only one kind, one batch, or one reviewer's assignment.

    Retired items (``store.retirements``) are left out — this is the list every queue reads
    (review, assign, judge) — unless ``retired`` is True."""
    sql = "SELECT i.id, i.ext_id, i.kind, i.batch FROM items i"
    args: list[Any] = []
    where: list[str] = []
    if assigned_to is not None:
        sql += " JOIN assignments a ON a.item_id = i.id AND a.login = ?"
        args.append(assigned_to)
    if kind is not None:
        where.append("i.kind = ?")
        args.append(kind)
    if batch is not None:
        where.append("i.batch = ?")
        args.append(batch)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY i.id"
    cursor = study.conn.cursor()
    cursor.row_factory = None  # plain tuples: no sqlite3.Row per item
    refs = list(map(ItemRef._make, cursor.execute(sql, args)))
    gone = set() if retired else retired_ids(study)
    return [r for r in refs if r.id not in gone] if gone else refs


def count_items(study: Study) -> dict[str, int]:
    """Number of items per kind."""
    return {
        r[0]: r[1] for r in study.conn.execute("SELECT kind, count(*) FROM items GROUP BY kind")
    }


def unit_count(study: Study, item_id: int) -> int:
    """How many units an item has."""
    return _count(study.conn, "units", item_id)


def unit_index(study: Study, item_id: int, unit_id: int) -> int | None:
    """Where a unit stands in its item's labelling order (the index into ``Item.units``), from
    the units index without reading the units before it; None when the item has no such
    unit."""
    row = study.conn.execute(
        "SELECT (SELECT count(*) FROM units b WHERE b.item_id = u.item_id "
        "AND b.position < u.position) FROM units u WHERE u.id = ? AND u.item_id = ?",
        (unit_id, item_id),
    ).fetchone()
    return None if row is None else int(row[0])
