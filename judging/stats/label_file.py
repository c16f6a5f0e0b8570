"""Agreement for any file of labels, no study needed (``medjudge agreement``).

Input is *wide*: one row per unit, one column per rater, in CSV (header row; an empty cell is
a missing label) or JSONL (one object per line; ``null``, an empty string or an absent key is
a missing label; ``.json`` holding an array of objects works too). Problems are reported as
:class:`~medjudge.store.importing.problems.ImportProblem` naming the file, line and column.

Labels that are all numbers are compared as numbers (:func:`numeric_labels`): when every
label in the rater columns, and every declared category, reads as a finite number, ``1`` in
JSON, ``"1"`` and ``"1.0"`` in CSV are the one label 1. When any of them is not a number
(``A``, ``tie``, ``1a``), every label is compared as text as written, so two distinct category
names are never merged (only ``1`` in JSON and ``"1"`` in CSV, the same text, are one label).
On an ordinal scale labels are numbers unless the declared categories give their order; on an
interval scale they must be numbers.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
from pathlib import Path

import numpy as np

from medjudge.judging.stats.agreement.core import (
    MultiRaterStats,
    TwoRaterStats,
    multi_rater_column_stats,
    two_rater_stats,
)
from medjudge.judging.stats.agreement.labels import untied_categories
from medjudge.judging.stats.estimates import N_BOOT
from medjudge.store.importing.problems import ImportProblem, Record
from medjudge.store.importing.readers import (
    is_stdin,
    read_csv,
    read_json_array,
    read_jsonl,
    stdin_head,
)
from medjudge.store.json_types import JsonObject

MISSING_SLICE = "(missing)"


@dataclass
class LabelTable:
    """Labels read from a file: one column per rater, one label per unit (a file row)."""

    path: Path
    raters: list[str]
    columns: list[list[Hashable | None]]
    """One list per rater, aligned: ``columns[r][i]`` is rater ``r``'s label on unit ``i``."""
    groups: list[str | None]
    """The ``--by`` value of each unit (empty without ``--by``)."""
    numbers: bool = False
    """The labels are numbers (read so, or every label read as a finite number)."""

    @property
    def n_units(self) -> int:
        """How many units (rows) the file has."""
        return len(self.columns[0]) if self.columns else 0

    def labels(self) -> set[Hashable]:
        """Every label some rater gave."""
        seen: set[Hashable | None] = set()
        for column in self.columns:
            seen.update(column)
        seen.discard(None)
        return seen


def _stdin_suffix() -> str:
    """Standard input (``agreement -``) has no name: JSON when it opens with ``[``, JSONL with
    ``{``, else CSV."""
    head = stdin_head(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return {b"[": ".json", b"{": ".jsonl"}.get(head, ".csv")


def _records(path: Path) -> Iterator[Record]:
    suffix = _stdin_suffix() if is_stdin(path) else path.suffix.lower()
    if suffix == ".csv":
        return read_csv(path)
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(path)
    if suffix == ".json":
        return read_json_array(path)
    raise ImportProblem(path, "unknown file type: use .csv, .jsonl or .json")


def _number(value: object) -> float | int:
    if isinstance(value, bool):
        raise ValueError("this scale needs numbers, got true/false")
    if isinstance(value, (int, float)):
        number: float | int = value
    else:
        try:
            number = float(str(value).strip())
        except ValueError:
            raise ValueError(
                f"this scale needs numbers (or --categories in order), got {str(value)[:40]!r}"
            ) from None
    if isinstance(number, float):
        if not math.isfinite(number):
            raise ValueError("this scale needs finite numbers")
        if number.is_integer():
            number = int(number)
    return number


def read_label(value: object, numeric: bool) -> Hashable | None:
    """One label as the scale reads it (``None``: missing).

    Numbers on a numeric scale (``2``, ``"2"`` and ``"2.0"`` are the label ``2``), else text
    (``1`` in JSON and ``"1"`` in CSV are the label ``"1"``). Labels in the file and labels
    named on the command line (``--tie``, ``--categories``) are read by this one function, so
    they compare equal exactly when they are the same label.

    Raises:
        ValueError: A list or object, or a value a numeric scale cannot read.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (list, dict)):
        raise ValueError("expected one label (text or a number), got a list or object")
    if numeric:
        return _number(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value).strip()


def _label(rec: Record, column: str, numeric: bool) -> Hashable | None:
    try:
        return read_label(rec.data.get(column), numeric)
    except ValueError as exc:
        raise rec.problem(str(exc), column) from None


def option_label(option: str, text: str, numeric: bool) -> Hashable:
    """A label named by a command-line option, read as the file's labels are.

    Raises:
        ValueError: Naming the option and the value, when the scale cannot read it.
    """
    try:
        label = read_label(text, numeric)
    except ValueError as exc:
        raise ValueError(f"{option} {text!r}: {exc}") from None
    if label is None:
        raise ValueError(f"{option}: an empty label")
    return label


def _key(rec: Record, column: str | None) -> str | None:
    if column is None:
        return None
    value = rec.data.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (list, dict)):
        raise rec.problem("expected text or a number", column)
    return str(value).strip()


def read_label_table(
    path: Path,
    raters: Sequence[str],
    *,
    unit: str | None = None,
    by: str | None = None,
    numeric: bool = False,
) -> LabelTable:
    """Read a wide label file.

    Args:
        path: the CSV / JSONL / JSON file.
        raters: the rater columns (at least two, all different).
        unit: a column naming the unit (must be unique per row), or None.
        by: a column to slice by, or None.
        numeric: labels are numbers (an ordered scale without declared categories).

    Returns:
        The labels, one row per record.

    Raises:
        ImportProblem: unreadable file, missing column, bad value, duplicate unit.
    """
    raters = [r.strip() for r in raters if r.strip()]
    if len(raters) < 2:
        raise ImportProblem(path, "--raters needs at least two columns, e.g. --raters ann,bob")
    dupes = sorted({r for r in raters if raters.count(r) > 1})
    if dupes:
        raise ImportProblem(path, f"--raters names {', '.join(dupes)} twice")
    # One pass, a row at a time, keeping only the labels (one shared object per distinct
    # label): the file is never held as records. The checks report what reading the whole
    # file first would: a file without rows or without a named column before any row's
    # problem, then the first problem by line (a repeated unit id found by its hash here,
    # confirmed by a second read).
    shared: dict[Hashable | None, Hashable | None] = {}
    table = LabelTable(path, raters, [[] for _ in raters], [])
    seen_keys: set[str] = set()
    unit_hashes = array("q")
    last_line = 0  # of the rows whose unit id was hashed
    problem: ImportProblem | None = None
    rows = 0
    for rec in _records(path):
        rows += 1
        seen_keys.update(rec.data)
        if problem is not None:
            continue  # only the columns are still of interest
        try:
            if unit is not None:
                key = _key(rec, unit)
                if key is None:
                    raise rec.problem("missing unit id", unit)
                unit_hashes.append(hash(key))
                last_line = rec.line
            labels = [_label(rec, r, numeric) for r in raters]
            group = _key(rec, by) if by else None
        except ImportProblem as exc:
            problem = exc
            continue
        for column, label in zip(table.columns, labels, strict=True):
            column.append(shared.setdefault(label, label))
        if by:
            table.groups.append(shared.setdefault(group, group))  # type: ignore[arg-type]
    if not rows:
        raise ImportProblem(path, "has no rows")
    wanted = [*raters, *(c for c in (unit, by) if c)]
    absent = [c for c in wanted if c not in seen_keys]
    if absent:
        have = ", ".join(sorted(seen_keys)[:20]) or "none"
        raise ImportProblem(
            path, f"no column {', '.join(repr(c) for c in absent)} (columns: {have})"
        )
    if unit is not None and unit in raters or by is not None and by in raters:
        raise ImportProblem(path, "--unit/--by must not also be a rater column")
    if unit is not None:
        repeated = _repeated_unit(path, unit, unit_hashes, last_line)
        if repeated is not None and (
            problem is None or (repeated.line or 0) <= (problem.line or 0)
        ):
            problem = repeated
    if problem is not None:
        raise problem
    table.numbers = numeric
    return table


def _as_number(label: Hashable) -> float | int | None:
    """``label`` as a finite number, or None when it does not read as one."""
    if isinstance(label, bool):
        return None
    try:
        return _number(label)
    except ValueError:
        return None


def table_label(table: LabelTable, label: Hashable) -> Hashable:
    """A label named on the command line (``--tie``) as the table's labels are compared: a
    number when they are numbers and it reads as one (:func:`numeric_labels`)."""
    number = _as_number(label) if table.numbers else None
    return label if number is None else number


def numeric_labels(
    table: LabelTable, categories: Sequence[Hashable] | None = None
) -> tuple[LabelTable, list[Hashable] | None]:
    """The table (and the declared categories) with its labels as numbers, when every label
    and every category reads as a finite number (``"1.0"`` and ``"1"`` become the label 1);
    else both unchanged, every label text as written.

    The rule is the whole label set's, never one value's: a label set with any non-number in
    it is categorical, and merging ``"1"`` with ``"1.0"`` there could join two categories.
    """
    cats = None if categories is None else list(categories)
    if table.numbers:
        return table, cats
    distinct = table.labels() | set(cats or ())
    read = {label: _as_number(label) for label in distinct}
    numbers: dict[Hashable, Hashable] = {k: v for k, v in read.items() if v is not None}
    if not read or len(numbers) < len(read):
        return table, cats
    columns: list[list[Hashable | None]] = [
        [None if x is None else numbers[x] for x in column] for column in table.columns
    ]
    out = LabelTable(table.path, table.raters, columns, table.groups, numbers=True)
    if cats is None:
        return out, None
    as_numbers = list(dict.fromkeys(numbers[c] for c in cats))
    if len(as_numbers) != len(cats):
        raise ValueError(
            "--categories names one number twice (e.g. 1 and 1.0): " + ", ".join(map(str, cats))
        )
    return out, as_numbers


def _repeated_unit(path: Path, unit: str, hashes: array[int], last: int) -> ImportProblem | None:
    """The first row whose unit id an earlier row has, as a problem; None if ids are unique.

    ``hashes`` are the ids' hashes in file order, of the rows up to line ``last``; only ids
    whose hash repeats are read again and compared as text.
    """
    values, counts = np.unique(np.frombuffer(hashes, dtype=np.int64), return_counts=True)
    suspects = set(values[counts > 1].tolist())
    if not suspects:
        return None
    first_line: dict[str, int] = {}
    for rec in _records(path):
        if rec.line > last:
            break
        key = _key(rec, unit)
        if key is None or hash(key) not in suspects:
            continue
        if key in first_line:
            return rec.problem(
                f"unit {key!r} appears twice (first on line {first_line[key]})", unit
            )
        first_line[key] = rec.line
    return None


@dataclass(frozen=True)
class SliceStats:
    """The figures of one slice of a label file."""

    slice: str
    n_rows: int
    stats: TwoRaterStats | MultiRaterStats
    without_ties: bool = False
    """These figures leave out the units where a rater said tie (``--tie``)."""

    def to_dict(self) -> JsonObject:
        """JSON-safe: ``slice``, ``without_ties``, ``n_rows``, ``kind`` and ``stats``."""
        kind = "two_raters" if isinstance(self.stats, TwoRaterStats) else "multi_raters"
        return {
            "slice": self.slice,
            "without_ties": self.without_ties,
            "n_rows": self.n_rows,
            "kind": kind,
            "stats": self.stats.to_dict(),
        }


def table_stats(
    table: LabelTable,
    *,
    by: bool = False,
    scale: str = "nominal",
    categories: Sequence[Hashable] | None = None,
    tie: Hashable | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[SliceStats]:
    """Agreement over the whole table and, with ``by``, per slice.

    Two raters: :func:`~.agreement.two_rater_stats`; three or more:
    :func:`~.agreement.multi_rater_stats` (BCa figures seeded with ``seed``). With ``tie``,
    each slice is followed by the same figures without the units where any rater said ``tie``.

    Returns:
        ``all`` first, then one entry per slice value (sorted; rows without one are
        ``(missing)``).
    """
    slices: list[tuple[str, list[int] | None]] = [("all", None)]  # None: every unit
    if by:
        groups: dict[str, list[int]] = {}
        for i, g in enumerate(table.groups):
            groups.setdefault(MISSING_SLICE if g is None else g, []).append(i)
        slices += sorted(groups.items())
    out = []
    for name, idx in slices:
        columns = table.columns if idx is None else [[c[i] for i in idx] for c in table.columns]
        variants = [(False, columns)]
        if tie is not None:
            keep = [tie not in labels for labels in zip(*columns, strict=True)]
            variants.append((True, [list(compress(c, keep)) for c in columns]))
        for untied, part in variants:
            stats: TwoRaterStats | MultiRaterStats
            # without ties the tie is no category either (AC1's and S's q)
            cats = untied_categories(categories, tie) if untied else categories
            if len(table.raters) == 2:
                stats = two_rater_stats(
                    part[0],
                    part[1],
                    categories=cats,
                    scale=scale,
                    confidence=confidence,
                    n_boot=n_boot,
                    seed=seed,
                )
            else:
                stats = multi_rater_column_stats(
                    part,
                    table.raters,
                    categories=cats,
                    scale=scale,
                    n_boot=n_boot,
                    seed=seed,
                    confidence=confidence,
                )
            out.append(SliceStats(name, len(part[0]), stats, without_ties=untied))
    return out
