"""The cells and rows of the CSV report: its columns, how a value is written (numbers in
``value``, anything else in ``text``; study text made printable and never a formula), and one
row of a figure — shared by every section's rows, the kinds' own sections included."""

from __future__ import annotations

from medjudge.judging.analysis.records import Figure
from medjudge.store.literal import printable, spreadsheet_text

COLUMNS = (
    "section",
    "criterion",
    "slice",
    "rater_a",
    "rater_b",
    "metric",
    "value",
    "text",
    "ci_low",
    "ci_high",
    "n",
    "reason",
    "method",
)


def cell_text(value: object) -> str:
    """One cell: a number as Python writes it, a flag as true/false, text made safe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    return spreadsheet_text(printable(str(value)))


def plain_line(*cells: object) -> list[str]:
    """One CSV row from the 12 fields of :data:`COLUMNS` but ``text``: a number (or
    nothing) stays in ``value``, anything else — a key, categories, a flag — goes to ``text``,
    so ``value`` holds numbers only (a spreadsheet sums it)."""
    head, (value, *tail) = cells[:6], cells[6:]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    shown = (value, None) if value is None or number else (None, value)
    return [cell_text(x) for x in (*head, *shown, *tail)]


def figure_row(
    section: str,
    criterion: object = None,
    slice_: object = "all",
    rater_a: object = None,
    rater_b: object = None,
    metric: str = "",
    est: Figure | None = None,
    value: object = None,
    n: object = None,
) -> list[str]:
    cells: list[object]
    if est is not None:
        cells = [
            est.value,
            est.ci_low,
            est.ci_high,
            est.n,
            est.reason,
            est.method if est.ci_low is not None else None,
        ]
    else:
        cells = [value, None, None, n, None, None]
    return plain_line(section, criterion, slice_, rater_a, rater_b, metric, *cells)


def with_reason(row: list[str], reason: str | None) -> list[str]:
    """``row`` with its ``reason`` cell set."""
    row[COLUMNS.index("reason")] = cell_text(reason)
    return row
