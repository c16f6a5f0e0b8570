"""Normalised import records: what every importer produces and the writer stores."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from medjudge import kinds
from medjudge.kinds import Kind

from ..labels import LabelError, validate_value
from ..people import BadName, given_name
from ..settings import StudySettings
from ..study import dumps
from .problems import Record


@dataclass
class LabelIn:
    """An existing label brought in with the items (a reviewer's or an external judge's)."""

    rater: str
    rater_kind: str
    criterion: str
    value: str
    statement: int | None = None
    note: str | None = None


@dataclass
class ItemIn:
    """One item as read from a file, before it is stored."""

    ext_id: str
    kind: str
    question: str
    file: str
    line: int
    answers: list[tuple[str, str, str]]
    statements: list[tuple[str, str]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    context: list[str] = field(default_factory=list)
    batch: str | None = None
    labels: list[LabelIn] = field(default_factory=list)

    def content_hash(self) -> str:
        """Hash of everything that makes up the item (not its labels)."""
        body = dumps(
            [
                self.kind,
                self.question,
                self.answers,
                self.statements,
                self.data,
                self.context,
                self.batch,
            ]
        )
        return hashlib.sha256(body.encode()).hexdigest()


def normalise_value(
    rec: Record, field_name: str, settings: StudySettings, criterion: str, value: object
) -> str:
    """Canonical label value for a criterion, or an ImportProblem naming the field."""
    try:
        crit = settings.criterion(criterion)
    except KeyError:
        names = ", ".join(c.name for c in settings.criteria)
        raise rec.problem(
            f"unknown criterion {criterion!r} (this study has: {names})", field_name
        ) from None
    if isinstance(value, bool) or value is None:
        raise rec.problem(f"label value {value!r} is not allowed", field_name)
    kind = kinds.get(crit.kind)
    if kind.values is not None:
        v = kind.spellings.get(str(value).strip().lower())
        if v is None:
            raise rec.problem(f"{value!r} is not {kind.value_words}", field_name)
        if crit.categories is not None and v not in crit.categories:
            raise rec.problem(
                f"{value!r} is outside the label set the study declares for {criterion} "
                f"({', '.join(crit.categories)}; settings --categories)",
                field_name,
            )
        return v
    if isinstance(value, list):
        value = ",".join(str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        return validate_value(settings, criterion, str(value).strip())
    except LabelError as exc:
        raise rec.problem(str(exc), field_name) from None


def parse_labels(
    rec: Record, settings: StudySettings, kind: Kind, n_statements: int = 0
) -> list[LabelIn]:
    """Labels carried by a record: a ``labels`` list, ``human_labels``/``judge_labels`` maps,
    or CSV columns named ``human:NAME:CRITERION`` / ``judge:NAME:CRITERION``."""
    out: list[LabelIn] = []
    raw = rec.data.get("labels")
    if raw not in (None, "", []):
        if isinstance(raw, str):
            raise rec.problem(
                "expected a list of label objects (in CSV use human:NAME:CRITERION columns)",
                "labels",
            )
        if not isinstance(raw, list):
            raise rec.problem("expected a list of label objects", "labels")
        for i, lab in enumerate(raw):
            where = f"labels[{i}]"
            if not isinstance(lab, dict):
                raise rec.problem("expected an object with rater, criterion and value", where)
            rater = lab.get("rater")
            if not isinstance(rater, str) or not rater.strip():
                raise rec.problem("missing rater name", f"{where}.rater")
            rater = _rater(rec, rater, f"{where}.rater")
            rkind = lab.get("type", "human")
            if rkind not in ("human", "judge"):
                raise rec.problem("type must be 'human' or 'judge'", f"{where}.type")
            names_entry = kind.listed_field is not None and kind.listed_field in lab
            criterion = lab.get(
                "criterion",
                kind.listed_criterion if names_entry or not kind.item_criteria else None,
            )
            if not isinstance(criterion, str):
                raise rec.problem("missing criterion", f"{where}.criterion")
            if not kind.item_criteria and criterion != kind.listed_criterion:
                raise rec.problem(
                    f"{kind.name} items are labelled on {kind.listed_criterion!r} only, "
                    f"not {criterion!r}",
                    f"{where}.criterion",
                )
            statement = _statement_index(rec, lab, kind, n_statements, where)
            value = normalise_value(rec, f"{where}.value", settings, criterion, lab.get("value"))
            note = lab.get("note")
            out.append(
                LabelIn(
                    rater,
                    rkind,
                    criterion,
                    value,
                    statement,
                    note if isinstance(note, str) and note.strip() else None,
                )
            )
    for key, rkind in (("human_labels", "human"), ("judge_labels", "judge")):
        block = rec.data.get(key)
        if block in (None, "", {}):
            continue
        if not isinstance(block, dict):
            raise rec.problem("expected an object {rater: {criterion: value}}", key)
        for raw_rater, per in block.items():
            if not raw_rater.strip():
                raise rec.problem("missing rater name", key)
            rater = _rater(rec, raw_rater, key)
            if not isinstance(per, dict):
                raise rec.problem("expected {criterion: value}", f"{key}.{rater}")
            for criterion, value in per.items():
                where = f"{key}.{rater}.{criterion}"
                _no_statement(rec, kind, where)
                v = normalise_value(rec, where, settings, criterion, value)
                out.append(LabelIn(rater, rkind, criterion, v))
    for column, cell in rec.data.items():
        parts = column.split(":")
        if len(parts) == 3 and parts[0] in ("human", "judge") and isinstance(cell, str):
            if cell.strip():
                if not parts[1].strip():
                    raise rec.problem("missing rater name in the column name", column)
                _no_statement(rec, kind, column)
                v = normalise_value(rec, column, settings, parts[2], cell)
                out.append(LabelIn(_rater(rec, parts[1], column), parts[0], parts[2], v))
    if kind.item_criteria:
        allowed = {c.name for c in settings.criteria_for(kind.name)}
        for lab in out:
            if lab.criterion not in allowed:
                raise rec.problem(
                    f"criterion {lab.criterion!r} does not apply to {kind.name} items", "labels"
                )
    seen: set[tuple[str, str, int | None]] = set()
    for lab in out:
        key3 = (lab.rater, lab.criterion, lab.statement)
        if key3 in seen:
            raise rec.problem(f"two labels from {lab.rater!r} for {lab.criterion!r}", "labels")
        seen.add(key3)
    return out


def _rater(rec: Record, raw: str, where: str) -> str:
    """A rater's name from an import file, as a name given on the command line is read
    (:func:`~medjudge.store.people.given_name`: NFC, stripped, no control characters — an ESC
    or a bidi control in a name would reach every screen and export that shows it)."""
    try:
        return given_name(raw, "rater name")
    except BadName as exc:
        raise rec.problem(str(exc), where) from None


def _no_statement(rec: Record, kind: Kind, where: str) -> None:
    """Rater maps and label columns cannot say which listed entry a label is for."""
    if not kind.item_criteria:
        raise rec.problem(
            f"{kind.listed_name} labels need a {kind.listed_name} number: use "
            f'labels: [{{"rater": ..., "{kind.listed_field}": N, "value": ...}}]',
            where,
        )


def _statement_index(
    rec: Record, lab: dict[str, Any], kind: Kind, n: int, where: str
) -> int | None:
    """The listed entry a label names (0-based), or None for a label on the whole item."""
    field_name = kind.listed_field
    value = lab.get(field_name or "statement")
    if field_name is None or (value is None and kind.item_criteria):
        if value is not None:
            raise rec.problem(
                "only statements items have statement labels",
                f"{where}.statement",
            )
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise rec.problem(
            f"expected the {kind.listed_name}'s number (0-based)", f"{where}.{field_name}"
        )
    if not 0 <= value < n:
        raise rec.problem(
            f"no {kind.listed_name} {value} (the item has {n})", f"{where}.{field_name}"
        )
    return value
