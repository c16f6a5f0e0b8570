"""The ``ranking`` kind: its model (:mod:`.model`: import, values, keys that build a ranking,
judge plan), its review facet (:mod:`.review`), its report section (:mod:`.report`) and the
agreement figures a ranking has (:mod:`.agreement`).

Two to five answers ranked from best to worst.
"""

from .model import CRITERION, KIND, MAX_ANSWERS, MIN_ANSWERS, Ranking, fits, parse_ranking, resolve

__all__ = [
    "CRITERION",
    "KIND",
    "MAX_ANSWERS",
    "MIN_ANSWERS",
    "Ranking",
    "fits",
    "parse_ranking",
    "resolve",
]
