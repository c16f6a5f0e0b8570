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
from collections.abc import Mapping, Sequence

Ticks = frozenset[str]


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
