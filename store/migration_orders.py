"""Migration ``017_answer_orders``: an item's display order is a permutation of its answer slots.

Before it, a pairwise item had a swap bit (``items.swap``: answer B shown first) and every
order was ``AB`` or ``BA``, written into CHECKs; an item had at most the answers ``A`` and ``B``.
After it:

- ``items.shown_order`` holds the order an item's answers are shown in, its slot letters first
  shown first (``AB``, ``BA``, ``CAB``), for kinds that shuffle their answers (NULL otherwise);
  it is filled from the swap bit, which goes;
- the CHECKs on ``answers.position`` (``A``, ``B``, ``answer``, ``explanation``) and on the
  ``display_order`` columns of labels, their history and notes (``AB``, ``BA``) go: which slots
  and orders an item may have is the kind's (``medjudge.kinds``), checked at import, as the
  item kinds themselves have been since migration 010.

Old studies read unchanged: a pairwise item's order is ``BA`` where its bit was set, ``AB``
otherwise, exactly the orders stored with labels and shown in exports.
"""

from __future__ import annotations

import sqlite3

_OPENED = (
    ("answers", " CHECK (position IN ('A', 'B', 'answer', 'explanation'))", ""),
    ("labels", " CHECK (display_order IN ('AB', 'BA'))", ""),
    ("label_history", " CHECK (display_order IN ('AB', 'BA'))", ""),
    ("item_notes", " CHECK (display_order IN ('AB', 'BA'))", ""),
)


def m017_answer_orders(conn: sqlite3.Connection) -> None:
    """Orders as permutations: ``items.shown_order`` from the swap bit, the two-answer CHECKs
    opened."""
    from .migrations import _rewrite_checks  # the one way a CHECK changes (migration 006)

    _rewrite_checks(conn, _OPENED, "open the answer orders")
    conn.execute("ALTER TABLE items ADD COLUMN shown_order TEXT")
    # Only pairwise items had an order before this migration (the swap bit was 0 for others).
    conn.execute(
        "UPDATE items SET shown_order = CASE swap WHEN 1 THEN 'BA' ELSE 'AB' END "
        "WHERE kind = 'pairwise'"
    )
    conn.execute("ALTER TABLE items DROP COLUMN swap")
