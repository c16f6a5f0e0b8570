"""Turning records of each input format into :class:`ItemIn` objects.

Formats (one object per line in JSONL; CSV takes the same column names):

- ``pairwise``: id, question, answer_a, answer_b, source_a, source_b; optional context (a list
  of passages; in CSV a JSON list or one passage), batch, and labels.
- ``statements``: id, question, answer, source, and either ``statements`` (a list of
  {text, category}) or ``must_have`` / ``nice_to_have`` lists; optional context, batch, labels.
- ``rating``: id, question (the case), options ({letter: text}), correct (a letter),
  explanation, source; optional context, batch, labels.
- ``match`` (MedRGB): id, question, prediction (the model's answer), source, ground_truth;
  optional options ({letter: text}), documents (a list of {text, kind} with kind ``signal``,
  ``noise`` or ``counterfactual``; plain texts are ``signal``), subquestions (a list of
  {question, reference, prediction}), batch, labels; extra fields such as ``test`` and ``p``
  are metadata (slices).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from medjudge.store.kinds import ItemKind

from ..settings import StudySettings
from .parsed import ItemIn, normalise_value, parse_labels
from .problems import Record


def _context(rec: Record) -> list[str]:
    value = rec.data.get("context")
    if isinstance(value, str) and value.strip().startswith("["):
        value = rec.json_cell("context", value, "a JSON list")
        rec = Record(rec.file, rec.line, {**rec.data, "context": value})
    return rec.text_list("context")


def _batch(rec: Record, default: str | None) -> str | None:
    return rec.text("batch", required=False) or default


def pairwise_item(rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
    """One pairwise record."""
    item = ItemIn(
        ext_id=rec.ident(),
        kind="pairwise",
        question=rec.text("question") or "",
        file=rec.file,
        line=rec.line,
        answers=[
            ("A", rec.text("answer_a", strip=False) or "", rec.text("source_a") or ""),
            ("B", rec.text("answer_b", strip=False) or "", rec.text("source_b") or ""),
        ],
        context=_context(rec),
        batch=_batch(rec, batch),
    )
    item.labels = parse_labels(rec, settings, "pairwise")
    return item


def statements_item(rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
    """One generic statements record."""
    statements: list[tuple[str, str]] = []
    raw = rec.data.get("statements")
    if raw not in (None, "", []):
        if isinstance(raw, str) and raw.strip().startswith("["):
            raw = rec.json_cell("statements", raw, "a JSON list")
        if not isinstance(raw, list):
            raise rec.problem("expected a list of {text, category}", "statements")
        for i, s in enumerate(raw):
            where = f"statements[{i}]"
            if (
                not isinstance(s, dict)
                or not isinstance(s.get("text"), str)
                or not s["text"].strip()
            ):
                raise rec.problem('expected {"text": ..., "category": ...}', where)
            cat = str(s.get("category", "")).strip().lower().replace("-", "_")
            if cat not in ("must_have", "nice_to_have"):
                raise rec.problem("category must be must_have or nice_to_have", f"{where}.category")
            statements.append((s["text"].strip(), cat))
    else:
        statements += [(t, "must_have") for t in rec.text_list("must_have")]
        statements += [(t, "nice_to_have") for t in rec.text_list("nice_to_have")]
    if not statements:
        raise rec.problem(
            "an item needs at least one statement (statements, or must_have/nice_to_have)",
            "statements",
        )
    item = ItemIn(
        ext_id=rec.ident(),
        kind="statements",
        question=rec.text("question") or "",
        file=rec.file,
        line=rec.line,
        answers=[("answer", rec.text("answer", strip=False) or "", rec.text("source") or "")],
        statements=statements,
        context=_context(rec),
        batch=_batch(rec, batch),
    )
    item.labels = parse_labels(rec, settings, "statements", len(statements))
    return item


def rating_item(rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
    """One rating record (a case with options and a candidate explanation)."""
    clean = _options(rec, required=True)
    correct = rec.text("correct")
    if correct not in clean:
        raise rec.problem(f"{correct!r} is not one of the options ({', '.join(clean)})", "correct")
    item = ItemIn(
        ext_id=rec.ident(),
        kind="rating",
        question=rec.text("question") or "",
        file=rec.file,
        line=rec.line,
        answers=[
            ("explanation", rec.text("explanation", strip=False) or "", rec.text("source") or "")
        ],
        data={"options": clean, "correct": correct},
        context=_context(rec),
        batch=_batch(rec, batch),
    )
    item.labels = parse_labels(rec, settings, "rating")
    return item


DOCUMENT_KINDS = ("signal", "noise", "counterfactual")


def _options(rec: Record, *, required: bool) -> dict[str, str]:
    options = rec.data.get("options")
    if options in (None, "", {}) and not required:
        return {}
    if isinstance(options, str) and options.strip().startswith("{"):
        options = rec.json_cell("options", options, "a JSON object")
    if not isinstance(options, dict) or len(options) < 2:
        raise rec.problem(
            'expected an object of at least two options, e.g. {"A": "..."}', "options"
        )
    clean: dict[str, str] = {}
    for key, text in options.items():
        k = str(key).strip()
        if not (k.isalnum() and len(k) <= 3) or not isinstance(text, str) or not text.strip():
            raise rec.problem(f"option {key!r} needs a short letter and a text", f"options.{key}")
        clean[k] = text.strip()
    return clean


def _json_list(rec: Record, field: str) -> list[Any]:
    raw = rec.data.get(field)
    if raw in (None, "", []):
        return []
    if isinstance(raw, str) and raw.strip().startswith("["):
        raw = rec.json_cell(field, raw, "a JSON list")
    if not isinstance(raw, list):
        raise rec.problem("expected a list", field)
    return raw


def _documents(rec: Record) -> tuple[list[str], list[str]]:
    """The context documents' texts and kinds (``documents``, or ``context``: all signal)."""
    raw = _json_list(rec, "documents")
    if not raw:
        texts = _context(rec)
        return texts, ["signal"] * len(texts)
    texts, kinds = [], []
    for i, doc in enumerate(raw):
        where = f"documents[{i}]"
        if isinstance(doc, str) and doc.strip():
            texts.append(doc)
            kinds.append("signal")
            continue
        if (
            not isinstance(doc, dict)
            or not isinstance(doc.get("text"), str)
            or not doc["text"].strip()
        ):
            raise rec.problem('expected {"text": ..., "kind": ...}', where)
        kind = str(doc.get("kind", "signal")).strip().lower()
        if kind not in DOCUMENT_KINDS:
            raise rec.problem(
                f"kind must be one of {', '.join(DOCUMENT_KINDS)}, not {kind!r}", f"{where}.kind"
            )
        texts.append(doc["text"])
        kinds.append(kind)
    return texts, kinds


def match_item(rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
    """One MedRGB-style record: a prediction to score against the ground truth."""
    texts, kinds = _documents(rec)
    subs: list[dict[str, str]] = []
    for i, sq in enumerate(_json_list(rec, "subquestions")):
        where = f"subquestions[{i}]"
        if not isinstance(sq, dict):
            raise rec.problem(
                'expected {"question": ..., "reference": ..., "prediction": ...}', where
            )
        entry = {}
        for key in ("question", "reference", "prediction"):
            value = sq.get(key)
            if not isinstance(value, str) or not value.strip():
                raise rec.problem("needs a text", f"{where}.{key}")
            entry[key] = value.strip()
        subs.append(entry)
    data: dict[str, Any] = {"ground_truth": rec.text("ground_truth") or ""}
    options = _options(rec, required=False)
    if options:
        data["options"] = options
    if texts:
        data["document_kinds"] = kinds
    if subs:
        data["subquestions"] = [
            {"reference": s["reference"], "prediction": s["prediction"]} for s in subs
        ]
    item = ItemIn(
        ext_id=rec.ident(),
        kind="match",
        question=rec.text("question") or "",
        file=rec.file,
        line=rec.line,
        answers=[("answer", rec.text("prediction", strip=False) or "", rec.text("source") or "")],
        statements=[(s["question"], "subquestion") for s in subs],
        data=data,
        context=texts,
        batch=_batch(rec, batch),
    )
    item.labels = parse_labels(rec, settings, "match", len(subs))
    return item


PARSERS = {
    "pairwise": pairwise_item,
    "statements": statements_item,
    "rating": rating_item,
    "match": match_item,
}

_COMMON = {"id", "question", "context", "batch", "labels", "human_labels", "judge_labels", "gold"}
KNOWN_FIELDS = {
    "pairwise": _COMMON | {"answer_a", "answer_b", "source_a", "source_b"},
    "statements": _COMMON | {"answer", "source", "statements", "must_have", "nice_to_have"},
    "rating": _COMMON | {"options", "correct", "explanation", "source"},
    "match": _COMMON
    | {"options", "prediction", "source", "ground_truth", "documents", "subquestions"},
}
"""The fields each kind reads; every other field of a row is kept as item metadata."""


def parse_gold(
    rec: Record, kind: str, settings: StudySettings, n_statements: int
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
    allowed = {c.name for c in settings.criteria_for(kind)}
    out: list[list[object]] = []
    for criterion, value in raw.items():
        where = f"gold.{criterion}"
        if criterion not in allowed:
            raise rec.problem(f"criterion {criterion!r} does not apply to {kind} items", where)
        if kind == ItemKind.statements:
            if not isinstance(value, list) or len(value) != n_statements:
                raise rec.problem(
                    f"expected a list of {n_statements} values (one per statement)", where
                )
            for position, v in enumerate(value):
                if v is not None:
                    out.append(
                        [criterion, position, normalise_value(rec, where, settings, criterion, v)]
                    )
        else:
            out.append([criterion, None, normalise_value(rec, where, settings, criterion, value)])
    return out


def metadata(rec: Record, kind: str) -> dict[str, object]:
    """A row's extra fields (e.g. ``specialty``, ``test``, ``p``), kept as item metadata for
    display, export and slicing (``report --by FIELD``). Label columns (``human:RATER:CRITERION``)
    are not metadata; empty cells are dropped; text is stripped."""
    meta: dict[str, object] = {}
    for key, value in rec.data.items():
        if key in KNOWN_FIELDS[kind] or key.count(":") == 2:
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
    parse = PARSERS[kind]
    seen: dict[str, int] = {}
    for rec in records:
        item = parse(rec, settings, batch)
        meta = metadata(rec, kind)
        if meta:
            item.data["meta"] = meta
        gold = parse_gold(rec, kind, settings, len(item.statements))
        if gold:
            item.data["gold"] = gold
        if item.ext_id in seen:
            raise rec.problem(
                f"duplicate id {item.ext_id!r} (first on line {seen[item.ext_id]})", "id"
            )
        seen[item.ext_id] = rec.line
        yield item
