"""The cells and tables of the report, as values: what a cell holds, not how it looks.

A :class:`Table` has a title, :class:`Column` s (header wording, whether the column holds
figures) and rows of cells. A cell says what it holds — text from the study (:class:`Text`),
a count (:class:`Count`), an estimate (:class:`Est`), a share of verdicts (:class:`Share`),
money (:class:`Money`) … — and nothing about how it looks. Markdown writes cells through a
:class:`Style` (:data:`.render.md.STYLE`), HTML through the ``cell`` macro of
``templates/_tables.html.j2``; :func:`plain` writes the cells that look the same everywhere.
The tables themselves are in :mod:`.tables`, :mod:`.section_tables` and :mod:`.judge_tables`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records import Share as FigureShare

from . import text as rt


@dataclass(frozen=True)
class Text:
    """Text from the study (a name, an id, a question): each format escapes it.

    Attributes:
        value: the text; None shows as empty.
    """

    value: object


@dataclass(frozen=True)
class Label:
    """medjudge's own wording (no markup characters to fear): written as it is."""

    value: str


@dataclass(frozen=True)
class Code:
    """Study text shown as code (a template hash): escaped, and marked as code where possible."""

    value: object


@dataclass(frozen=True)
class Count:
    """A whole number: ``1,234`` (``–`` for None), or ``1234`` when not ``grouped``."""

    value: int | None
    grouped: bool = True


@dataclass(frozen=True)
class Ratio:
    """Two counts, ``part`` of ``whole``: ``12/40`` (``sep`` between them)."""

    part: int
    whole: int
    sep: str = "/"


@dataclass(frozen=True)
class Est:
    """An estimate dict (``value``, ``ci_low``, ``ci_high``, ``reason``) or None.

    Attributes:
        value: the estimate.
        pct: show as a percentage.
        note: a word or two of medjudge's own shown with the figure (e.g. which κ).
    """

    value: Figure | None
    pct: bool = False
    note: str | None = None


@dataclass(frozen=True)
class Share:
    """A share of verdicts (a figure with ``count`` and ``n``) or None."""

    value: FigureShare | None


@dataclass(frozen=True)
class Number:
    """A plain number with fixed decimals (``–`` for None)."""

    value: float | None
    digits: int = 2


@dataclass(frozen=True)
class Money:
    """US dollars (see :func:`.text.money`)."""

    value: float | None


@dataclass(frozen=True)
class Duration:
    """Seconds, shown as hours, minutes or seconds (see :func:`.text.duration`)."""

    value: float | None


@dataclass(frozen=True)
class Concat:
    """Cells shown one after the other in one table cell."""

    parts: tuple[Cell, ...]


@dataclass(frozen=True)
class ByFormat:
    """A cell the two formats show differently on purpose: ``md`` in Markdown, ``html`` in HTML."""

    md: Cell
    html: Cell


Cell = (
    Text
    | Label
    | Code
    | Count
    | Ratio
    | Est
    | Share
    | Number
    | Money
    | Duration
    | Concat
    | ByFormat
)


def plain(c: Cell) -> str:
    """The text of a cell that looks the same in every format: a number, money or a duration.

    Raises:
        TypeError: a cell whose look depends on the format (text, estimates, shares ...).
    """
    match c:
        case Count(value, grouped):
            return rt.integer(value) if grouped else str(value)
        case Ratio(part, whole, sep):
            return f"{part:,}{sep}{whole:,}"
        case Number(value, digits):
            return "–" if value is None else f"{value:.{digits}f}"
        case Money(value):
            return rt.money(value)
        case Duration(value):
            return rt.duration(value)
    raise TypeError(f"{type(c).__name__} cells depend on the format")


@dataclass(frozen=True)
class Style:
    """How one format writes the cells whose look depends on it; :meth:`cell` does the rest.

    Attributes:
        name: the format (``md`` or ``html``; picks the side of :class:`ByFormat` cells).
        text: escapes study text (:class:`Text`).
        code: writes study text as code (:class:`Code`).
        est: writes an estimate: ``(estimate, pct, note)``.
        share: writes a share of verdicts.
    """

    name: Literal["md", "html"]
    text: Callable[[object], str]
    code: Callable[[object], str]
    est: Callable[[Figure | None, bool, str | None], str]
    share: Callable[[FigureShare | None], str]

    def cell(self, c: Cell) -> str:
        """One cell in this format (:class:`Label` as it is, numbers by :func:`plain`)."""
        match c:
            case Text(value):
                return self.text(value)
            case Code(value):
                return self.code(value)
            case Label(value):
                return value
            case Est(value, pct, note):
                return self.est(value, pct, note)
            case Share(value):
                return self.share(value)
            case Concat(parts):
                return "".join(self.cell(p) for p in parts)
            case ByFormat(md, html):
                return self.cell(md if self.name == "md" else html)
        return plain(c)


@dataclass(frozen=True)
class Column:
    """One column of a table.

    Attributes:
        name: the header.
        numeric: the column holds figures (aligned right in HTML).
        short: the header in the HTML report, under a group heading or where space is short.
    """

    name: str
    numeric: bool = False
    short: str | None = None


@dataclass(frozen=True)
class Table:
    """A table of the report: what it shows, not how.

    Attributes:
        title: what the table is (headings use it where a format shows one).
        columns: the columns, in order.
        rows: the rows, one cell per column.
        groups: HTML only: headings over runs of columns, ``(heading, span)`` ('' for none).
    """

    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    groups: tuple[tuple[str, int], ...] = ()

    @property
    def header(self) -> list[str]:
        """The full header wording, one per column."""
        return [c.name for c in self.columns]

    @property
    def numeric_columns(self) -> list[int]:
        """Indexes of the columns that hold figures."""
        return [i for i, c in enumerate(self.columns) if c.numeric]


def make_columns(*names: str, numeric: Iterable[int] = ()) -> tuple[Column, ...]:
    """Columns by header, those at the ``numeric`` positions holding figures."""
    num = set(numeric)
    return tuple(Column(n, i in num) for i, n in enumerate(names))


def make_table(title: str, columns: tuple[Column, ...], rows: Iterable[Sequence[Cell]]) -> Table:
    """A table from its title, columns and rows (any iterable of cell sequences)."""
    return Table(title, columns, tuple(tuple(r) for r in rows))
