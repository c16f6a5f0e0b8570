"""Migration ``018_unit_labels``: each unit says what it is, ``p0 / correctness`` or
``s0 / entailment 3`` (the third listed entry), in ``units.label`` — what a unit reads as in
Datasette (its label column), in ``sqlite3`` and in pandas, without a join.

Filled from the items and statements for every unit there is; the importer writes it with each
new unit (``store.importing.writer``). An entry's number is its place on its item from 1, as
the review app counts them.
"""

from __future__ import annotations

M018_UNIT_LABELS = """
ALTER TABLE units ADD COLUMN label TEXT;
UPDATE units SET label = (SELECT i.ext_id FROM items i WHERE i.id = units.item_id)
    || ' / ' || criterion;
UPDATE units SET label = label || ' ' || numbered.n
FROM (SELECT id, row_number() OVER (PARTITION BY item_id ORDER BY position) AS n
      FROM statements) AS numbered
WHERE numbered.id = units.statement_id;
"""


def unit_label(ext_id: str, criterion: str, entry: int | None) -> str:
    """A unit's label, as the migration writes it: ``ext_id / criterion[ N]``."""
    return f"{ext_id} / {criterion}" + (f" {entry}" if entry is not None else "")
