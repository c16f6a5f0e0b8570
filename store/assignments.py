"""Assigning items to reviewers, in batches (leads only)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .people import given_name, person_name
from .roles import require
from .study import Study, audit, dumps, utcnow


def assign(
    study: Study,
    logins: Sequence[str],
    item_ids: Sequence[int],
    *,
    by: str,
    batch: str | None = None,
    overlap: int | None = None,
) -> dict[str, int]:
    """Assign items to reviewers.

    Args:
        study: the open study.
        logins: the reviewers.
        item_ids: the items, in order.
        by: who assigns (must be a lead).
        batch: a name for this batch of assignments.
        overlap: each item goes to this many reviewers, round robin (default: every reviewer
            gets every item, which is what agreement needs).

    Returns:
        login → number of newly assigned items.
    """
    require(study, by, "assign")
    logins = reviewer_logins(logins)
    k = len(logins) if overlap is None else max(1, min(overlap, len(logins)))
    with study.tx() as conn:
        added = insert_assignments(conn, logins, item_ids, by=by, batch=batch, overlap=k)
        audit(
            conn,
            by,
            "assign",
            f"batch:{batch or '-'}",
            None,
            dumps({"reviewers": list(logins), "items": len(item_ids), "overlap": k}),
        )
    return added


def reviewer_logins(logins: Sequence[str]) -> list[str]:
    """The reviewers' login names, checked, each once, in the order given."""
    return list(dict.fromkeys(given_name(x, "reviewer login") for x in logins))


def insert_assignments(
    conn: sqlite3.Connection,
    logins: Sequence[str],
    item_ids: Sequence[int],
    *,
    by: str,
    batch: str | None,
    overlap: int,
    sample_id: int | None = None,
) -> dict[str, int]:
    """Assign each item to ``overlap`` of the reviewers, round robin (inside a transaction).

    With ``sample_id`` the assignments name that sample, including an earlier manual
    assignment of the same item to the same reviewer (it now serves the sample).

    Returns:
        login → number of newly assigned items.
    """
    added = {login: 0 for login in logins}
    now = utcnow()
    for i, item_id in enumerate(item_ids):
        for j in range(overlap):
            login = logins[(i + j) % len(logins)]
            cur = conn.execute(
                "INSERT OR IGNORE INTO assignments (item_id, login, batch, assigned_by, at, sample_id) VALUES (?, ?, ?, ?, ?, ?)",
                (item_id, login, batch, by, now, sample_id),
            )
            added[login] += cur.rowcount
            if sample_id is not None and not cur.rowcount:
                conn.execute(
                    "UPDATE assignments SET sample_id = ? WHERE item_id = ? AND login = ? AND sample_id IS NULL",
                    (sample_id, item_id, login),
                )
    return added


def assignment_counts(study: Study) -> dict[str, int]:
    """login → number of assigned items."""
    return dict(
        study.conn.execute("SELECT login, count(*) FROM assignments GROUP BY login").fetchall()
    )


def unassign(study: Study, login: str, *, by: str, batch: str | None = None) -> int:
    """Remove a reviewer's assignments (optionally one batch); returns how many."""
    require(study, by, "assign")
    login = person_name(login, "reviewer login")
    with study.tx() as conn:
        if batch is None:
            cur = conn.execute("DELETE FROM assignments WHERE login = ?", (login,))
        else:
            cur = conn.execute(
                "DELETE FROM assignments WHERE login = ? AND batch = ?", (login, batch)
            )
        audit(
            conn,
            by,
            "unassign",
            f"reviewer:{login}",
            dumps({"batch": batch, "items": cur.rowcount}),
            None,
        )
        return cur.rowcount
