"""Reading JSONL, CSV and JSON files into located records.

Every reader yields :class:`Record` objects that know their file and line, and raises
:class:`ImportProblem` for undecodable bytes, broken JSON or CSV with the line number.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..bounded import MAX_JSON_BYTES, TooLarge, is_stdin, read_line, size_text, spool_stdin
from .problems import MAX_TEXT, ImportProblem, Record, type_name, unstorable_field

STDIN = Path("-")
"""The path that means standard input (``medjudge import STUDY - --kind …``)."""
FORMATS = ("jsonl", "csv", "json")
_stdin: list[BinaryIO] = []  # standard input, spooled to a temporary file once per process

__all__ = ["FORMATS", "STDIN", "is_stdin", "read_bytes", "read_records", "stdin_head"]


def _stdin_file() -> BinaryIO:
    """Standard input as a rewound file, spooled to a temporary file as far as it is read
    (once per process, with the stated limits: a read past one raises TooLarge)."""
    if not _stdin:
        _stdin.append(spool_stdin())
    _stdin[0].seek(0)
    return _stdin[0]


def _stdin_read(n: int = -1) -> bytes:
    """Up to ``n`` bytes of standard input from its start (-1: all of it)."""
    try:
        return _stdin_file().read(n)
    except TooLarge as exc:
        raise ImportProblem(STDIN, str(exc)) from None


def stdin_head(n: int) -> bytes:
    """The first ``n`` bytes of standard input (which stays readable from its start)."""
    return _stdin_read(n)


def read_bytes(path: Path) -> bytes:
    """The whole file (a JSON array, read whole), with clear messages for missing, unreadable
    or too large files (at most :data:`~medjudge.store.bounded.MAX_JSON_BYTES`).

    ``-`` is standard input, read once (a second call returns the same bytes).
    """
    try:
        if is_stdin(path):
            data = _stdin_read(MAX_JSON_BYTES + 1)
        else:
            _check_file(path)
            with path.open("rb") as fh:
                data = fh.read(MAX_JSON_BYTES + 1)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    if len(data) > MAX_JSON_BYTES:
        raise ImportProblem(
            path,
            f"is larger than {size_text(MAX_JSON_BYTES)}, the most medjudge reads as one JSON "
            "document; write it as JSONL (one record per line)",
        )
    return data


def _check_file(path: Path) -> None:
    """A clear message for a path that names no file or a folder."""
    if not path.exists():
        raise ImportProblem(path, "no such file")
    if path.is_dir():
        raise ImportProblem(path, "is a folder, not a file")
    if not path.is_file():  # a device or a pipe has no end to hash (``/dev/zero``)
        raise ImportProblem(
            path, "is not a regular file (to read a pipe or a device, give - and redirect it)"
        )


def _unreadable(path: Path, exc: OSError) -> ImportProblem:
    return ImportProblem(path, f"cannot read it ({exc.strerror})")


_BOM = b"\xef\xbb\xbf"


def _decode(path: Path, line: bytes | memoryview, n: int) -> str:
    try:
        return str(line, "utf-8")
    except UnicodeDecodeError as exc:
        raise ImportProblem(
            path,
            f"is not valid UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8",
            line=n,
        ) from None


def _decode_lines(path: Path, raw: bytes) -> list[str]:
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    return [_decode(path, line, n) for n, line in enumerate(raw.split(b"\n"), start=1)]


def _stream_lines(path: Path, ends: bool = False) -> Iterator[tuple[int, str]]:
    """A file's lines (numbered from 1, without the newline unless ``ends``), read one at a
    time and each at most :data:`~medjudge.store.bounded.MAX_LINE_BYTES`: a large import never
    holds the whole file (standard input is first spooled to a temporary file, since the
    import also hashes it)."""
    if is_stdin(path):
        yield from _lines_of(path, _stdin_file(), ends)
        return
    _check_file(path)
    try:
        with path.open("rb") as fh:
            yield from _lines_of(path, fh, ends)
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _lines_of(path: Path, fh: BinaryIO, ends: bool = False) -> Iterator[tuple[int, str]]:
    n = 1
    while True:
        try:
            line = read_line(fh, n)
        except TooLarge as exc:
            raise ImportProblem(path, str(exc), line=n) from None
        if not line:
            return
        if n == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        # decoded through a view (no copy of the bytes), which is dropped before the yield:
        # a line of tens of MB is held once, as text
        view = memoryview(line)
        text = _decode(path, view if ends or not line.endswith(b"\n") else view[:-1], n)
        view.release()
        del view, line
        yield n, text
        n += 1


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (read in blocks) or of standard input (as read once)."""
    try:
        if is_stdin(path):
            digest, fh = hashlib.sha256(), _stdin_file()
            try:
                while block := fh.read(1 << 20):
                    digest.update(block)
            except TooLarge as exc:
                raise ImportProblem(STDIN, str(exc)) from None
            return digest.hexdigest()
        _check_file(path)
        with path.open("rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _loads(path: Path, text: str, line: int) -> object:
    """``json.loads`` with every failure as an ImportProblem at ``line``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportProblem(
            path, f"not valid JSON ({exc.msg} at column {exc.colno})", line=line + exc.lineno - 1
        ) from None
    except RecursionError:
        raise ImportProblem(path, "not valid JSON (nested too deeply)", line=line) from None
    except ValueError:  # Python refuses integers of more than 4300 digits
        raise ImportProblem(path, "not valid JSON (a number too long to read)", line=line) from None


JSON_ARRAY_HINT = (
    "the file is one JSON array, not one object per line: import it with --format json "
    "(or name it .json)"
)
JSON_LINES_HINT = (
    "the file holds one JSON object per line: import it with --format jsonl (or name it .jsonl)"
)


def _record(path: Path, line: int, value: object) -> Record:
    if isinstance(value, list) and line == 1:
        raise ImportProblem(path, f"expected a JSON object, got a list; {JSON_ARRAY_HINT}", line=1)
    if not isinstance(value, dict):
        raise ImportProblem(path, f"expected a JSON object, got {type_name(value)}", line=line)
    found = unstorable_field(value)
    if found is not None:
        field, why = found
        raise ImportProblem(path, why, line=line, field=field)
    return Record(str(path), line, value)


def read_jsonl(path: Path) -> Iterator[Record]:
    """One JSON object per line; blank lines are skipped."""
    for n, line in _stream_lines(path):
        if not line.strip():
            continue
        yield _record(path, n, _loads(path, line, n))


def _csv_lines(path: Path) -> Iterator[str]:
    """The file's lines for :mod:`csv`, read one at a time, split as a text file opened with
    ``newline=""`` splits them (at LF, CR LF and a lone CR, endings kept)."""
    for _, line in _stream_lines(path, ends=True):
        if "\r" in line:
            yield from io.StringIO(line, newline="")
        else:
            yield line


def read_csv(path: Path) -> Iterator[Record]:
    """A CSV file with a header row; a record's line is where it starts.

    A cell holds at most :data:`~medjudge.store.importing.problems.MAX_TEXT` characters. The
    csv module's own field limit stops a longer one while it reads it: it builds a cell at 4
    bytes a character, so a 50-million-character cell read whole before the text check took
    hundreds of MB. The message names the line and the column.
    """
    pending: list[str] = []  # the lines of the record being read, to name a cell too long

    def lines() -> Iterator[str]:
        for line in _csv_lines(path):
            pending.append(line)
            yield line

    reader = csv.reader(lines(), strict=True)
    csv.field_size_limit(MAX_TEXT)
    try:
        header = next(reader)
    except StopIteration:
        raise ImportProblem(path, "is empty (expected a header row)") from None
    except csv.Error as exc:
        raise _csv_problem(path, exc, 1, pending, None) from None
    pending.clear()
    header = [h.strip() for h in header]
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise ImportProblem(path, f"duplicate column(s) {', '.join(dupes)}", line=1)
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _csv_problem(path, exc, start, pending, header) from None
        pending.clear()
        if row and any(cell.strip() for cell in row):
            if len(row) != len(header):
                raise ImportProblem(
                    path, f"has {len(row)} fields but the header has {len(header)}", line=start
                )
            yield Record(str(path), start, dict(zip(header, row, strict=True)))
        start = reader.line_num + 1


def _csv_problem(
    path: Path, exc: csv.Error, line: int, record: list[str], header: list[str] | None
) -> ImportProblem:
    """The csv module's error as an ImportProblem; its field limit names the cell's column."""
    if "field larger than field limit" not in str(exc):
        return ImportProblem(path, f"not valid CSV ({exc})", line=line)
    column = _long_cell(record, MAX_TEXT)
    field = None
    if header is not None and column is not None and column < len(header):
        field = header[column]
    return ImportProblem(
        path, f"a cell is longer than {MAX_TEXT:,} characters", line=line, field=field
    )


_CELL_END = re.compile("[,\r\n]")


def _long_cell(lines: list[str], limit: int) -> int | None:
    """The column of the first cell of a CSV record (its lines, endings kept) longer than
    ``limit`` characters as the csv module counts them (a doubled quote in a quoted cell is
    one), found line by line, jumping from quote to quote and from comma to comma."""
    column = length = 0
    quoted, fresh = False, True  # inside a quoted cell; at the start of a cell
    for text in lines:
        pos, end = 0, len(text)
        while pos < end:
            if fresh:
                fresh, length = False, 0
                if text[pos] == '"':
                    quoted, pos = True, pos + 1
                    continue
            if quoted:
                quote = text.find('"', pos)
                if quote < 0:
                    length, pos = length + end - pos, end
                elif text.startswith('""', quote):
                    length, pos = length + quote - pos + 1, quote + 2
                else:
                    length, pos, quoted = length + quote - pos, quote + 1, False
                if length > limit:
                    return column
                continue
            stop = _CELL_END.search(text, pos)
            length += (stop.start() if stop else end) - pos
            if length > limit:
                return column
            if stop is None:
                pos = end
            elif stop.group() == ",":
                column, pos, fresh = column + 1, stop.end(), True
            else:
                return None  # the record ended
    return None


def read_json_array(path: Path) -> Iterator[Record]:
    """A JSON array of objects (K-QA's result format); each record knows the line it starts on."""
    text = "\n".join(_decode_lines(path, read_bytes(path)))
    try:
        value = _loads(path, text, 1)
    except ImportProblem as exc:
        if "Extra data" in exc.message and text.lstrip().startswith("{"):
            raise ImportProblem(path, f"{exc.message}; {JSON_LINES_HINT}", line=exc.line) from None
        raise
    if isinstance(value, dict) and text.lstrip().startswith("{"):
        raise ImportProblem(
            path, f"expected a JSON array of objects, got an object; {JSON_LINES_HINT}", line=1
        )
    if not isinstance(value, list):
        raise ImportProblem(
            path, f"expected a JSON array of objects, got {type_name(value)}", line=1
        )
    # Find where each top-level element starts, for line numbers in messages (counting
    # newlines from the previous element on, so a large array stays linear).
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    line, counted = 1, 0
    for element in value:
        while text[pos] in " \t\r\n,":
            pos += 1
        line += text.count("\n", counted, pos)
        counted = pos
        _, end = decoder.raw_decode(text, pos)
        pos = end
        yield _record(path, line, element)


def read_records(path: Path, fmt: str | None = None) -> Iterator[Record]:
    """Read ``path`` as ``fmt`` (``jsonl``, ``csv`` or ``json``); without one, pick the reader by
    file extension (.jsonl/.ndjson, .csv, .json) — standard input (``-``) is JSONL by default."""
    if fmt is None:
        suffix = path.suffix.lower()
        fmt = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".json": "json"}.get(suffix)
        if fmt is None and is_stdin(path):
            fmt = "jsonl"
    if fmt == "jsonl":
        return read_jsonl(path)
    if fmt == "csv":
        return read_csv(path)
    if fmt == "json":
        return read_json_array(path)
    raise ImportProblem(path, "unknown file type: use .jsonl, .csv or .json (or --format)")
