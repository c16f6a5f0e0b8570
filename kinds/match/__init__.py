"""The ``match`` kind: its model (:mod:`.model`: import, values, units, judge plan).

``match`` (MedRGB): a (RAG) model's prediction scored against the ground truth: 1 / 0.5 / 0,
"""

from .model import (
    CRITERION,
    DOCUMENT_KINDS,
    KIND,
    REPLY_SCHEMA,
    SCORES,
    SPELLINGS,
    SUB_CRITERION,
    Match,
)

__all__ = [
    "CRITERION",
    "DOCUMENT_KINDS",
    "KIND",
    "Match",
    "REPLY_SCHEMA",
    "SCORES",
    "SPELLINGS",
    "SUB_CRITERION",
]
