"""Turning study data into Rich text, literally.

Every string that comes from a study (questions, answers, statements, options, judge names,
reasons, reviewer names, notes) passes through :func:`lit`: :func:`printable` first (control
characters, ANSI/OSC escape sequences and bidi overrides become visible escapes), then a plain
``rich.text.Text`` (markup is never parsed, so ``[bold red]`` stays as typed). Nothing here
builds markup strings. Styles used here are attributes only (bold, dim, italic, reverse) so the
text reads the same with NO_COLOR; colours come from the ``.tcss``.

No Textual import: these are pure functions, tested on their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from medjudge import kinds
from medjudge.kinds.shown import EMPTY as EMPTY
from medjudge.kinds.shown import grid
from medjudge.kinds.shown import lit as lit
from medjudge.store.frames import shown_order, to_display
from medjudge.store.items import Item
from medjudge.store.judgments import VerdictView
from medjudge.store.settings import Criterion


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in … when cut (long judge names)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def display_value(item: Item, criterion: Criterion, value: str | None) -> str:
    """A stored label (file frame) as the reviewer sees it: pairwise A/B in display order."""
    if value is None:
        return EMPTY
    return kinds.get(criterion.kind).to_display_frame(value, shown_order(item))


def options_of(item: Item) -> list[tuple[str, str]]:
    """A rating item's options as (letter, text), in order."""
    return [(str(k), str(v)) for k, v in (item.data.get("options") or {}).items()]


def context_text(item: Item, *, kinds: bool = False, marked: set[int] | None = None) -> Text:
    """An item's context documents, numbered; with ``kinds``, each match document's kind
    (signal, noise, counterfactual — hidden while a blind item is not revealed); ``marked``:
    the documents the reviewer said the answer wrongly relied on."""
    doc_kinds: list[str] = item.data.get("document_kinds", []) if kinds else []
    out = Text(end="")
    for i, doc in enumerate(item.context, 1):
        if i > 1:
            out.append("\n\n")
        out.append(f"[{i}] ", "bold")
        if i <= len(doc_kinds):
            out.append(f"{doc_kinds[i - 1]}: ", "italic")
        if marked and i in marked:
            out.append("relied on wrongly ", "bold reverse")
        out.append_text(lit(doc))
    return out


PANE_CHARS = 20_000
"""The most characters a pane of the review or adjudication screen lays out (about 3,000
words); the rest of a longer text is read with ``v``, page by page. Laying out a 1M-character
answer took 45 s and 1.7 GB."""


def cut(text: Text, limit: int) -> int:
    """Where to cut ``text`` to at most ``limit`` characters: after the last line break or
    space of its second half, else at ``limit``."""
    if len(text) <= limit:
        return len(text)
    plain = text.plain
    at = max(plain.rfind("\n", limit // 2, limit), plain.rfind(" ", limit // 2, limit))
    return at + 1 if at > 0 else limit


def shown_part(text: Text, limit: int = PANE_CHARS) -> Text:
    """``text`` as a pane shows it: whole, or its first ``limit`` characters and a note of how
    much more there is and how to read it."""
    if len(text) <= limit:
        return text
    end = cut(text, limit)
    out = text[:end]
    out.append(f"\n… {len(text) - end:,} more characters: v reads the whole item", "bold")
    return out


def markdown(text: Text) -> RenderableType:
    """A text drawn as Markdown (an answer's rendered view): headings, lists, tables and
    emphasis by Rich's renderer; links shown as text with their address, never as terminal
    hyperlinks. ``text`` is already literal (:func:`~medjudge.kinds.shown.lit`: escape
    sequences made visible), and Rich's Markdown reads no Rich markup, so nothing in the data
    is interpreted but its Markdown."""
    from rich.markdown import Markdown  # markdown-it: loaded only when first asked for

    return Markdown(shown_part(text).plain, hyperlinks=False)


def criterion_row(
    item: Item,
    crit: Criterion,
    mine: str | None,
    judge: str | None,
    revealed: bool,
    current: bool,
    pending: str | None = None,
) -> RenderableType:
    """One criterion line: marker, name, polarity, the reviewer's vote, and after the reveal
    the judge's verdict with an agreement mark."""
    line = Text(end="")
    line.append("▶ " if current else "  ")
    line.append(f"{crit.name:<19}", "bold" if current else "")
    note = kinds.get(crit.kind).criterion_note(crit)
    if note:
        line.append(f"{note:<7} ", "dim")
    shown = display_value(item, crit, mine)
    if pending is not None:
        line.append_text(lit(f"{pending or '-':<8}", "italic"))
        line.append(" unsaved", "italic")
    else:
        line.append_text(lit(f"{shown:<8}", "bold" if mine is not None else "dim"))
    if revealed and judge is not None:
        jshown = display_value(item, crit, judge)
        line.append("  judge ", "dim")
        line.append_text(lit(jshown))
        if mine is not None:
            line.append(" ✓" if judge == mine else " ✗", "bold")
    return line


def option_row(letter: str, text: str, ticked: bool, cursor: bool) -> RenderableType:
    """One option checkbox of the completeness criterion."""
    label = Text(end="")
    label.append("  › " if cursor else "    ")
    label.append("[x] " if ticked else "[ ] ", "bold" if ticked else "")
    label.append_text(lit(letter, "bold"))
    return grid(label, lit(text), 10)


def _votes(item: Item, votes: Sequence[Any]) -> str:
    if not votes:
        return "none"
    return " ".join(to_display(str(v), shown_order(item)) for v in votes)


def verdict_lines(
    item: Item, crit: Criterion, mine: str | None, verdicts: Sequence[VerdictView]
) -> Text:
    """Every judge's verdict on one unit: value, agreement, AB/BA votes, reason."""
    out = Text(end="")
    for n, v in enumerate(verdicts):
        if n:
            out.append("\n")
        out.append("Judge ", "bold")
        out.append_text(lit(v.judge, "bold"))
        out.append(": ")
        out.append_text(
            lit(
                display_value(item, crit, v.value)
                if v.value is not None
                else "missing (no valid sample)"
            )
        )
        if mine is not None and v.value is not None:
            out.append(
                "  ✓ agrees with you"
                if v.value == mine
                else f"  ✗ you said {display_value(item, crit, mine)}",
                "bold",
            )
        orders = v.trail.get("orders") if isinstance(v.trail, dict) else None
        if isinstance(orders, dict) and orders:
            ab = (orders.get("AB") or {}).get("votes") or []
            ba = (orders.get("BA") or {}).get("votes") or []
            out.append("\n  votes  AB: ")
            out.append_text(lit(_votes(item, ab)))
            out.append("  ·  BA: ")
            out.append_text(lit(_votes(item, ba)))
            if v.trail.get("position_inconsistent"):
                out.append("  ·  position-inconsistent (AB ≠ BA)", "bold")
        elif isinstance(v.trail, dict) and v.trail.get("votes"):
            out.append("\n  votes  ")
            out.append_text(lit(_votes(item, v.trail["votes"])))
        if v.reason:
            out.append("\n  reason  ", "dim")
            out.append_text(lit(v.reason))
    return out


def others_line(item: Item, crit: Criterion, others: dict[str, str]) -> Text:
    """Other reviewers' labels on one unit."""
    out = Text("Other reviewers: ", style="bold", end="")
    for n, (name, value) in enumerate(sorted(others.items())):
        if n:
            out.append(" · ")
        out.append_text(lit(name))
        out.append(" ")
        out.append_text(lit(display_value(item, crit, value), "bold"))
    return out


def progress_text(done: int, total: int, width: int) -> Text:
    """A one-line progress bar: ``━━━━╺─────  3/22 items done  14%``."""
    pct = 0 if total == 0 else round(100 * done / total)
    tail = f" {done}/{total} items done · {pct}%"
    bar_w = max(4, width - len(tail) - 1)
    filled = 0 if total == 0 else int(bar_w * done / total)
    out = Text(end="", no_wrap=True)
    out.append("━" * filled, "bold")
    if filled < bar_w:
        out.append("╺" if filled else "─", "dim")
        out.append("─" * (bar_w - filled - 1), "dim")
    out.append(tail)
    return out


def confusion_table(
    categories: Sequence[object], matrix: Sequence[Sequence[int]], rater_a: str, rater_b: str
) -> Table:
    """A confusion matrix: rows are rater A's labels, columns rater B's."""
    table = Table(show_edge=False, box=None, pad_edge=False, padding=(0, 1))
    table.add_column(lit(f"{rater_a} ↓  {rater_b} →"), no_wrap=True)
    for c in categories:
        table.add_column(lit(c, "bold"), justify="right")
    for c, row in zip(categories, matrix, strict=False):
        cells = [lit(c, "bold")]
        for j, n in enumerate(row):
            diagonal = categories[j] == c
            cells.append(
                Text(str(n), style="bold reverse" if diagonal and n else ("dim" if not n else ""))
            )
        table.add_row(*cells)
    return table
