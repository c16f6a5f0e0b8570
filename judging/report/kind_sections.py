"""The report sections a kind brings: each kind package's ``report.py`` (``SECTIONS``) declares
its sections once, and every report format loops over them — the JSON key, the Markdown and
HTML headings, notes and tables (one generic table macro), the HTML navigation and the CSV
rows all come from the :class:`KindSection`.

A section's figures are a typed record (:class:`~medjudge.judging.analysis.records.Record`),
or a list of them (``many``); the report's model gets one field per section, named by its key,
so the JSON reads ``"ranking": {…}`` beside the built-in sections and is absent from a study
without such items (a list section: ``[]``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from medjudge import kinds

if TYPE_CHECKING:
    from medjudge.judging.analysis.records import Record
    from medjudge.judging.analysis.study_data import StudyData
    from medjudge.store.study import Study

    from .cells import Table
    from .chart_shapes import Chart


@dataclass(frozen=True)
class SectionInputs:
    """What a section's figures are computed from."""

    study: Study
    data: StudyData
    n_boot: int
    seed: int
    confidence: float


@dataclass(frozen=True)
class KindSection:
    """One report section of a kind."""

    key: str
    """The JSON key, and the HTML anchor and the CSV ``section`` column unless those are
    given (``ranking``)."""
    title: str
    """The heading."""
    record: type[Record]
    """The section's figures (the report model's field type; a list of them if ``many``)."""
    build: Callable[[SectionInputs], Record | Sequence[Record] | None]
    """The figures of a study (None, or an empty list: the study has nothing for the
    section)."""
    notes: Callable[[Any], list[str]]
    """Paragraphs before the tables: medjudge's words (plain text, escaped by each format)."""
    tables: Callable[[Any], list[Table]]
    """The section's tables, in order (the Markdown and HTML reports draw each one)."""
    csv_rows: Callable[[Any], Iterable[list[str]]]
    """The section's rows of the CSV report (:func:`..render.csv_rows.figure_row`)."""
    charts: Callable[[Any], list[Chart]] = field(default=lambda record: [])
    """The HTML report's charts of the section, before its tables."""
    always_in_json: bool = False
    """Whether the JSON report holds the key (``null``; ``[]`` if ``many``) in a study without
    such items too (the sections that were there before kinds brought their own)."""
    many: bool = False
    """Whether the figures are a list of ``record`` (the JSON key holds a list)."""
    anchor: str = ""
    """The HTML section's anchor (the key when empty)."""
    csv_section: str = ""
    """The CSV ``section`` of the section's rows (the key when empty; a section may write
    further ones, such as ``kqa_answer``)."""
    folded: str = ""
    """The HTML report shows the section's tables folded, under this summary (empty: open)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "anchor", self.anchor or self.key)
        object.__setattr__(self, "csv_section", self.csv_section or self.key)


@cache
def of_kind(name: str) -> tuple[KindSection, ...]:
    """The report sections of the kind called ``name`` (``kinds/<name>/report.py``; none for a
    kind without one)."""
    try:
        module = importlib.import_module(f"medjudge.kinds.{kinds.get(name).name}.report")
    except ModuleNotFoundError as exc:
        if exc.name != f"medjudge.kinds.{name}.report":
            raise
        return ()
    found: tuple[KindSection, ...] = tuple(module.SECTIONS)
    return found


@cache
def kind_sections() -> tuple[KindSection, ...]:
    """Every registered kind's report sections, in the registry's order, then the study-wide
    sections declared the same way (:mod:`.fast_section`)."""
    from . import fast_section

    out = [s for name in kinds.NAMES for s in of_kind(name)]
    out += fast_section.SECTIONS
    keys = [s.key for s in out]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"two kinds declare the same report section: {keys}")
    return tuple(out)


def figures_sections() -> dict[str, str]:
    """Each kind with a report facet → the key of its first section (where its answers'
    figures are: ``statements`` → ``kqa``)."""
    return {name: found[0].key for name in kinds.NAMES if (found := of_kind(name))}


def present(report: object) -> list[tuple[KindSection, Record | Sequence[Record]]]:
    """The kind sections a report holds (an empty list section is none), with their figures."""
    return [(s, rec) for s in kind_sections() if (rec := record(report, s.key)) is not None]


def by_anchor(anchor: str) -> KindSection:
    """The section with this HTML anchor."""
    return next(s for s in kind_sections() if s.anchor == anchor)


def is_kind_section(anchor: str) -> bool:
    """Whether ``anchor`` is a kind section's (the HTML report's section dispatch)."""
    return any(s.anchor == anchor for s in kind_sections())


def record(report: object, key: str) -> Record | Sequence[Record] | None:
    """The figures of the kind section ``key`` in a report (None: the study has none)."""
    found: Record | Sequence[Record] | None = getattr(report, key, None)
    if isinstance(found, list) and not found:
        return None
    return found
