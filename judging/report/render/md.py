"""How the Markdown report writes study text and table cells (the page is ``report.md.j2``).

Study text (item ids, rater, criterion and model names) is shown literally: control and
bidi characters become visible escapes (:func:`medjudge.store.literal.printable`), line breaks
become spaces, and Markdown's active characters (``|`` and backticks among them) are
backslash-escaped, so a name can neither break a table nor turn into markup or HTML.

The tables themselves (columns and rows) are defined in :mod:`.tables`; this module formats
their cells (:func:`md_cell`), the template lays them out.
"""

from __future__ import annotations

import re

from medjudge.judging.analysis.records import Figure, Share
from medjudge.judging.report import cells as rc
from medjudge.judging.report import text as rt
from medjudge.store.literal import printable

_ACTIVE = re.compile(r"([\\`|*\[\]<>#&~!])")
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md(text: object) -> str:
    """Study text made literal for a Markdown table cell or line."""
    t = printable("" if text is None else str(text))
    t = " ".join(t.replace("\r", " ").replace("\n", " ").replace("\t", " ").split(" "))
    t = _ACTIVE.sub(r"\\\1", t)
    return _UNDERSCORE.sub(r"\\_", t)


def _share(s: Share | None) -> str:
    if s is None:
        return "–"
    if s.value is None:
        return rt.est(s)
    return f"{s.count:,}/{s.n:,} = {rt.est(s, pct=True)}"


def _est(e: Figure | None, pct: bool, note: str | None) -> str:
    text = rt.est(e, pct=pct)
    return f"{text} ({note})" if note else text


STYLE = rc.Style("md", text=md, code=md, est=_est, share=_share)
"""Markdown cells: study text escaped by :func:`md`, estimates as ``0.61 [0.52, 0.70]``."""


def md_cell(c: rc.Cell) -> str:
    """One table cell, written for Markdown."""
    return STYLE.cell(c)
