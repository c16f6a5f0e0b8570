"""Typed reads for the analysis, report and judging layers: every query they need, here.

The layers above the store never write SQL: they call these functions and get named tuples
(or plain dicts of them). "Current" means the latest row per key, defined once in the schema
by the views ``current_verdicts`` and ``current_adjudications`` (migration
``008_current_views``), so no query repeats the rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, TypedDict

from medjudge.store.db import StudyError
from medjudge.store.retirements import CURRENT, Retirement, retired_ids, retirements
from medjudge.store.study import Study

from .json_types import JsonObject


class UnitRow(NamedTuple):
    """A unit with its item's identity (one row of ``units`` joined to ``items``)."""

    id: int
    item_id: int
    criterion: str
    statement_id: int | None
    ext_id: str
    kind: str
    batch: str | None
    category: str | None
    """The statement's category (``must_have`` / ``nice_to_have``), else None."""
    statement_position: int | None


class LabelRow(NamedTuple):
    """A current label: which unit, whose (name and kind), which value."""

    criterion: str
    unit_id: int
    rater: str
    rater_kind: str
    value: str


class VerdictRow(NamedTuple):
    """A judge's current verdict on a unit, its trail decoded (``{}`` when unreadable)."""

    unit_id: int
    rater: str
    value: str | None
    status: str
    reason: str | None
    trail: dict[str, Any]


class ReviewerVote(NamedTuple):
    """A reviewer's label on one unit, with notes and whether it changed after the reveal."""

    reviewer: str
    value: str
    note: str | None
    note_frame: str | None
    item_note: str | None
    item_note_frame: str | None
    changed_after_reveal: bool
    display_order: str | None = None
    """The order (``AB``/``BA``) the reviewer saw the answers in when labelling (None: not
    recorded); a ``display`` note means its letters in this order."""
    item_note_display_order: str | None = None
    """The same for the note on the item."""


class CallTotals(NamedTuple):
    """Sums over stored judge calls (all of them, or one judge's)."""

    calls: int
    ok: int
    failed: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float


class ReviewerTime(NamedTuple):
    """A reviewer's recorded time and labels."""

    reviewer: str
    seconds: float
    items: int
    visits: int
    labels: int


def _trail(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def answer_sources(study: Study) -> dict[int, dict[str, str]]:
    """item id → answer position (``A``, ``B``, ``answer``, ``explanation``) → source model."""
    out: dict[int, dict[str, str]] = {}
    for item_id, position, source in study.conn.execute(
        "SELECT item_id, position, source FROM answers"
    ):
        out.setdefault(item_id, {})[position] = source
    return out


def answer_words(study: Study) -> dict[int, dict[str, int]]:
    """item id → answer position (``A``, ``B``, ``answer``) → the answer's length in words
    (runs of non-space characters)."""
    out: dict[int, dict[str, int]] = {}
    for item_id, position, text in study.conn.execute(
        "SELECT item_id, position, text FROM answers"
    ):
        out.setdefault(item_id, {})[position] = len(str(text or "").split())
    return out


def item_metadata(study: Study) -> dict[int, JsonObject]:
    """item id → the import row's extra fields, for items that have any."""
    out: dict[int, dict[str, Any]] = {}
    for item_id, meta in study.conn.execute(
        "SELECT id, json_extract(data, '$.meta') FROM items "
        "WHERE json_extract(data, '$.meta') IS NOT NULL"
    ):
        value = json.loads(meta)
        if isinstance(value, dict):
            out[item_id] = value
    return out


def item_options(study: Study) -> dict[int, tuple[str, ...]]:
    """item id → the option letters the item declares (``data.options``), in their order, for
    items that declare options (the units of a multi-select criterion)."""
    out: dict[int, tuple[str, ...]] = {}
    for item_id, options in study.conn.execute(
        "SELECT id, json_extract(data, '$.options') FROM items "
        "WHERE json_type(data, '$.options') = 'object'"
    ):
        value = json.loads(options)
        if isinstance(value, dict):
            out[item_id] = tuple(str(k) for k in value)
    return out


def unit_options(study: Study, criteria: Iterable[str]) -> dict[int, tuple[str, ...]]:
    """unit id → the option letters its item declares, for the units of ``criteria`` (the
    multi-select criteria) whose item declares options."""
    names = list(criteria)
    if not names:
        return {}
    marks = ",".join("?" * len(names))
    out: dict[int, tuple[str, ...]] = {}
    for unit_id, options in study.conn.execute(
        "SELECT u.id, json_extract(i.data, '$.options') FROM units u JOIN items i "
        f"ON i.id = u.item_id WHERE u.criterion IN ({marks}) "
        "AND json_type(i.data, '$.options') = 'object'",
        names,
    ):
        value = json.loads(options)
        if isinstance(value, dict):
            out[unit_id] = tuple(str(k) for k in value)
    return out


def listed_entries(study: Study, kind: str, field: str) -> dict[int, JsonObject]:
    """unit id → the item's ``data[field]`` entry of the unit's listed entry (a rubric
    criterion's points and tags), for the units of ``kind`` items that have one. The list is
    in the order of the item's listed entries: the first entry (the lowest position) is 0."""
    out: dict[int, JsonObject] = {}
    for unit_id, entry in study.conn.execute(
        "SELECT u.id, json_extract(i.data, '$.' || ? || '[' || (s.position - "
        "(SELECT min(f.position) FROM statements f WHERE f.item_id = s.item_id)) || ']') "
        "FROM units u JOIN items i ON i.id = u.item_id JOIN statements s ON s.id = u.statement_id "
        "WHERE i.kind = ?",
        (field, kind),
    ):
        value = json.loads(entry) if entry is not None else None
        if isinstance(value, dict):
            out[unit_id] = value
    return out


def unit_rows(study: Study, *, retired: bool = False) -> Iterator[UnitRow]:
    """Every unit with its item's id, kind and batch and its statement's category, by id
    (streamed as plain tuples: a 100,000-unit study is never held twice).

    The units of retired items (``store.retirements``) are left out unless ``retired``: the
    figures and the adjudication queue are built from these rows, so a retired item's labels,
    verdicts and adjudications count nowhere."""
    gone = set() if retired else retired_ids(study)
    cursor = study.conn.cursor()
    cursor.row_factory = None
    for r in cursor.execute(
        "SELECT u.id, u.item_id, u.criterion, u.statement_id, i.ext_id, i.kind, i.batch, "
        "s.category, s.position FROM units u JOIN items i ON i.id = u.item_id "
        "LEFT JOIN statements s ON s.id = u.statement_id ORDER BY u.id"
    ):
        if not gone or r[1] not in gone:
            yield UnitRow._make(r)


def retired_units(study: Study) -> set[int]:
    """The ids of the units of retired items (empty when none is retired)."""
    if not retired_ids(study):
        return set()
    return {
        int(r[0])
        for r in study.conn.execute(
            f"SELECT u.id FROM ({CURRENT}) c JOIN units u ON u.item_id = c.item_id "
            "WHERE c.retired = 1"
        )
    }


def retired_items(study: Study) -> list[Retirement]:
    """The items retired now, with why, by whom and when (``store.retirements``)."""
    return retirements(study)


def unit_criterion(study: Study, unit_id: int) -> str:
    """The criterion of one unit.

    Raises:
        StudyError: there is no such unit.
    """
    row = study.conn.execute("SELECT criterion FROM units WHERE id = ?", (unit_id,)).fetchone()
    if row is None:
        raise StudyError(f"no unit {unit_id}")
    return str(row[0])


def criterion_kinds(study: Study) -> dict[str, str]:
    """criterion → the item kind its units belong to."""
    return {
        r[0]: r[1]
        for r in study.conn.execute(
            "SELECT DISTINCT u.criterion, i.kind FROM units u JOIN items i ON i.id = u.item_id"
        )
    }


def rater_kinds(study: Study) -> dict[str, str]:
    """rater name → ``human`` or ``judge``."""
    return {r[0]: r[1] for r in study.conn.execute("SELECT name, kind FROM raters")}


def current_labels(study: Study) -> Iterator[LabelRow]:
    """Every current label (reviewers' and judges' mirrored verdicts), in unit order."""
    cursor = study.conn.cursor()
    cursor.row_factory = None
    for r in cursor.execute(
        "SELECT u.criterion, l.unit_id, r.name, r.kind, l.value FROM labels l "
        "JOIN units u ON u.id = l.unit_id JOIN raters r ON r.id = l.rater_id ORDER BY l.unit_id"
    ):
        yield LabelRow._make(r)


def seen_orders(study: Study) -> Iterator[tuple[int, str, str, str]]:
    """(unit id, reviewer, value, display order) of every current reviewer label that records
    the order its reviewer saw the answers in (``labels.display_order``: ``AB``/``BA``)."""
    cursor = study.conn.cursor()
    cursor.row_factory = None
    yield from cursor.execute(
        "SELECT l.unit_id, r.name, l.value, l.display_order FROM labels l "
        "JOIN raters r ON r.id = l.rater_id "
        "WHERE r.kind = 'human' AND l.display_order IS NOT NULL ORDER BY l.unit_id"
    )


def current_adjudications(study: Study) -> Iterator[tuple[int, str]]:
    """(unit id, value) of the latest adjudication of every adjudicated unit."""
    yield from study.conn.execute("SELECT unit_id, value FROM current_adjudications")


def current_verdicts(study: Study, unit_id: int | None = None) -> Iterator[VerdictRow]:
    """Each judge's current verdict (of one unit, or of all), by judge name."""
    where, args = ("WHERE v.unit_id = ?", (unit_id,)) if unit_id is not None else ("", ())
    for r in study.conn.execute(
        "SELECT v.unit_id, r.name, v.value, v.status, v.reason, v.trail FROM current_verdicts v "
        f"JOIN raters r ON r.id = v.rater_id {where} ORDER BY r.name, v.unit_id",
        args,
    ):
        yield VerdictRow(r[0], r[1], r[2], r[3], r[4], _trail(r[5]))


def unit_reviewer_votes(study: Study, unit_id: int) -> list[ReviewerVote]:
    """The reviewers' labels on one unit with their notes, by reviewer name."""
    return [
        ReviewerVote(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7], r[8])
        for r in study.conn.execute(
            "SELECT r.name, l.value, l.note, l.note_frame, n.note, n.note_frame, "
            "(SELECT count(*) FROM label_history h WHERE h.unit_id = l.unit_id "
            "AND h.rater_id = l.rater_id AND h.after_reveal = 1), l.display_order, n.display_order "
            "FROM labels l JOIN raters r ON r.id = l.rater_id JOIN units u ON u.id = l.unit_id "
            "LEFT JOIN item_notes n ON n.item_id = u.item_id AND n.rater_id = l.rater_id "
            "WHERE l.unit_id = ? AND r.kind = 'human' ORDER BY r.name",
            (unit_id,),
        )
    ]


def study_value(study: Study, key: str) -> object:
    """A JSON value stored under ``key`` in ``study_settings`` (None when absent or unreadable)."""
    row = study.conn.execute("SELECT value FROM study_settings WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None
    try:
        return json.loads(row[0])
    except (TypeError, ValueError):
        return None


def item_kind_counts(study: Study, *, retired: bool = False) -> dict[str, int]:
    """Item kind → number of items (retired items left out unless ``retired``)."""
    out: dict[str, int] = {
        r[0]: r[1] for r in study.conn.execute("SELECT kind, count(*) FROM items GROUP BY kind")
    }
    if not retired and retired_ids(study):
        for kind, n in study.conn.execute(
            f"SELECT i.kind, count(*) FROM ({CURRENT}) c JOIN items i ON i.id = c.item_id "
            "WHERE c.retired = 1 GROUP BY i.kind"
        ):
            out[kind] -= n
    return {k: n for k, n in out.items() if n}


class TemplateUse(TypedDict):
    """A prompt template a judge's stored calls used, by hash, and how many calls."""

    template: str
    hash: str
    calls: int


def template_usage(study: Study) -> dict[str, list[TemplateUse]]:
    """judge → the templates its stored calls used."""
    out: dict[str, list[TemplateUse]] = {}
    for r in study.conn.execute(
        "SELECT judge, template, template_hash, count(*) FROM judge_calls "
        "GROUP BY judge, template, template_hash ORDER BY judge, template"
    ):
        out.setdefault(r[0], []).append(TemplateUse(template=r[1], hash=r[2], calls=r[3]))
    return out


def judge_configs(study: Study) -> list[tuple[str, JsonObject]]:
    """(judge name, its stored configuration) for every judge rater, by name."""
    return [
        (r[0], _trail(r[1]))
        for r in study.conn.execute(
            "SELECT name, config FROM raters WHERE kind = 'judge' ORDER BY name"
        )
    ]


CALL_SUMS = (  # the columns of CallTotals, over the judge_calls rows selected
    "count(*), coalesce(sum(status = 'ok'), 0), coalesce(sum(status = 'failed'), 0), "
    "coalesce(sum(status = 'error'), 0), coalesce(sum(input_tokens), 0), "
    "coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0), coalesce(sum(latency_s), 0)"
)


def call_totals_all(study: Study) -> tuple[CallTotals, dict[str, CallTotals]]:
    """Sums over every stored judge call, and per judge (by name)."""
    conn = study.conn
    total = CallTotals(*conn.execute(f"SELECT {CALL_SUMS} FROM judge_calls").fetchone())
    per = {
        r[0]: CallTotals(*r[1:])
        for r in conn.execute(
            f"SELECT judge, {CALL_SUMS} FROM judge_calls GROUP BY judge ORDER BY judge"
        )
    }
    return total, per


def reviewer_times(study: Study) -> list[ReviewerTime]:
    """Each reviewer's recorded seconds, items, visits and labels, by name."""
    return [
        ReviewerTime(r[0], float(r[1]), r[2], r[3], r[4])
        for r in study.conn.execute(
            "SELECT ra.name, coalesce(sum(t.seconds), 0), count(t.item_id), "
            "coalesce(sum(t.visits), 0), "
            "(SELECT count(*) FROM labels l WHERE l.rater_id = ra.id) FROM raters ra "
            "LEFT JOIN item_time t ON t.rater_id = ra.id WHERE ra.kind = 'human' "
            "GROUP BY ra.id ORDER BY ra.name"
        )
    ]
