"""Reading JSONL, CSV and JSON files into located records.

Every reader yields :class:`Record` objects that know their file and line, and raises
:class:`ImportProblem` for undecodable bytes, broken JSON or CSV with the line number.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from .problems import ImportProblem, Record, type_name, unstorable_field

STDIN = Path("-")
"""The path that means standard input (``medjudge import STUDY - --kind …``)."""
FORMATS = ("jsonl", "csv", "json")
_stdin: list[bytes] = []  # standard input, read once per process


def is_stdin(path: Path) -> bool:
    """Whether ``path`` names standard input."""
    return str(path) == str(STDIN)


def read_bytes(path: Path) -> bytes:
    """The whole file, with clear messages for missing or unreadable files.

    ``-`` is standard input, read once (a second call returns the same bytes).
    """
    if is_stdin(path):
        if not _stdin:
            _stdin.append(sys.stdin.buffer.read())
        return _stdin[0]
    _check_file(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _check_file(path: Path) -> None:
    """A clear message for a path that names no file or a folder."""
    if not path.exists():
        raise ImportProblem(path, "no such file")
    if path.is_dir():
        raise ImportProblem(path, "is a folder, not a file")


def _unreadable(path: Path, exc: OSError) -> ImportProblem:
    return ImportProblem(path, f"cannot read it ({exc.strerror})")


_BOM = b"\xef\xbb\xbf"


def _decode(path: Path, line: bytes, n: int) -> str:
    try:
        return line.decode("utf-8")
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


def _stream_lines(path: Path) -> Iterator[tuple[int, str]]:
    """A file's lines (numbered from 1, without the newline), read one at a time: a large
    import never holds the whole file (standard input is read once, as a whole, since the
    import also hashes it)."""
    if is_stdin(path):
        yield from enumerate(_decode_lines(path, read_bytes(path)), start=1)
        return
    _check_file(path)
    try:
        with path.open("rb") as fh:
            for n, line in enumerate(fh, start=1):
                if n == 1 and line.startswith(_BOM):
                    line = line[len(_BOM) :]
                yield n, _decode(path, line[:-1] if line.endswith(b"\n") else line, n)
    except OSError as exc:
        raise _unreadable(path, exc) from None


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (read in blocks) or of standard input (as read once)."""
    if is_stdin(path):
        return hashlib.sha256(read_bytes(path)).hexdigest()
    try:
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


def _record(path: Path, line: int, value: object) -> Record:
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
    for _, line in _stream_lines(path):
        if "\r" in line:
            yield from io.StringIO(line + "\n", newline="")
        else:
            yield line + "\n"


def read_csv(path: Path) -> Iterator[Record]:
    """A CSV file with a header row; a record's line is where it starts."""
    reader = csv.reader(_csv_lines(path), strict=True)
    csv.field_size_limit(50_000_000)
    try:
        header = next(reader)
    except StopIteration:
        raise ImportProblem(path, "is empty (expected a header row)") from None
    except csv.Error as exc:
        raise ImportProblem(path, f"not valid CSV ({exc})", line=1) from None
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
            raise ImportProblem(path, f"not valid CSV ({exc})", line=start) from None
        if row and any(cell.strip() for cell in row):
            if len(row) != len(header):
                raise ImportProblem(
                    path, f"has {len(row)} fields but the header has {len(header)}", line=start
                )
            yield Record(str(path), start, dict(zip(header, row, strict=True)))
        start = reader.line_num + 1


def read_json_array(path: Path) -> Iterator[Record]:
    """A JSON array of objects (K-QA's result format); each record knows the line it starts on."""
    text = "\n".join(_decode_lines(path, read_bytes(path)))
    value = _loads(path, text, 1)
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
