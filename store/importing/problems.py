"""The one kind of error an import reports: which file, which line, which field, and why."""

from __future__ import annotations

import json
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

    def json_cell(self, field: str, text: str, expected: str) -> object:
        """Parse a JSON list or object written into one field (a CSV cell).

        Every way ``json.loads`` can fail — bad syntax, nesting too deep (RecursionError), a
        number of more than 4300 digits (ValueError) — and a lone surrogate escape such as
        ``"\\ud800"`` (valid JSON, but no text SQLite can store) is a problem with this field.
        """
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise self.problem(f"looks like {expected} but does not parse", field) from None
        if has_surrogate(value):
            raise self.problem(SURROGATE_MESSAGE, field)
        return value

    def has(self, field: str) -> bool:
        """True when the field is present and not empty/null."""
        value = self.data.get(field)
        return value is not None and value != "" and value != []

    def text(self, field: str, *, required: bool = True, strip: bool = True) -> str | None:
        """A text field (numbers are not silently turned into text)."""
        if not self.has(field):
            if required:
                raise self.problem(
                    "missing (required)" if field not in self.data else "is empty", field
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

    def ident(self, field: str = "id") -> str:
        """An identifier: text or a whole number, at most 200 characters, no control characters."""
        value = self.data.get(field)
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
                raise self.problem("missing (required)", field)
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
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(value: object) -> bool:
    """Whether a parsed JSON value holds a lone UTF-16 surrogate anywhere (keys included).

    JSON may spell one as ``"\\ud800"``; Python keeps it in the str, and it then fails at the
    first UTF-8 encode (hashing, SQLite) — so it is refused at the record, with its field.
    """
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def surrogate_field(data: JsonObject) -> str | None:
    """The first top-level field of a record that holds a lone surrogate, if any."""
    for key, value in data.items():
        if has_surrogate(key) or has_surrogate(value):
            return key
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
