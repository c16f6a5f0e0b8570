"""The one kind of error an import reports: which file, which line, which field, and why."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from medjudge.store.json_types import JsonObject


class ImportProblem(Exception):
    """Bad input. ``str()`` is the message shown to the user, e.g.

    ``answers.jsonl, line 7, field 'answer_b': expected text, got a number``.
    """

    def __init__(
        self, file: str | Path, message: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        """Describe one problem with an input file."""
        self.file = "standard input" if str(file) == "-" else str(file)
        self.line = line
        self.field = field
        self.message = message
        where = self.file
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")


FIELDS_LISTED = 15
"""The most field names a "missing" message lists."""

MAX_TEXT = 1_000_000
"""Longest text field accepted (characters); longer is almost surely a broken file."""


class Record:
    """One input record with its location, and typed getters that report problems precisely."""

    def __init__(self, file: str, line: int, data: dict[str, object]) -> None:
        """Wrap a parsed record found at ``file``:``line``."""
        self.file = file
        self.line = line
        self.data = data

    def problem(self, message: str, field: str | None = None) -> ImportProblem:
        """An ImportProblem located at this record."""
        return ImportProblem(self.file, message, line=self.line, field=field)

    def missing(self, field: str) -> ImportProblem:
        """A required field that is not there: the message lists the fields that are (a CSV
        without an ``id`` column, a file written with other names)."""
        found = list(self.data)
        shown = ", ".join(found[:FIELDS_LISTED]) + (", …" if len(found) > FIELDS_LISTED else "")
        return self.problem(
            "missing (required); " + (f"the fields found: {shown}" if found else "no fields"),
            field,
        )

    def json_cell(self, field: str, text: str, expected: str) -> object:
        """Parse a JSON list or object written into one field (a CSV cell).

        Every way ``json.loads`` can fail — bad syntax, nesting too deep (RecursionError), a
        number of more than 4300 digits (ValueError) — and what it reads but cannot be stored
        (:func:`unstorable`: a lone surrogate escape such as ``"\\ud800"``, ``NaN`` or
        ``Infinity``) is a problem with this field.
        """
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise self.problem(f"looks like {expected} but does not parse", field) from None
        why = unstorable(value)
        if why is not None:
            raise self.problem(why, field)
        return value

    def has(self, field: str) -> bool:
        """True when the field is present and not empty/null."""
        value = self.data.get(field)
        return value is not None and value != "" and value != []

    def text(self, field: str, *, required: bool = True, strip: bool = True) -> str | None:
        """A text field (numbers are not silently turned into text)."""
        if not self.has(field):
            if required:
                raise (
                    self.missing(field)
                    if field not in self.data
                    else self.problem("is empty", field)
                )
            return None
        value = self.data[field]
        if not isinstance(value, str):
            raise self.problem(f"expected text, got {_type_name(value)}", field)
        if len(value) > MAX_TEXT:
            raise self.problem(f"is {len(value):,} characters long (at most {MAX_TEXT:,})", field)
        if "\x00" in value:
            raise self.problem("contains a NUL character", field)
        value = value.strip() if strip else value
        if required and not value:
            raise self.problem("is empty", field)
        return value

    def answer(self, field: str) -> str:
        """An answer's text: the field is required, but its text may be empty — an empty
        model response is an answer a physician can judge (shown as empty, never refused).
        Kept as written (not stripped)."""
        if field not in self.data:
            raise self.missing(field)
        value = self.data[field]
        if isinstance(value, str) and not value.strip():
            return ""
        return self.text(field, strip=False) or ""

    def ident(self, field: str = "id") -> str:
        """An identifier: text or a whole number, at most 200 characters, no control characters."""
        value = self.data.get(field)
        if field not in self.data:
            raise self.missing(field)
        if isinstance(value, bool) or value is None or value == "":
            raise self.problem("missing (required)", field)
        if isinstance(value, int):
            value = str(value)
        if not isinstance(value, str):
            raise self.problem(f"expected text, got {_type_name(value)}", field)
        value = value.strip()
        if not value or len(value) > 200 or any(ord(ch) < 32 for ch in value):
            raise self.problem("must be 1–200 printable characters", field)
        return value

    def text_list(self, field: str, *, required: bool = False) -> list[str]:
        """A list of texts (a single text becomes a one-element list)."""
        if not self.has(field):
            if required:
                raise (
                    self.missing(field)
                    if field not in self.data
                    else self.problem("is empty", field)
                )
            return []
        value = self.data[field]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.problem(f"expected a list of texts, got {_type_name(value)}", field)
        out = []
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise self.problem(f"element {i} is {_type_name(v)}, expected text", field)
            if len(v) > MAX_TEXT:
                raise self.problem(f"element {i} is too long", field)
            if v.strip():
                out.append(v.strip())
        return out


SURROGATE_MESSAGE = "contains a lone surrogate escape (like \\ud800), which is not text"
NAN_MESSAGE = "holds NaN, which is not a number a study can store (only finite numbers)"
INFINITY_MESSAGE = (
    "holds {sign}Infinity (or a number too large to store, like 1e999); only finite numbers"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(value: object) -> str | None:
    """Why a parsed JSON value cannot be stored, or None when it can.

    Python's ``json.loads`` reads two things a study cannot keep, anywhere in a value (keys
    included):

    - a lone UTF-16 surrogate (JSON may spell one ``"\\ud800"``): Python keeps it in the str,
      and it fails at the first UTF-8 encode (hashing, SQLite);
    - ``NaN``, ``Infinity`` and ``-Infinity`` (and a number too large for a double, which it
      reads as infinity): not JSON at all, so SQLite's JSON functions reject the stored text
      and every report on the study would fail.

    Both are refused at the record, with the field.
    """
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return SURROGATE_MESSAGE
        elif isinstance(v, float):
            if math.isnan(v):
                return NAN_MESSAGE
            if math.isinf(v):
                return INFINITY_MESSAGE.format(sign="-" if v < 0 else "")
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def unstorable_field(data: JsonObject) -> tuple[str, str] | None:
    """The first top-level field of a record holding what cannot be stored (see
    :func:`unstorable`), and why; None when the whole record can be stored."""
    for key, value in data.items():
        why = unstorable(key) or unstorable(value)
        if why is not None:
            return key, why
    return None


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def type_name(value: object) -> str:
    """A user-facing name for a JSON value's type ("a number", "a list", ...)."""
    return _type_name(value)
