"""Gold items: units whose expected value the import file gave (``gold``).

Gold values live in the item's data (``items.data.gold``: ``[criterion, statement position or
null, value]`` triples) and are never shown on the review screen, so gold items sit in
reviewers' queues unmarked. Only the report reads them back, to give each rater's accuracy.
"""

from __future__ import annotations

import json

from .study import Study

_GOLD_ITEMS = "SELECT id, data FROM items WHERE json_extract(data, '$.gold') IS NOT NULL"
_UNIT = """
    SELECT u.id FROM units u LEFT JOIN statements s ON s.id = u.statement_id
    WHERE u.item_id = ? AND u.criterion = ? AND (s.position IS ? OR (? IS NULL AND s.id IS NULL))"""


def gold_values(study: Study) -> dict[int, str]:
    """Unit id → the expected value, for every gold unit of the study."""
    out: dict[int, str] = {}
    conn = study.conn
    for item_id, data in conn.execute(_GOLD_ITEMS).fetchall():
        for criterion, position, value in json.loads(data)["gold"]:
            row = conn.execute(_UNIT, (item_id, criterion, position, position)).fetchone()
            if row is not None:
                out[int(row[0])] = str(value)
    return out
