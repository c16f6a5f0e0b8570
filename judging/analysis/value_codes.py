"""Small integer codes for repeated values: the report's columns store a code per unit and
each distinct value once (criteria and categories of units, a judge's distinct verdicts, a
criterion's label values)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

V = TypeVar("V", bound=Hashable)


def code_of(values: list[V], codes: dict[V, int], value: V) -> int:
    """The position of ``value`` in ``values``, appended there on first sight (``codes`` maps
    each value to its position)."""
    code = codes.get(value)
    if code is None:
        code = codes[value] = len(values)
        values.append(value)
    return code
