"""Reads with a stated limit: a file (or ``-``, standard input) is never held whole when it is
larger than what medjudge accepts, so ``/dev/zero`` as guidelines, a prompt or an import ends
in a clear message, not a ``MemoryError``.

The limits (stated in the messages and in docs/guide.md):

- guidelines: :data:`medjudge.store.reviewer_aids.MAX_GUIDELINES_CHARS` characters;
- a prompt template: :data:`MAX_TEMPLATE_BYTES`;
- an import: a JSONL or CSV line of at most :data:`MAX_LINE_BYTES`, a JSON array file of at most
  :data:`MAX_JSON_BYTES`, standard input of at most :data:`MAX_STDIN_BYTES` (spooled to a
  temporary file as it is read, never held in memory, never read ahead of the parser).
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

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


class _Spool(io.RawIOBase):
    """Standard input as a seekable file that reads stdin only as far as asked: each block
    read (as soon as it arrives, ``read1``) is checked against the limits and appended to an
    anonymous temporary file, from which every read is served. A reader that stops at a bad
    line stops the copying there too."""

    def __init__(self, limit: int, line_limit: int) -> None:
        super().__init__()
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 — closed with the spool
        self._limit, self._line_limit = limit, line_limit
        self._filled = self._pos = self._run = 0
        self._line = 1
        self._eof = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_END:
            self._pull(None)
            offset += self._filled
        elif whence == io.SEEK_CUR:
            offset += self._pos
        self._pos = max(offset, 0)
        return self._pos

    def _pull(self, until: int | None) -> None:
        """Copy stdin until ``until`` bytes are spooled (None: to its end), checking limits."""
        stdin = sys.stdin.buffer
        read = getattr(stdin, "read1", stdin.read)  # what has arrived, not a full 1 MiB
        while not self._eof and (until is None or self._filled < until):
            block = read(1 << 20)
            if not block:
                self._eof = True
                return
            if self._filled + len(block) > self._limit:
                raise TooLarge(f"standard input is larger than {size_text(self._limit)}")
            start = 0
            while (nl := block.find(b"\n", start)) >= 0:
                if self._run + nl - start > self._line_limit:
                    raise TooLarge(_long_line(self._line, self._line_limit))
                self._run, start, self._line = 0, nl + 1, self._line + 1
            self._run += len(block) - start
            if self._run > self._line_limit:
                raise TooLarge(_long_line(self._line, self._line_limit))
            self._file.seek(self._filled)
            self._file.write(block)
            self._filled += len(block)

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        self._pull(self._pos + 1)
        if self._pos >= self._filled:
            return 0
        self._file.seek(self._pos)
        n = self._file.readinto(view[: min(len(view), self._filled - self._pos)])
        self._pos += n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def spool_stdin(limit: int = MAX_STDIN_BYTES, line_limit: int = MAX_LINE_BYTES) -> BinaryIO:
    """Standard input as a seekable file, copied to an anonymous temporary file as it is read
    (never held in memory, never read further than the reader asks: an import that fails on
    line 3 of an endless stream stops there).

    Reading from it raises:
        TooLarge: more than ``limit`` bytes in all, or a line longer than ``line_limit`` (found
            while copying: ``/dev/zero`` stops after ``line_limit`` bytes, not at the disk's end).
    """
    return io.BufferedReader(_Spool(limit, line_limit), buffer_size=1 << 16)


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
