"""Migration ``019_requeue_action``: a label withdrawn by a lead (``medjudge requeue``) is a
``label_history`` row of its own action, ``requeue`` (old value kept, new value NULL), so the
item goes back to the reviewer's queue and the history says why the label went.

Only widens the CHECK on ``label_history.action`` (every stored row meets it already), the way
migration 006 widened the kinds' CHECKs.
"""

from __future__ import annotations

import sqlite3

_WIDENED = (
    (
        "label_history",
        "CHECK (action IN ('label', 'undo', 'import', 'verdict'))",
        "CHECK (action IN ('label', 'undo', 'import', 'verdict', 'requeue'))",
    ),
)


def m019_requeue_action(conn: sqlite3.Connection) -> None:
    """``requeue`` added to the actions of ``label_history``."""
    from .migrations import _rewrite_checks  # the one way a CHECK changes (migration 006)

    _rewrite_checks(conn, _WIDENED, "add the requeue action")
