"""Making untrusted text safe to show: no terminal escapes, no invisible reordering.

Answers, questions and model output are data. Before any of it reaches a terminal it goes
through :func:`printable`, which keeps newlines and tabs and replaces every other control
character (C0, DEL, C1 — so ESC-based ANSI/OSC sequences such as clipboard writes and title
changes cannot act) and the bidirectional-override characters with visible escapes like
``\\x1b`` or ``<U+202E>``. Rich markup is a separate concern: callers render text with markup
off (``Text(...)`` / ``markup=False``) so ``[bold red]`` stays literal.
"""

from __future__ import annotations

import re

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + "]")


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def printable(text: str) -> str:
    """Replace control and bidi-override characters with visible escapes (newline/tab kept)."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_escape, text.replace("\r\n", "\n"))


def one_line(text: str, width: int = 80) -> str:
    """A printable single-line preview, cut with an ellipsis."""
    flat = " ".join(printable(text).split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"
