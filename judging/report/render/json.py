"""The report as JSON, written piece by piece: the text equals
``json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)`` byte for byte, but
long lists (per-answer K-QA records, comparisons), at any depth, are dumped one record at a
time, so neither the whole dict nor the whole text is ever held (``report -f json -o FILE`` streams to disk).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from pydantic import BaseModel, TypeAdapter

from medjudge.judging.report.model import Report

STREAM_LIST = 64
"""Lists longer than this are written one record at a time."""


def _dumps(value: object, depth: int) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return text.replace("\n", "\n" + "  " * depth) if depth else text


_ADAPTERS: dict[type, TypeAdapter[object]] = {}


def _adapter(kind: type) -> TypeAdapter[object]:
    found = _ADAPTERS.get(kind)
    if found is None:
        found = _ADAPTERS[kind] = TypeAdapter(kind)
    return found


def _plain(value: object) -> object:
    """A record (model or pydantic dataclass) or plain value as JSON types."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if hasattr(type(value), "__pydantic_fields__"):  # a pydantic dataclass
        return _adapter(type(value)).dump_python(value, mode="json")
    return value


def _model(obj: BaseModel, depth: int) -> Iterator[str]:
    pad = "\n" + "  " * (depth + 1)
    first = True
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        if isinstance(value, list) and len(value) > STREAM_LIST:
            parts: Iterator[str] = _list(value, depth + 1)
        elif isinstance(value, BaseModel) and _holds_long_list(value):
            parts = _model(value, depth + 1)
        else:
            dumped = obj.model_dump(mode="json", include={name})
            if name not in dumped:  # left out when absent (e.g. ``classification``)
                continue
            parts = iter((_dumps(dumped[name], depth + 1),))
        yield ("{" if first else ",") + pad + json.dumps(name) + ": "
        yield from parts
        first = False
    yield "{}" if first else "\n" + "  " * depth + "}"


def _holds_long_list(obj: BaseModel) -> bool:
    """Whether a long list sits anywhere inside ``obj`` (then it is written field by field)."""
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        if isinstance(value, list) and len(value) > STREAM_LIST:
            return True
        if isinstance(value, BaseModel) and _holds_long_list(value):
            return True
    return False


def _list(values: list[object], depth: int) -> Iterator[str]:
    pad = "\n" + "  " * (depth + 1)
    for i, value in enumerate(values):
        yield ("[" if i == 0 else ",") + pad
        if isinstance(value, BaseModel):
            yield from _model(value, depth + 1)
        else:
            yield _dumps(_plain(value), depth + 1)
    yield "[]" if not values else "\n" + "  " * depth + "]"


def json_chunks(report: Report) -> Iterator[str]:
    """The report's JSON text in pieces (joined: the whole text, ending in a newline)."""
    yield from _model(report, 0)
    yield "\n"
