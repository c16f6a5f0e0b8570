"""Reads with a stated limit: a file (or ``-``, standard input) is never held whole when it is
larger than what medjudge accepts, so ``/dev/zero`` as guidelines, a prompt or an import ends
in a clear message, not a ``MemoryError``.

The limits (stated in the messages and in docs/guide.md):

- guidelines: :data:`medjudge.store.reviewer_aids.MAX_GUIDELINES_CHARS` characters;
- a prompt template: :data:`MAX_TEMPLATE_BYTES`;
- an import: a JSONL or CSV line of at most :data:`MAX_LINE_BYTES`, a JSON array file of at most
  :data:`MAX_JSON_BYTES`, standard input of at most :data:`MAX_STDIN_BYTES` (spooled to a
  temporary file as it is read, never held in memory).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import BinaryIO

MAX_TEMPLATE_BYTES = 1 << 20
"""A prompt template file (1 MiB)."""
MAX_LINE_BYTES = 64 << 20
"""One line of a JSONL or CSV import file (64 MiB: a record of several 1M-character fields)."""
MAX_JSON_BYTES = 512 << 20
"""A JSON array import file, which is read whole (512 MiB)."""
MAX_STDIN_BYTES = 4 << 30
"""Standard input for ``import -`` (4 GiB, spooled to a temporary file)."""


class TooLarge(ValueError):
    """More than a stated limit; the message says the limit."""


def size_text(n: int) -> str:
    """A byte count as people say it: ``64 MiB``, ``1 MiB``, ``4 GiB``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def is_stdin(path: Path) -> bool:
    """Whether ``path`` names standard input (``-``)."""
    return str(path) == "-"


def read_at_most(path: Path, limit: int) -> bytes:
    """A file's bytes, or standard input's for ``-``, reading no more than ``limit + 1``.

    Raises:
        TooLarge: the file holds more than ``limit`` bytes.
        OSError: the file cannot be read.
    """
    if is_stdin(path):
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"larger than {size_text(limit)}, the most medjudge reads here")
    return data


def spool_stdin(limit: int = MAX_STDIN_BYTES, line_limit: int = MAX_LINE_BYTES) -> BinaryIO:
    """Standard input copied block by block into an anonymous temporary file (rewound), so a
    large import never sits in memory.

    Raises:
        TooLarge: more than ``limit`` bytes in all, or a line longer than ``line_limit`` (found
            while copying: ``/dev/zero`` stops after ``line_limit`` bytes, not at the disk's end).
    """
    out = tempfile.TemporaryFile()  # noqa: SIM115 — handed to the caller, closed at exit
    total = run = 0
    line = 1
    while block := sys.stdin.buffer.read(1 << 20):
        total += len(block)
        if total > limit:
            out.close()
            raise TooLarge(f"standard input is larger than {size_text(limit)}")
        start = 0
        while (nl := block.find(b"\n", start)) >= 0:
            if run + nl - start > line_limit:
                out.close()
                raise TooLarge(_long_line(line, line_limit))
            run, start, line = 0, nl + 1, line + 1
        run += len(block) - start
        if run > line_limit:
            out.close()
            raise TooLarge(_long_line(line, line_limit))
        out.write(block)
    out.seek(0)
    return out


def _long_line(line: int, limit: int) -> str:
    return f"line {line} is longer than {size_text(limit)}, the most medjudge reads as one line"


def read_line(fh: BinaryIO, line: int, limit: int = MAX_LINE_BYTES) -> bytes:
    """The next line of ``fh`` (with its newline; ``b""`` at the end), at most ``limit`` bytes.

    Raises:
        TooLarge: the line is longer than ``limit``.
    """
    data = fh.readline(limit + 1)
    if len(data) > limit and not data.endswith(b"\n"):
        raise TooLarge(_long_line(line, limit))
    return data
