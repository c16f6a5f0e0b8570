"""Labels for agreement statistics: missing values, category lists, ties, and a live matrix.

Labels are hashable values (``str`` or ``int`` usually). ``None`` (and a float NaN) means
"missing". :class:`LabelMatrix` holds labels keyed by ``(unit, rater)`` and is cheap to
update one label at a time, so a live UI can recompute figures as labels arrive.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence

import numpy as np


def is_missing(label: object) -> bool:
    """Return whether ``label`` counts as missing (``None`` or a float NaN)."""
    if label is None:
        return True
    if isinstance(label, (float, np.floating)):
        return math.isnan(label)
    return False


def is_number(label: object) -> bool:
    """Return whether ``label`` is a real number (usable as an ordinal score)."""
    return isinstance(label, numbers.Real)


def json_label(label: object) -> object:
    """Return ``label`` in a JSON-safe form (numpy scalars become Python ones)."""
    if label is None or isinstance(label, (bool, str)):
        return label
    if isinstance(label, numbers.Integral):
        return int(label)
    if isinstance(label, numbers.Real):
        f = float(label)
        return f if math.isfinite(f) else None
    return str(label)


SCALES = ("nominal", "ordinal", "interval")
"""Levels of measurement: unordered labels, an ordered scale, numbers with equal steps."""


def _sort_key(label: object) -> tuple[str, object]:
    return (type(label).__name__, str(label))


def resolve_categories(
    observed: Iterable[Hashable], categories: Sequence[Hashable] | None, scale: str
) -> list[Hashable]:
    """Decide the ordered list of categories.

    Args:
        observed: Every non-missing label in the data.
        categories: The declared categories, in order (the scale's order for ordinal and
            interval data), or ``None`` to infer them from the observed labels.
        scale: ``nominal``, ``ordinal`` or ``interval``. Without ``categories`` an ordered
            scale needs numeric labels (they are sorted); ``interval`` always needs numbers.
            Numeric ``categories`` of an ordered scale must be increasing.

    Returns:
        The ordered category list.

    Raises:
        ValueError: On duplicate categories, a label outside ``categories``, or an ordered
            scale whose order is not known.
    """
    ordered = scale != "nominal"
    seen = list(dict.fromkeys(x for x in observed if not is_missing(x)))
    if categories is not None:
        cats = list(categories)
        if any(is_missing(c) for c in cats):
            raise ValueError("categories must not contain None or NaN")
        if len(set(cats)) != len(cats):
            raise ValueError("categories must be unique")
        known = set(cats)
        for label in seen:
            if label not in known:
                raise ValueError(f"label {label!r} is not one of the categories {cats!r}")
        if scale == "interval" and not all(is_number(c) for c in cats):
            raise ValueError("an interval scale needs numeric categories")
        if ordered and cats and all(is_number(c) for c in cats):
            nums = [float(c) for c in cats]  # type: ignore[arg-type]  # checked: numbers
            if any(y <= x for x, y in zip(nums, nums[1:], strict=False)):
                raise ValueError("numeric ordinal categories must be in increasing order")
        return cats
    if ordered:
        if not all(is_number(x) for x in seen):
            raise ValueError(f"an {scale} scale needs numeric labels or the categories in order")
        return sorted(seen, key=float)  # type: ignore[arg-type]  # checked: numbers
    try:
        return sorted(seen)  # type: ignore[type-var]
    except TypeError:
        return sorted(seen, key=_sort_key)


def category_scores(categories: Sequence[Hashable]) -> np.ndarray:
    """Scores used for correlations: the labels themselves if numeric, else their ranks."""
    if categories and all(is_number(c) for c in categories):
        return np.asarray([float(c) for c in categories], dtype=float)  # type: ignore[arg-type]
    return np.arange(len(categories), dtype=float)


def without_ties(
    a: Sequence[Hashable | None], b: Sequence[Hashable | None], tie: Hashable = "tie"
) -> tuple[list[Hashable | None], list[Hashable | None]]:
    """Drop the units where either rater said ``tie``.

    Meant for pairwise-preference criteria ("A better", "B better", "tie") so callers can
    report agreement with and without ties. Missing labels are kept (the agreement
    functions drop them themselves).

    Args:
        a: First rater's labels, one per unit.
        b: Second rater's labels, aligned with ``a``.
        tie: The label that means a tie.

    Returns:
        The two sequences restricted to units where neither label equals ``tie``.

    Raises:
        ValueError: If ``a`` and ``b`` differ in length.
    """
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"the raters have different numbers of units ({len(a)} vs {len(b)})")
    kept = [
        (x, y)
        for x, y in zip(a, b, strict=True)
        if not (not is_missing(x) and x == tie) and not (not is_missing(y) and y == tie)
    ]
    return [x for x, _ in kept], [y for _, y in kept]


def untied_categories(
    categories: Sequence[Hashable] | None, tie: Hashable = "tie"
) -> list[Hashable] | None:
    """The category set of the figures :func:`without_ties` leaves units for: ``categories``
    without ``tie`` (None stays None: the observed labels, which no longer hold it).

    Chance-corrected figures that count the categories (Gwet's AC1, Bennett's S, Randolph's κ)
    must not count a category the untied units cannot have: with A, B and tie declared, S
    without ties is (p_o − 1/2)/(1 − 1/2), not (p_o − 1/3)/(1 − 1/3).
    """
    if categories is None:
        return None
    return [c for c in categories if is_missing(c) or c != tie]


class LabelMatrix:
    """Labels keyed by ``(unit, rater)``, updatable one label at a time.

    Stored as a dict of dicts (unit → rater → label), so :meth:`set` is O(1). Units and
    raters are listed in the order they were first seen.

    Example:
        >>> m = LabelMatrix()
        >>> m.set("q1", "ann", "good"); m.set("q1", "bob", "bad")
        >>> m.pair("ann", "bob")
        (['good'], ['bad'])
    """

    def __init__(self) -> None:
        self._labels: dict[Hashable, dict[Hashable, Hashable]] = {}
        self._rater_counts: dict[Hashable, int] = {}

    def set(self, unit: Hashable, rater: Hashable, value: Hashable | None) -> None:
        """Set (or, with ``value=None``, remove) one rater's label for one unit."""
        row = self._labels.get(unit)
        had = row is not None and rater in row
        if is_missing(value):
            if had:
                del row[rater]  # type: ignore[union-attr]
                self._rater_counts[rater] -= 1
                if self._rater_counts[rater] == 0:
                    del self._rater_counts[rater]
                if not row:
                    del self._labels[unit]
            return
        if row is None:
            row = self._labels[unit] = {}
        row[rater] = value
        if not had:
            self._rater_counts[rater] = self._rater_counts.get(rater, 0) + 1

    def update(self, records: Iterable[tuple[Hashable, Hashable, Hashable | None]]) -> None:
        """Apply many ``(unit, rater, value)`` records with :meth:`set`."""
        for unit, rater, value in records:
            self.set(unit, rater, value)

    def get(self, unit: Hashable, rater: Hashable) -> Hashable | None:
        """Return one label, or ``None`` if there is none."""
        return self._labels.get(unit, {}).get(rater)

    def raters(self) -> list[Hashable]:
        """Raters with at least one label, in first-seen order."""
        return list(self._rater_counts)

    def count(self, rater: Hashable) -> int:
        """How many units carry a label of ``rater``."""
        return self._rater_counts.get(rater, 0)

    def units(self) -> list[Hashable]:
        """Units with at least one label, in first-seen order."""
        return list(self._labels)

    def __len__(self) -> int:
        return sum(self._rater_counts.values())

    def pair(
        self, r1: Hashable, r2: Hashable
    ) -> tuple[list[Hashable | None], list[Hashable | None]]:
        """Two raters' labels aligned over the units that at least one of them labelled.

        Missing labels are ``None``; pass the result to ``two_rater_stats``.
        """
        a: list[Hashable | None] = []
        b: list[Hashable | None] = []
        for row in self._labels.values():
            x, y = row.get(r1), row.get(r2)
            if x is None and y is None:
                continue
            a.append(x)
            b.append(y)
        return a, b

    def table(self, raters: Sequence[Hashable] | None = None) -> list[list[Hashable | None]]:
        """Rows of labels, one row per unit and one column per rater (``None`` = missing).

        Args:
            raters: Column order; defaults to :meth:`raters`.

        Returns:
            One row per unit in :meth:`units` order; pass to ``multi_rater_stats``.
        """
        cols = self.raters() if raters is None else list(raters)
        return [[row.get(r) for r in cols] for row in self._labels.values()]
