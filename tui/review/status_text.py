"""The left side of the review screen's status line: where the reviewer is."""

from __future__ import annotations

from rich.text import Text

from medjudge.tui import render
from medjudge.tui.session import ReviewSession


def where(s: ReviewSession) -> Text:
    """The item (id, place in the queue, kind, batch, flag, done) and the study's name."""
    out = Text(end="")
    if s.item is not None:
        out.append_text(render.lit(s.item.ext_id, "bold"))
        out.append(f"  {s.index + 1}/{len(s.refs)}  {s.item.kind}")
        if s.item.batch:
            out.append(" · ")
            out.append_text(render.lit(s.item.batch))
        if s.item.id in s.flagged:
            out.append("  ⚑", "bold")
        if s.complete():
            out.append("  ✓ done", "bold")
        out.append("  ")
    out.append_text(render.lit(s.settings.name, "dim"))
    return out
