"""A kind's review facet: how its items are shown on the review and adjudication screens.

Each kind package has one (``kinds/<name>/review.py``, ``FACET``), found by :func:`facet`. The screens compose from it and never ask which kind an
item is: the question pane, the answer panes (as many as the item has, in the order the reviewer
sees them), the file-order panes of the adjudication detail, the reader's sections and how one
listed entry (a statement, a sub-question, a rubric criterion) is drawn.

This module and the facets are the only parts of a kind that draw (Rich; Textual where a facet
needs a widget). They are loaded by the apps only: ``medjudge --help``, ``judge`` and ``report``
never import them (``tests/test_startup_imports.py``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from medjudge.store.abstentions import declines

from . import KINDS, get
from .base import Kind
from .shown import EMPTY, answer_text, grid, judged, lit

if TYPE_CHECKING:
    from medjudge.store.items import Item, Statement


@dataclass(frozen=True)
class Shown:
    """One titled text: a pane of the review screen, a section of the reader."""

    title: str
    text: Text


@dataclass(frozen=True)
class ReviewFacet:
    """The default facet: a question, one answer, listed entries drawn as numbered rows.
    A kind's facet overrides what differs."""

    kind: Kind
    max_answers: int = 1
    """The most answer panes an item of the kind shows (the screen composes that many)."""
    answer_title: str = "Answer"
    """The title of the answer pane (one answer)."""

    # -- panes -------------------------------------------------------------------------------
    def question(self, item: Item) -> Shown | None:
        """The pane above the answers (None: the kind shows none)."""
        return Shown("Question", lit(item.question))

    def answers(self, item: Item, decline_phrases: tuple[str, ...] = ()) -> list[Shown]:
        """The answer panes in the order the reviewer sees them (left to right, top down)."""
        answer = item.answers.get("answer")
        if answer is None:
            return []
        title = self.answer_title
        # a hint only: the labels decide (store.abstentions)
        if self.kind.abstains and declines(answer.text, decline_phrases):
            title += " · looks like a refusal?"
        return [Shown(title, answer_text(answer.text))]

    def file_panes(self, item: Item) -> list[Shown]:
        """The item in the import file's order (the adjudication detail): question, answers."""
        asked = self.question(item)
        return ([asked] if asked else []) + self.answers(item)

    def reader(self, item: Item) -> list[Shown]:
        """The reader's sections before the listed entries (``v``): question and answers as
        the reviewer sees them."""
        asked = self.question(item)
        return ([asked] if asked else []) + self.answers(item)

    # -- listed entries ----------------------------------------------------------------------
    def badge(self, item: Item, stmt: Statement, number: int, conceal: bool) -> Text:
        """What stands before a listed entry's label (its category, its points)."""
        return Text(end="")

    def listed_row(
        self,
        item: Item,
        stmt: Statement,
        number: int,
        mine: str | None,
        judge: str | None,
        revealed: bool,
        current: bool,
        conceal: bool,
    ) -> RenderableType:
        """One listed entry in the unit list: number, badge, the reviewer's label, the text,
        and (revealed) the judge's label."""
        label = Text(end="")
        label.append("▶ " if current else "  ")
        label.append(f"{number:>2} ")
        label.append_text(self.badge(item, stmt, number, conceal))
        label.append_text(lit((mine or EMPTY).replace("_", " "), "bold" if mine else "dim"))
        body = self.listed_body(item, stmt, number)
        judged(body, mine, judge, revealed, spaced=True)
        return grid(label, body)

    def listed_body(self, item: Item, stmt: Statement, number: int) -> Text:
        """The text of a listed entry's row."""
        return lit(stmt.text)

    def listed_line(self, item: Item, stmt: Statement, number: int, current: bool) -> Text:
        """One listed entry in the adjudication detail's item text."""
        out = Text(end="")
        out.append("▶ " if current else "  ", "bold")
        out.append(f"{number:>2} ")
        out.append_text(self.badge(item, stmt, number, False))
        out.append_text(lit(stmt.text, "bold reverse" if current else ""))
        return out

    def about(self, item: Item, stmt: Statement, number: int) -> Text:
        """A listed entry named in the adjudication detail's heading."""
        out = Text(f"{self.kind.listed_name} {number} ", style="bold", end="")
        out.append_text(self.badge(item, stmt, number, False))
        out.append_text(lit(stmt.text, "italic"))
        return out


@cache
def facet(name: str) -> ReviewFacet:
    """The review facet of the kind called ``name`` (``kinds/<name>/review.py``, imported when
    first asked for).

    Raises:
        UnknownKind: no such kind.
    """
    kind = get(name)
    found: ReviewFacet = importlib.import_module(f"{__package__}.{kind.name}.review").FACET
    return found


def max_answer_panes() -> int:
    """The most answer panes an item of any registered kind shows (the review screen composes
    that many and hides those an item does not use)."""
    return max(facet(name).max_answers for name in KINDS)
