"""The rows a reviewer moves through on one item, and what each row and the detail show.

Pairwise and rating items have one row per criterion (the completeness criterion of rating
items is followed by one checkbox row per answer option); statements items have one row per
statement. Pure Python over :class:`ReviewSession` state; the screen only places the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, overload

from rich.console import RenderableType
from rich.text import Text

from medjudge import kinds
from medjudge.kinds import review_facet
from medjudge.store.items import Item, Statement, Unit, unit_index
from medjudge.store.judgments import VerdictView
from medjudge.store.paged import position
from medjudge.store.settings import Criterion, StudySettings

from . import render
from .session import ReviewSession


class Row(NamedTuple):
    """One line of the unit list."""

    unit: Unit
    criterion: Criterion
    statement: Statement | None = None
    number: int = 0
    option: str | None = None
    """The option letter of a completeness checkbox row."""


class Rows(Sequence[Row]):
    """An item's rows in labelling order: the per-item criteria (each followed by its option
    rows) first, built at once, then one row per listed entry, built when indexed. With the
    item read ``paged`` (:func:`store.items.get_item`), an item of 100,000 statements reads
    only the statements whose rows are drawn."""

    def __init__(self, item: Item, settings: StudySettings) -> None:
        self.item = item
        self.settings = settings
        self._criteria: dict[str, Criterion] = {}
        self.head: list[Row] = []
        """The per-item criteria's rows (and their option rows)."""
        self.head_units = 0
        """How many units the head rows are of (they come first in ``item.units``)."""
        units = item.units
        while self.head_units < len(units) and units[self.head_units].statement_id is None:
            unit = units[self.head_units]
            crit = self._criterion(unit.criterion)
            self.head.append(Row(unit, crit))
            if crit.options:
                self.head += [Row(unit, crit, option=o) for o, _ in render.options_of(item)]
            self.head_units += 1
        self._by_id: dict[int, Statement] | None = None

    def _criterion(self, name: str) -> Criterion:
        crit = self._criteria.get(name)
        if crit is None:
            crit = self._criteria[name] = self.settings.criterion(name)
        return crit

    def __len__(self) -> int:
        return len(self.head) + len(self.item.units) - self.head_units

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = position(index, len(self))
        if index < len(self.head):
            return self.head[index]
        k = index - len(self.head)
        unit = self.item.units[self.head_units + k]
        crit = self._criterion(unit.criterion)
        if unit.statement_id is None:  # not written so by the importer; shown all the same
            return Row(unit, crit)
        return Row(unit, crit, self._statement(k, unit.statement_id), k + 1)

    def _statement(self, k: int, statement_id: int) -> Statement | None:
        """The statement of the k-th listed unit: the k-th statement, as the importer writes
        them (checked; otherwise looked up by id)."""
        statements = self.item.statements
        if k < len(statements) and statements[k].id == statement_id:
            return statements[k]
        if self._by_id is None:
            self._by_id = {st.id: st for st in statements}
        return self._by_id.get(statement_id)

    def unit_row(self, unit_index: int) -> int:
        """The row of the unit at this index of ``item.units`` (its own row, not an option's)."""
        if unit_index >= self.head_units:
            return len(self.head) + unit_index - self.head_units
        seen = -1
        for i, r in enumerate(self.head):
            if r.option is None:
                seen += 1
                if seen == unit_index:
                    return i
        return 0

    def unit_at(self, row: int) -> int:
        """The index in ``item.units`` of the unit a row belongs to."""
        if row >= len(self.head):
            return self.head_units + row - len(self.head)
        return sum(1 for r in self.head[: row + 1] if r.option is None) - 1


@dataclass
class ItemView:
    """What the reviewer sees of the current item: rows, pending option ticks, reveal data."""

    session: ReviewSession
    item: Item
    rows: Rows
    pending: dict[int, set[str]] = field(default_factory=dict)
    """Unsaved completeness ticks per unit (cleared when saved)."""
    composing: dict[int, str] = field(default_factory=dict)
    """The keys pressed so far of a value built from several keys (a ranking), per unit."""
    revealed: bool = False
    verdicts: dict[int, list[VerdictView]] = field(default_factory=dict)
    others: dict[int, dict[str, str]] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)
    """The reviewer's notes on this item's criteria and statements (``M``): read with the item
    and when another process writes, not on every key."""
    has_options: bool = False
    """Whether any row is an option row (a completeness criterion's checkboxes)."""

    def __post_init__(self) -> None:
        self.has_options = any(r.criterion.options for r in self.rows.head)

    def row_name(self, row: Row) -> str:
        """What a row is called in messages: its criterion, or the listed entry in the kind's
        words (``statement 3``, ``sub-question 1``, ``rubric criterion 2``)."""
        if row.statement is None:
            return row.criterion.name
        return f"{kinds.get(self.item.kind).listed_name} {row.number}"

    def unit_rows(self, unit_id: int) -> list[int]:
        """A unit's row indices in order (its own row, then its option rows); empty when the
        item has no such unit. A listed unit's row is found through the units index, not by
        a scan (an item may have 100,000 rows)."""
        head = [i for i, r in enumerate(self.rows.head) if r.unit.id == unit_id]
        if head:
            return head
        index = unit_index(self.session.study, self.item.id, unit_id)
        return [] if index is None else [self.rows.unit_row(index)]

    def rows_of(self, *unit_ids: int) -> set[int]:
        """The row indices of these units."""
        return {i for u in unit_ids for i in self.unit_rows(u)}

    @classmethod
    def of(cls, session: ReviewSession) -> ItemView:
        """The view of the session's current item."""
        assert session.item is not None
        view = cls(session, session.item, Rows(session.item, session.settings))
        view.refresh_reveal()
        return view

    def refresh_reveal(self) -> None:
        """Re-read whether verdicts may be shown, the verdicts, others' labels and own notes."""
        self.revealed = self.session.revealed()
        self.verdicts = {}
        for v in self.session.verdicts():
            self.verdicts.setdefault(v.unit_id, []).append(v)
        for vs in self.verdicts.values():  # a panel's verdict first, then judges by name
            vs.sort(key=lambda v: (not v.judge.startswith("panel:"), v.judge))
        self.others = self.session.others()
        self.notes = self.session.unit_notes()

    def mine(self, unit_id: int) -> str | None:
        """The reviewer's saved label on a unit."""
        return self.session.labels.get(unit_id)

    def ticked(self, unit_id: int) -> set[str]:
        """The completeness options ticked (pending if any, else as saved)."""
        if unit_id in self.pending:
            return self.pending[unit_id]
        saved = self.mine(unit_id)
        return set() if saved in (None, "-") else set((saved or "").split(","))

    def toggle(self, unit_id: int, letter: str) -> None:
        """Tick or untick one option (not saved until confirmed)."""
        ticks = set(self.ticked(unit_id))
        ticks.symmetric_difference_update({letter})
        self.pending[unit_id] = ticks

    def options_value(self, unit_id: int) -> str:
        """The completeness value to store: sorted letters, comma-joined, '-' for none."""
        return ",".join(sorted(self.ticked(unit_id))) or "-"

    def unsaved(self) -> list[int]:
        """Units whose ticks differ from what is saved."""
        return [u for u in self.pending if self.options_value(u) != (self.mine(u) or "")]

    def judge_value(self, unit_id: int) -> str | None:
        """The verdict shown on the row (a panel's if there is one), when revealed."""
        vs = self.verdicts.get(unit_id)
        return vs[0].value if vs else None

    def render_row(self, index: int, cursor: int) -> RenderableType:
        """One row's text."""
        row = self.rows[index]
        current = index == cursor
        if row.option is not None:
            text = dict(render.options_of(self.item)).get(row.option, "")
            return render.option_row(
                row.option, text, row.option in self.ticked(row.unit.id), current
            )
        mine = self.mine(row.unit.id)
        judge = self.judge_value(row.unit.id)
        if row.statement is not None:
            settings = self.session.settings
            conceal = settings.blind and settings.hide_points and not self.revealed
            return review_facet.facet(self.item.kind).listed_row(
                self.item, row.statement, row.number, mine, judge, self.revealed, current, conceal
            )
        on_unit = (
            self.rows[cursor].unit.id == row.unit.id if 0 <= cursor < len(self.rows) else False
        )
        pending = None
        if row.criterion.options and row.unit.id in self.unsaved():
            pending = self.options_value(row.unit.id)
        elif row.unit.id in self.composing:
            pending = kinds.get(row.criterion.kind).partial_text(
                self.composing[row.unit.id], len(self.item.slots)
            )
        return render.criterion_row(
            self.item, row.criterion, mine, judge, self.revealed, current or on_unit, pending
        )

    def render_detail(self, cursor: int) -> Text:
        """Below the list: the current criterion's question, then the reveal (or why not yet)."""
        row = self.rows[cursor]
        crit = row.criterion
        out = Text(end="")
        out.append(f"{crit.name}: ", "bold")
        out.append_text(render.lit(crit.question, "italic"))
        note = self.notes.get(row.unit.id)
        if note:
            out.append("\nYour note (M): ", "bold")
            out.append_text(render.lit(note))
        if crit.options:
            out.append(
                "\nTick the options the explanation justifies (letter keys, or space on "
                "the cursor), then enter to save.",
                "dim",
            )
        hidden = self.session.settings.blind and not self.revealed
        if hidden:
            left = len(self.item.units) - len(self.session.labels)
            out.append(
                "\nJudge verdicts and other reviewers' labels are hidden until you have "
                f"labelled all {len(self.item.units):,} units of this item ({left:,} to go).",
                "dim",
            )
            return out
        verdicts = self.verdicts.get(row.unit.id, [])
        mine = self.mine(row.unit.id)
        if verdicts:
            out.append("\n")
            out.append_text(render.verdict_lines(self.item, crit, mine, verdicts))
        others = self.others.get(row.unit.id)
        if others:
            out.append("\n")
            out.append_text(render.others_line(self.item, crit, others))
        if not verdicts and not others:
            out.append("\nNo judge verdict or other reviewer's label on this yet.", "dim")
        return out

    def next_row(self, cursor: int) -> int | None:
        """After a vote: the entry row of the next unit; then the first unlabelled; else None."""
        after = self.rows.unit_at(cursor) + 1
        if after < len(self.item.units):
            return self._entry_row(after)
        first = self._first_unlabelled()
        return None if first is None else self._entry_row(first)

    def start_row(self) -> int:
        """Where the cursor starts on an item: the first unit not labelled yet."""
        first = self._first_unlabelled()
        return self._entry_row(first if first is not None else 0) if self.rows else 0

    def row_of(self, unit_id: int) -> int:
        """The entry row of a unit: its first option row, else its own row (0: no such
        unit)."""
        rows = self.unit_rows(unit_id)
        return self._entry(rows[0]) if rows else 0

    def _entry_row(self, unit_index: int) -> int:
        """The entry row of the unit at this index of ``item.units``."""
        return self._entry(self.rows.unit_row(unit_index))

    def _entry(self, row: int) -> int:
        """The entry row of the unit whose own row this is: the option row after it (a
        completeness criterion's options follow it), else the row itself."""
        following = row + 1
        if following < len(self.rows.head) and self.rows.head[following].option is not None:
            return following
        return row

    def _first_unlabelled(self) -> int | None:
        """The index in ``item.units`` of the first unit the reviewer has not labelled (read a
        page at a time: usually near the start)."""
        if self.session.complete():
            return None
        labels = self.session.labels
        units = self.item.units
        return next((i for i in range(len(units)) if units[i].id not in labels), None)
