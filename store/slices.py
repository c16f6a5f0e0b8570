"""Study figures per value of an item field: ``status --by FIELD`` (and the report's slices).

A field is ``batch``, ``kind`` or any metadata field of the import rows (``specialty``, ``p``,
…). Items without the field fall in the ``(missing)`` slice. Values sort numerically when every
value is a number (``p`` = 0, 20, 40, 100), as text otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .study import Study

MISSING = "(missing)"
BUILT_IN = ("batch", "kind")


class UnknownField(ValueError):
    """No item has the field; the message lists the fields there are."""


@dataclass
class StatusSlice:
    """``status`` figures for the items with one value of a field."""

    value: str
    items: int = 0
    units: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    """Reviewer → units labelled in this slice."""
    verdicts: dict[str, int] = field(default_factory=dict)
    """Judge → units with a current ``ok`` verdict in this slice."""
    calls: int = 0
    cost_usd: float = 0.0


def metadata_fields(study: Study) -> list[str]:
    """Every metadata field any item carries, sorted."""
    rows = study.conn.execute(
        "SELECT DISTINCT m.key FROM items i, json_each(i.data, '$.meta') m ORDER BY m.key"
    )
    return [str(r[0]) for r in rows]


def _key_sql(study: Study, name: str) -> tuple[str, tuple[str, ...]]:
    """The SQL expression (over ``items i``) giving an item's value of the field, and its args."""
    if name in BUILT_IN:
        return f"i.{name}", ()
    fields = metadata_fields(study)
    if name not in fields:
        there = ", ".join([*BUILT_IN, *fields])
        raise UnknownField(f"no item has the field {name!r} (fields: {there})")
    # A JSON path cannot quote every key (`"` and `\\` have no escape in SQLite's paths): look
    # the key up by equality instead.
    return "(SELECT m.value FROM json_each(i.data, '$.meta') m WHERE m.key = ?)", (name,)


def finite_number(text: str) -> float | None:
    """A slice value as a number when it is one: ``"20"``, ``"0.5"``; None for other text —
    ``"NaN"`` and ``"inf"`` too (``float`` reads them, but they would not sort)."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def sort_values(values: list[str]) -> list[str]:
    """Numerically when every value (but the missing slice) is a number, else as text;
    ``(missing)`` last."""
    present = [v for v in values if v != MISSING]
    numbers = [finite_number(v) for v in present]
    if present and all(n is not None for n in numbers):
        keyed = [(n or 0.0, v) for n, v in zip(numbers, present, strict=True)]
        ordered = [v for _, v in sorted(keyed)]
    else:
        ordered = sorted(present)
    return ordered + ([MISSING] if MISSING in values else [])


def _text(value: object) -> str:
    if value is None or value == "":
        return MISSING
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def status_by(study: Study, name: str) -> list[StatusSlice]:
    """``status`` figures per value of ``name``.

    Raises:
        UnknownField: no item has the field.
    """
    key, args = _key_sql(study, name)
    conn = study.conn
    out: dict[str, StatusSlice] = {}

    def get(value: object) -> StatusSlice:
        text = _text(value)
        return out.setdefault(text, StatusSlice(text))

    for value, items, units in conn.execute(
        f"SELECT {key}, count(DISTINCT i.id), count(u.id) FROM items i "
        f"LEFT JOIN units u ON u.item_id = i.id GROUP BY 1",
        args,
    ):
        s = get(value)
        s.items += items
        s.units += units
    per_rater = {
        "labels": "FROM labels x JOIN raters r ON r.id = x.rater_id WHERE r.kind = 'human'",
        "verdicts": "FROM current_verdicts x JOIN raters r ON r.id = x.rater_id "
        "WHERE x.status = 'ok'",
    }
    for attr, source in per_rater.items():  # reviewers' labels; judges' current verdicts
        head, where = source.split(" WHERE ", 1)
        for value, rater, n in conn.execute(
            f"SELECT {key}, r.name, count(*) {head} JOIN units u ON u.id = x.unit_id "
            f"JOIN items i ON i.id = u.item_id WHERE {where} GROUP BY 1, 2",
            args,
        ):
            counts: dict[str, int] = getattr(get(value), attr)
            counts[rater] = counts.get(rater, 0) + n
    for value, calls, cost in conn.execute(
        f"SELECT {key}, count(*), coalesce(sum(c.cost_usd), 0) FROM judge_calls c "
        f"JOIN items i ON i.id = c.item_id GROUP BY 1",
        args,
    ):
        s = get(value)
        s.calls += calls
        s.cost_usd += float(cost)
    return [out[v] for v in sort_values(list(out))]
