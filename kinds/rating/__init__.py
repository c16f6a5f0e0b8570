"""The ``rating`` kind: its model (:mod:`.model`: import, values, units, judge plan).

``rating``: a candidate explanation of a multiple-choice case rated on Likert scales, and
"""

from .model import (
    KIND,
    Rating,
    reply_schema,
)

__all__ = [
    "KIND",
    "Rating",
    "reply_schema",
]
