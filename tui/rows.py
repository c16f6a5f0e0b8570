"""The rows a reviewer moves through on one item, and what each row and the detail show.

Pairwise and rating items have one row per criterion (the completeness criterion of rating
items is followed by one checkbox row per answer option); statements items have one row per
statement. Pure Python over :class:`ReviewSession` state; the screen only places the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from rich.console import RenderableType
from rich.text import Text

from medjudge import kinds
from medjudge.store.items import Item, Statement, Unit
from medjudge.store.judgments import VerdictView
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


def build_rows(item: Item, settings: StudySettings) -> list[Row]:
    """The rows of an item, in labelling order."""
    rows: list[Row] = []
    statements = {st.id: st for st in item.statements}
    criteria: dict[str, Criterion] = {}
    listed = 0
    for unit in item.units:  # in labelling order: per-item criteria, then listed entries
        crit = criteria.get(unit.criterion) or criteria.setdefault(
            unit.criterion, settings.criterion(unit.criterion)
        )
        if unit.statement_id is not None:
            listed += 1
            rows.append(Row(unit, crit, statements.get(unit.statement_id), listed))
            continue
        rows.append(Row(unit, crit))
        if crit.options:
            rows += [Row(unit, crit, option=letter) for letter, _ in render.options_of(item)]
    return rows


@dataclass
class ItemView:
    """What the reviewer sees of the current item: rows, pending option ticks, reveal data."""

    session: ReviewSession
    item: Item
    rows: list[Row]
    pending: dict[int, set[str]] = field(default_factory=dict)
    """Unsaved completeness ticks per unit (cleared when saved)."""
    revealed: bool = False
    verdicts: dict[int, list[VerdictView]] = field(default_factory=dict)
    others: dict[int, dict[str, str]] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)
    """The reviewer's notes on this item's criteria and statements (``M``): read with the item
    and when another process writes, not on every key."""
    by_unit: dict[int, list[int]] = field(default_factory=dict)
    """Unit id → its row indices in order (an item may have 100,000 rows: no linear scans per
    key)."""

    has_options: bool = False
    """Whether any row is an option row (a completeness criterion's checkboxes)."""

    def __post_init__(self) -> None:
        for i, r in enumerate(self.rows):
            self.by_unit.setdefault(r.unit.id, []).append(i)
        self.has_options = any(r.criterion.options for r in self.rows)

    def rows_of(self, *unit_ids: int) -> set[int]:
        """The row indices of these units."""
        return {i for u in unit_ids for i in self.by_unit.get(u, ())}

    @classmethod
    def of(cls, session: ReviewSession) -> ItemView:
        """The view of the session's current item."""
        assert session.item is not None
        view = cls(session, session.item, build_rows(session.item, session.settings))
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
            draw = render.LISTED_ROWS[kinds.get(self.item.kind).listed_row]
            settings = self.session.settings
            conceal = settings.blind and settings.hide_points and not self.revealed
            return draw(
                self.item, row.statement, row.number, mine, judge, self.revealed, current, conceal
            )
        on_unit = (
            self.rows[cursor].unit.id == row.unit.id if 0 <= cursor < len(self.rows) else False
        )
        pending = None
        if row.criterion.options and row.unit.id in self.unsaved():
            pending = self.options_value(row.unit.id)
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
                f"labelled all {len(self.item.units)} units of this item ({left} to go).",
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
        unit_id = self.rows[cursor].unit.id
        order = [u.id for u in self._units_in_order()]
        pos = order.index(unit_id)
        if pos + 1 < len(order):
            return self.row_of(order[pos + 1])
        for uid in order:
            if uid not in self.session.labels:
                return self.row_of(uid)
        return None

    def start_row(self) -> int:
        """Where the cursor starts on an item: the first unit not labelled yet."""
        for u in self._units_in_order():
            if u.id not in self.session.labels:
                return self.row_of(u.id)
        return self.row_of(self.rows[0].unit.id) if self.rows else 0

    def row_of(self, unit_id: int) -> int:
        """The entry row of a unit: its first option row, else its own row."""
        indices = self.by_unit.get(unit_id) or [0]
        return indices[1] if len(indices) > 1 and self.rows[indices[1]].option else indices[0]

    def _units_in_order(self) -> list[Unit]:
        return [self.rows[indices[0]].unit for indices in self.by_unit.values()]
