"""Which judge a summary shows when a criterion has several: one rule for the app's overview,
the live agreement and the report.

The headline judge is the most complete one — the judge with a verdict on the most units of the
criterion, so the headline figure rests on the most data; among equally complete judges, the
study's setting (``medjudge settings STUDY --headline-judge NAME``), then the first by name (so
the choice is stable and says nothing about the judges' quality).
"""

from __future__ import annotations

from collections.abc import Mapping


def headline_judge(coverage: Mapping[str, int], preferred: str | None = None) -> str | None:
    """The headline judge given each judge's number of units with a verdict and the study's
    preferred judge (None: no judge)."""
    if not coverage:
        return None
    return min(coverage, key=lambda name: (-coverage[name], name != preferred, name))
