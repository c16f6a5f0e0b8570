"""Turning import records into :class:`ItemIn` objects, for any kind: the kind's own parser
(:meth:`medjudge.kinds.base.Kind.parse`; each kind's module documents its fields), then what
every kind shares: gold values, metadata, unique ids."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from medjudge import kinds
from medjudge.kinds.base import COMMON_FIELDS

from ..settings import StudySettings
from .parsed import ItemIn, normalise_value
from .problems import ImportProblem, Record

KQA_FIELDS = frozenset({"Question", "Free_form_answer", "Must_have", "Nice_to_have"})
"""The fields of K-QA's own files (``questions_w_answers.jsonl``)."""


def kind_hint(rec: Record, kind: kinds.Kind) -> str | None:
    """What to do when a record does not parse as ``kind`` but reads as another: K-QA's own
    file (``--kind kqa``), or a record with another kind's fields and none of this one's."""
    keys = set(rec.data)
    if len(keys & KQA_FIELDS) >= 2:
        return (
            "this looks like K-QA's own file (Question, Free_form_answer, Must_have): import it "
            "with --kind kqa --answers RESULTS.json"
        )
    if keys & (kind.fields - COMMON_FIELDS):
        return None
    others = [
        k.name for k in kinds.KINDS.values() if k is not kind and keys & (k.fields - COMMON_FIELDS)
    ]
    if len(others) == 1:
        return f"this looks like a {others[0]} file: import it with --kind {others[0]}"
    if others:
        return "its fields are those of " + " or ".join(f"--kind {o}" for o in others)
    return None


def parse_gold(
    rec: Record, kind: kinds.Kind, settings: StudySettings, n_statements: int
) -> list[list[object]]:
    """An item's expected values (``gold``): ``{criterion: value}``; for statements items
    ``{"entailment": [value per statement]}`` (null for a statement without one). Returned as
    ``[criterion, statement position or None, value]`` triples, values in canonical spelling."""
    raw = rec.data.get("gold")
    if raw in (None, "", {}):
        return []
    if isinstance(raw, str) and raw.strip().startswith("{"):
        raw = rec.json_cell("gold", raw, "a JSON object")
    if not isinstance(raw, dict):
        raise rec.problem(
            'expected an object {criterion: value}, e.g. {"correctness": "A"}', "gold"
        )
    allowed = {c.name for c in settings.criteria_for(kind.name)}
    out: list[list[object]] = []
    for criterion, value in raw.items():
        where = f"gold.{criterion}"
        if criterion not in allowed:
            raise rec.problem(f"criterion {criterion!r} does not apply to {kind.name} items", where)
        if criterion == kind.listed_criterion and not kind.item_criteria:
            if not isinstance(value, list) or len(value) != n_statements:
                raise rec.problem(
                    f"expected a list of {n_statements} values (one per {kind.listed_name})", where
                )
            for position, v in enumerate(value):
                if v is not None:
                    out.append(
                        [criterion, position, normalise_value(rec, where, settings, criterion, v)]
                    )
        else:
            out.append([criterion, None, normalise_value(rec, where, settings, criterion, value)])
    return out


def metadata(rec: Record, kind: kinds.Kind) -> dict[str, object]:
    """A row's extra fields (e.g. ``specialty``, ``test``, ``p``), kept as item metadata for
    display, export and slicing (``report --by FIELD``). Label columns (``human:RATER:CRITERION``)
    are not metadata; empty cells are dropped; text is stripped."""
    meta: dict[str, object] = {}
    for key, value in rec.data.items():
        if key in kind.fields or key.count(":") == 2:
            continue
        if isinstance(value, str):
            value = value.strip()
        if value in ("", None):
            continue
        meta[str(key).strip()] = value
    return meta


def parse_all(
    records: Iterable[Record], kind: str, settings: StudySettings, batch: str | None
) -> Iterator[ItemIn]:
    """Parse the records of a file one at a time; duplicate ids within the file are an error
    (raised when the second one is reached)."""
    the_kind = kinds.get(kind)
    seen: dict[str, int] = {}
    for rec in records:
        try:
            item = the_kind.parse(rec, settings, batch)
        except ImportProblem as exc:
            hint = kind_hint(rec, the_kind)
            if hint is None:
                raise
            raise ImportProblem(
                exc.file, f"{exc.message}; {hint}", line=exc.line, field=exc.field
            ) from None
        meta = metadata(rec, the_kind)
        if meta:
            item.data["meta"] = meta
        gold = parse_gold(rec, the_kind, settings, len(item.statements))
        if gold:
            item.data["gold"] = gold
        if item.ext_id in seen:
            raise rec.problem(
                f"duplicate id {item.ext_id!r} (first on line {seen[item.ext_id]})", "id"
            )
        seen[item.ext_id] = rec.line
        yield item
