"""Read-only queries the review app needs that the other store modules do not offer.

Plain SQL over the schema of :mod:`store.migrations`; nothing here writes. Each function is
one or two statements so the app can call them on its main thread between keypresses (a
10,000-item study answers in a few milliseconds).
"""

from __future__ import annotations

import sqlite3

from . import retirements
from .study import Study


def _tuples(study: Study) -> sqlite3.Cursor:
    """A cursor that returns plain tuples (no ``sqlite3.Row`` per row: counts over 10,000
    items are read in a few milliseconds when the review app opens)."""
    cursor = study.conn.cursor()
    cursor.row_factory = None
    return cursor


def unit_counts(study: Study) -> dict[int, int]:
    """How many units each item has: item id → count.

    Args:
        study: the open study.

    Returns:
        A dict with an entry for every item that has units.
    """
    return dict(_tuples(study).execute("SELECT item_id, count(*) FROM units GROUP BY item_id"))


def labelled_counts(study: Study, rater: str) -> dict[int, int]:
    """How many units of each item one rater has labelled: item id → count.

    Args:
        study: the open study.
        rater: the rater's name.

    Returns:
        Only items with at least one label by that rater appear.
    """
    return dict(
        _tuples(study).execute(
            "SELECT u.item_id, count(*) FROM labels l JOIN units u ON u.id = l.unit_id "
            "JOIN raters r ON r.id = l.rater_id WHERE r.name = ? GROUP BY u.item_id",
            (rater,),
        )
    )


def has_assignments(study: Study, login: str) -> bool:
    """Whether the study assigns any items to this login.

    Args:
        study: the open study.
        login: the reviewer's login name.
    """
    return (
        study.conn.execute("SELECT 1 FROM assignments WHERE login = ? LIMIT 1", (login,)).fetchone()
        is not None
    )


def queue_signature(study: Study, login: str) -> tuple[int, int, int, int, int, int]:
    """What changes when a reviewer's queue can: the items (count, newest id), this login's
    assignments (count, newest) and the retirements (count, newest: an item retired or brought
    back). Three indexed aggregates, cheap to read on every poll."""
    items = study.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM items").fetchone()
    mine = study.conn.execute(
        "SELECT count(*), coalesce(max(rowid), 0) FROM assignments WHERE login = ?", (login,)
    ).fetchone()
    retired = retirements.changes(study)
    return int(items[0]), int(items[1]), int(mine[0]), int(mine[1]), *retired


def has_others(study: Study, item_id: int, rater: str) -> bool:
    """Whether anything would be revealed on an item: a judge verdict or another rater's label.

    Args:
        study: the open study.
        item_id: the item.
        rater: the reviewer whose own labels do not count.
    """
    return (
        study.conn.execute(
            "SELECT 1 FROM labels l JOIN units u ON u.id = l.unit_id "
            "JOIN raters r ON r.id = l.rater_id WHERE u.item_id = ? AND r.name != ? "
            "UNION ALL SELECT 1 FROM verdicts v JOIN units u ON u.id = v.unit_id "
            "WHERE u.item_id = ? LIMIT 1",
            (item_id, rater, item_id),
        ).fetchone()
        is not None
    )


def last_history_id(study: Study) -> int:
    """The id of the newest label history row (0 in a study without labels)."""
    return int(study.conn.execute("SELECT coalesce(max(id), 0) FROM label_history").fetchone()[0])
