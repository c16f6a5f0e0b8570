"""Labels sent back to a reviewer (``medjudge requeue``): a reviewer's current labels on some
items withdrawn in one transaction, each as a ``label_history`` row of action ``requeue``
(the old value kept, the new one NULL), so the items show as not finished in the reviewer's
queue again. Nothing is deleted from the history; the ledger's time stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .labels import write_label
from .study import Study


@dataclass(frozen=True)
class Withdrawn:
    """One reviewer's labels withdrawn from one item."""

    reviewer: str
    item: str
    labels: int


def label_counts(study: Study) -> dict[tuple[str, str], int]:
    """(reviewer, item id) → the reviewer's current labels on the item (retired items left
    out)."""
    rows = study.conn.execute(
        "SELECT r.name, i.ext_id, count(*) FROM labels l JOIN raters r ON r.id = l.rater_id "
        "JOIN units u ON u.id = l.unit_id JOIN items i ON i.id = u.item_id "
        "WHERE r.kind = 'human' AND coalesce((SELECT t.retired FROM item_retirements t "
        "WHERE t.item_id = i.id ORDER BY t.id DESC LIMIT 1), 0) = 0 "
        "GROUP BY r.name, i.ext_id"
    )
    return {(str(r), str(i)): int(n) for r, i, n in rows}


def withdraw(study: Study, pairs: Sequence[tuple[str, str]], *, actor: str) -> list[Withdrawn]:
    """Withdraw each (reviewer, item id)'s current labels, all in one transaction.

    Returns:
        What was withdrawn, pair by pair (a pair without labels is left out).
    """
    done: list[Withdrawn] = []
    with study.tx() as conn:
        for reviewer, ext_id in pairs:
            rows = conn.execute(
                "SELECT l.unit_id, l.rater_id, l.display_order, "
                "EXISTS (SELECT 1 FROM reveals v WHERE v.item_id = i.id "
                "AND v.rater_id = l.rater_id) "
                "FROM labels l JOIN raters r ON r.id = l.rater_id "
                "JOIN units u ON u.id = l.unit_id JOIN items i ON i.id = u.item_id "
                "WHERE r.name = ? AND r.kind = 'human' AND i.ext_id = ? ORDER BY u.position",
                (reviewer, ext_id),
            ).fetchall()
            for unit_id, rater_id, order, revealed in rows:
                write_label(
                    conn,
                    int(unit_id),
                    int(rater_id),
                    None,
                    actor=actor,
                    action="requeue",
                    after_reveal=bool(revealed),
                    display_order=order,
                )
            if rows:
                done.append(Withdrawn(reviewer, ext_id, len(rows)))
    return done
