"""Making untrusted text safe to show: no terminal escapes, no invisible reordering.

Answers, questions and model output are data. Before any of it reaches a terminal it goes
through :func:`printable`, which keeps newlines and tabs and replaces every other control
character (C0, DEL, C1 — so ESC-based ANSI/OSC sequences such as clipboard writes and title
changes cannot act) and the bidirectional-override characters with visible escapes like
``\\x1b`` or ``<U+202E>`` (lone surrogates too: they cannot be printed at all). Rich markup
is a separate concern: callers render text with markup off (``Text(...)`` / ``markup=False``)
so ``[bold red]`` stays literal.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
# Lone surrogates too: Python's stand-ins for undecodable bytes (a file name that is not
# UTF-8); printing one raises UnicodeEncodeError.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff" + _BIDI + "]")


# In a name (one line) tab and newline are control characters too.
_NAME_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff" + _BIDI + "]")


def control_character(text: str) -> str | None:
    """The first control character in ``text`` — C0 (tab and newline included), DEL, C1, a bidi
    control (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C) or a lone surrogate — or None."""
    found = _NAME_UNSAFE.search(text)
    return found.group(0) if found else None


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


def json_escaped(json_text: str) -> str:
    """JSON text with control, C1 and bidi characters as \\uXXXX escapes: same JSON, safe to print.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls (so ESC and BEL) but leaves
    C1 controls (``\\x9b`` is a CSI in 8-bit terminals) and bidi overrides raw. Outside
    strings JSON text holds none of these, so escaping them never changes the value.
    """
    if not _UNSAFE.search(json_text):
        return json_text
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json_text)


def json_line(record: object) -> str:
    """One JSON Lines record, safe to print: ``json.dumps`` (UTF-8 kept) with C1 and bidi
    controls escaped too (:func:`json_escaped`) — the same value, read back exactly. Every JSONL
    medjudge writes goes through this."""
    return json_escaped(json.dumps(record, ensure_ascii=False)) + "\n"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 judge``, ``2 judges`` (``many`` for irregular plurals); thousands separated."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet program read a cell as a formula (OWASP's "CSV injection" list)."""
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_Cell = TypeVar("_Cell")


def spreadsheet_text(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet cannot run and a terminal cannot act on: control
    and bidi characters shown as the app shows them (:func:`printable`: ``\x1b``,
    ``<U+202E>``; newlines and tabs kept), and a leading apostrophe when it starts with ``=``,
    ``+``, ``-``, ``@``, tab or carriage return, so ``=HYPERLINK(…)`` from an item id or a note
    opens as text. Numbers written as text (``-0.5``, ``+3``) and a lone ``-`` (a multi-select
    label with no option ticked) stay as they are: neither is a formula. Every CSV medjudge
    writes passes its cells through this or :func:`spreadsheet_cell`; the exact text is in the
    JSONL exports (:func:`json_line`)."""
    text = printable(text)
    if text[:1] in _FORMULA_START and text != "-" and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def spreadsheet_cell(value: _Cell) -> _Cell | str:
    """A CSV cell value: text through :func:`spreadsheet_text`, anything else (numbers, empty
    cells) unchanged, so numeric columns stay numbers."""
    return spreadsheet_text(value) if isinstance(value, str) else value
