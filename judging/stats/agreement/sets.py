"""Agreement on multi-select labels (a set of ticked options per unit), done the standard way.

A multi-select criterion (rating completeness: "which options does the explanation justify?")
is not one nominal label whose categories are the tick combinations that happened to occur:
those categories change whenever a new combination appears. Two standard treatments instead:

- **per option**: each declared option of each item is a binary unit (ticked or not), so every
  option gets its own two-category agreement figures (:func:`option_columns`);
- **as sets**: Krippendorff's α with the MASI distance between two sets (Passonneau, "Measuring
  agreement on set-valued items (MASI) for semantic and pragmatic annotation", LREC 2006):
  ``masi(A, B) = 1 − J(A, B) · M(A, B)``, J the Jaccard index and M = 1 when the sets are equal,
  2/3 when one contains the other, 1/3 when they overlap otherwise, 0 when disjoint
  (:func:`masi_alpha`).

Both take the declared options, never what was observed. Checked against the ``krippendorff``
package with MASI as a custom distance.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from medjudge.judging.stats.bootstrap import UnitPatterns, bca_estimates
from medjudge.judging.stats.estimates import N_BOOT, Estimate

Ticks = frozenset[str]

TICKED = "ticked"
NOT_TICKED = "not_ticked"
OPTION_CATEGORIES: tuple[str, str] = (TICKED, NOT_TICKED)
"""The two categories of an option as a binary unit, in the order the outputs list them."""


def parse_ticks(value: str | None) -> Ticks | None:
    """A stored option-set label (``"A,C"``, ``"-"`` for none ticked) as a set; None stays."""
    if value is None:
        return None
    return frozenset(p for p in value.split(",") if p and p != "-")


def masi(a: Ticks, b: Ticks) -> float:
    """The MASI distance between two sets (0 for equal sets, also two empty ones)."""
    if a == b:
        return 0.0
    union = len(a | b)
    jaccard = len(a & b) / union
    if a <= b or b <= a:
        monotonicity = 2 / 3
    elif a & b:
        monotonicity = 1 / 3
    else:
        monotonicity = 0.0
    return 1.0 - jaccard * monotonicity


def masi_alpha(columns: Sequence[Sequence[Ticks | None]]) -> float:
    """Krippendorff's α with the MASI distance.

    Args:
        columns: one list per rater, one entry per unit (None: not labelled).

    Returns:
        α (NaN when fewer than two pairable values, or no disagreement is expected).
    """
    n_units = len(columns[0]) if columns else 0
    labelled: list[list[Ticks]] = [
        [v for v in (col[u] for col in columns) if v is not None] for u in range(n_units)
    ]
    units = [u for u in labelled if len(u) >= 2]
    pairable = [v for u in units for v in u]
    n = len(pairable)
    if n < 2:
        return math.nan
    # Observed: within-unit pairs, each unit weighted 1 / (m_u - 1).
    observed = 0.0
    for values in units:
        m = len(values)
        within = sum(masi(values[i], values[j]) for i in range(m) for j in range(m) if i != j)
        observed += within / (m - 1)
    observed /= n
    # Expected: all pairs of pairable values, counted by distinct set.
    counts: dict[Ticks, int] = {}
    for v in pairable:
        counts[v] = counts.get(v, 0) + 1
    distinct = list(counts)
    expected = sum(
        counts[a] * counts[b] * masi(a, b) for a in distinct for b in distinct if a != b
    ) / (n * (n - 1))
    if expected == 0:
        return math.nan
    return 1.0 - observed / expected


def option_columns(
    columns: Mapping[str, Sequence[Ticks | None]], options: Sequence[Sequence[str]]
) -> dict[str, dict[str, list[str | None]]]:
    """Each declared option as a binary unit: option letter → rater → one ``ticked`` /
    ``not_ticked`` label per item that declares the option (None where the rater did not
    label the item).

    Args:
        columns: rater → one tick set per item (None: not labelled).
        options: the options each item declares, per item.
    """
    out: dict[str, dict[str, list[str | None]]] = {}
    for item, declared in enumerate(options):
        for letter in declared:
            per_rater = out.setdefault(letter, {r: [] for r in columns})
            for rater, col in columns.items():
                ticks = col[item]
                per_rater[rater].append(
                    None if ticks is None else ("ticked" if letter in ticks else "not_ticked")
                )
    return out


@dataclass(frozen=True)
class OptionUnits:
    """Items with a multi-select label, expanded into one binary unit per declared option.

    ``units[k] = (i, letter)``: binary unit ``k`` is option ``letter`` of item ``i`` (the
    position in the columns the expansion is applied to). Options come from what each item
    declares, never from the ticks that were seen.
    """

    units: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, declared: Sequence[Sequence[str]]) -> OptionUnits:
        """From the options each item declares (one sequence of letters per item)."""
        return cls(tuple((i, letter) for i, letters in enumerate(declared) for letter in letters))

    def column(self, values: Sequence[Hashable | None]) -> list[Hashable | None]:
        """One rater's stored option-set labels (``"A,C"``, ``"-"``) → ``ticked`` /
        ``not_ticked`` per binary unit (None where the item has no label)."""
        sets = [parse_ticks(None if v is None else str(v)) for v in values]
        out: list[Hashable | None] = []
        for i, letter in self.units:
            ticks = sets[i]
            out.append(None if ticks is None else (TICKED if letter in ticks else NOT_TICKED))
        return out

    def spread(self, values: Sequence[str | None]) -> list[str | None]:
        """A per-item value (a slice key) repeated over the item's binary units."""
        return [values[i] for i, _ in self.units]

    def letters(self) -> list[str | None]:
        """The option of each binary unit (the ``option`` slice)."""
        return [letter for _, letter in self.units]


def _masi_per_unit(columns: Sequence[Sequence[Ticks | None]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit sums of MASI α: ``[observed, pairable values, counts of each distinct set]``
    for units with at least two labels, and the distance matrix between the distinct sets."""
    n_units = len(columns[0]) if columns else 0
    labelled = [[v for v in (col[u] for col in columns) if v is not None] for u in range(n_units)]
    units = [u for u in labelled if len(u) >= 2]
    domain = sorted({v for u in units for v in u}, key=lambda s: (len(s), sorted(s)))
    index = {v: i for i, v in enumerate(domain)}
    distance = np.array([[masi(a, b) for b in domain] for a in domain]).reshape(
        len(domain), len(domain)
    )
    rows = np.zeros((len(units), 2 + len(domain)))
    for r, values in enumerate(units):
        m = len(values)
        for v in values:
            rows[r, 2 + index[v]] += 1
        counts = rows[r, 2:]
        rows[r, 0] = counts @ distance @ counts / (m - 1)
        rows[r, 1] = m
    return rows, distance


def masi_alpha_estimate(
    columns: Sequence[Sequence[Ticks | None]],
    *,
    intervals: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """:func:`masi_alpha` with its BCa bootstrap interval over units (the units with at least
    two labels), ``method="bca_bootstrap"``; n is the number of those units."""
    rows, distance = _masi_per_unit(columns)
    if rows.shape[0] == 0:
        return Estimate.undefined("no unit labelled by two raters", 0)

    def alpha(sums: np.ndarray) -> np.ndarray:
        observed, n, counts = sums[:, 0], sums[:, 1], sums[:, 2:]
        expected = np.einsum("bi,ij,bj->b", counts, distance, counts) / (n * (n - 1))
        with np.errstate(all="ignore"):
            value = 1.0 - (observed / n) / expected
        return np.where(expected > 0, value, np.nan)[None, :]

    return bca_estimates(
        UnitPatterns.from_units(rows),
        alpha,
        ["no disagreement expected (every label is the same set)"],
        intervals=intervals,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )[0]
