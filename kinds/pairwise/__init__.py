"""The ``pairwise`` kind: its model (:mod:`.model`: import, values, units, judge plan).

``pairwise``: two answers to one question compared on criteria (A / B / tie / neither).
"""

from .model import (
    KIND,
    ORDERS,
    SPELLINGS,
    VERDICTS,
    Pairwise,
    reply_schema,
)

__all__ = [
    "KIND",
    "ORDERS",
    "Pairwise",
    "SPELLINGS",
    "VERDICTS",
    "reply_schema",
]
