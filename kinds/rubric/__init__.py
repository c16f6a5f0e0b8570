"""The ``rubric`` kind: its model (:mod:`.model`: import, values, units, judge plan).

``rubric``: one answer marked against physician-written rubric criteria, each met or not
"""

from .model import (
    CATEGORY,
    CRITERION,
    DATA_FIELD,
    KIND,
    MAX_POINTS,
    ROLES,
    SPELLINGS,
    VALUES,
    Rubric,
    conservative,
    entries,
    entry,
    entry_at,
    score,
)

__all__ = [
    "CATEGORY",
    "CRITERION",
    "DATA_FIELD",
    "KIND",
    "MAX_POINTS",
    "ROLES",
    "Rubric",
    "SPELLINGS",
    "VALUES",
    "conservative",
    "entries",
    "entry",
    "entry_at",
    "score",
]
