"""Study text as Rich text, literally: the helpers every kind's review facet draws with.

Every string that comes from a study (questions, answers, statements, options, reasons) passes
through :func:`lit`: :func:`~medjudge.store.literal.printable` first (control characters,
ANSI/OSC escape sequences and bidi overrides become visible escapes), then a plain
``rich.text.Text`` (markup is never parsed, so ``[bold red]`` stays as typed). Styles are
attributes only (bold, dim, italic, reverse), so the text reads the same with NO_COLOR.

Loaded only with the review facets (:mod:`.facets`), never by the model of a kind.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from medjudge.store.literal import printable

EMPTY = "—"
"""Shown where the reviewer has not labelled yet."""

LISTED_WIDTH = 25
"""Width of the label column of a listed entry's row (statement, sub-question, criterion)."""


def lit(text: object, style: str = "") -> Text:
    """Untrusted text as a literal Rich ``Text`` (escapes made visible, markup not parsed)."""
    return Text(printable(str(text)), style=style, end="")


EMPTY_ANSWER = "(empty: the model wrote nothing)"
"""What an answer pane shows for an answer with no text (imported as such)."""


def answer_text(text: str) -> Text:
    """An answer as shown: its text literally, or :data:`EMPTY_ANSWER` (dim) when it has
    none, so an empty answer is seen to be empty rather than missing."""
    if text.strip():
        return lit(text)
    return Text(EMPTY_ANSWER, style="dim italic", end="")


def grid(label: Text, body: Text, label_width: int = LISTED_WIDTH) -> Table:
    """A row of two columns: a fixed-width label and a body that wraps."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=label_width, no_wrap=True)
    table.add_column(ratio=1)
    table.add_row(label, body)
    return table


def judged(
    body: Text, mine: str | None, judge: str | None, revealed: bool, *, spaced: bool = False
) -> None:
    """Append the judge's value (once revealed) and whether it matches the reviewer's;
    ``spaced``: underscores read as spaces (``not_met`` → ``not met``)."""
    if revealed and judge is not None:
        body.append("\njudge ", "dim")
        body.append_text(lit(judge.replace("_", " ") if spaced else judge))
        if mine is not None:
            body.append(" ✓" if judge == mine else " ✗", "bold")
