"""Agreement between rankings of the same answers: Kendall's W of several rankers on one item,
and how often two rankers order each pair of answers alike.

Plain functions over stored rankings (``B>A>C``, :mod:`.model`); the report section
(:mod:`.report`) averages them over items with bootstrap intervals. A ranking here is a strict
order, so W needs no correction for ties.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .model import letters, ranks


def kendall_w(rankings: Sequence[str]) -> float | None:
    """Kendall's coefficient of concordance of ``m`` rankings of the same ``n`` answers:
    ``W = 12 S / (m² (n³ − n))``, ``S`` the sum of squared deviations of the answers' rank sums
    from their mean. 1: every ranker ranked alike; 0: no agreement beyond chance. None with
    fewer than two rankings or two answers, or rankings of different answers."""
    if len(rankings) < 2:
        return None
    answers = sorted(letters(rankings[0]))
    n, m = len(answers), len(rankings)
    if n < 2 or any(sorted(letters(r)) != answers for r in rankings):
        return None
    per = [ranks(r) for r in rankings]
    sums = [sum(r[a] for r in per) for a in answers]
    mean = m * (n + 1) / 2
    s = sum((x - mean) ** 2 for x in sums)
    return 12 * s / (m * m * (n**3 - n))


def pairs_alike(a: str, b: str) -> tuple[int, int]:
    """How many pairs of answers two rankings of the same answers order alike, of how many."""
    ra, rb = ranks(a), ranks(b)
    if sorted(ra) != sorted(rb):
        return 0, 0
    pairs = list(itertools.combinations(sorted(ra), 2))
    alike = sum((ra[x] < ra[y]) == (rb[x] < rb[y]) for x, y in pairs)
    return alike, len(pairs)
