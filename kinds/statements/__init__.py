"""The ``statements`` kind: its model (:mod:`.model`: import, values, units, judge plan).

``statements``: one answer checked against physician statements (entailed / neutral /
"""

from .model import (
    CATEGORIES,
    CRITERION,
    KIND,
    LABELS,
    MAX_STATEMENTS,
    NLI_REPLY,
    SPELLINGS,
    YES_NO_REPLY,
    Statements,
)

__all__ = [
    "CATEGORIES",
    "CRITERION",
    "KIND",
    "LABELS",
    "MAX_STATEMENTS",
    "NLI_REPLY",
    "SPELLINGS",
    "Statements",
    "YES_NO_REPLY",
]
