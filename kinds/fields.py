"""Reading the fields that several kinds share from an import record (context, batch, option
letters, JSON lists in CSV cells). Every error names the record's file, line and field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

    from .base import Kind


def context(rec: Record) -> list[str]:
    """The ``context`` passages (a list; in CSV a JSON list or one passage)."""
    value = rec.data.get("context")
    if isinstance(value, str) and value.strip().startswith("["):
        value = rec.json_cell("context", value, "a JSON list")
        rec = type(rec)(rec.file, rec.line, {**rec.data, "context": value})
    return rec.text_list("context")


def batch(rec: Record, default: str | None) -> str | None:
    """The record's batch, else the import's."""
    return rec.text("batch", required=False) or default


def options(rec: Record, *, required: bool) -> dict[str, str]:
    """``options``: ``{letter: text}``, at least two, letters short and alphanumeric."""
    raw = rec.data.get("options")
    if raw in (None, "", {}) and not required:
        return {}
    if isinstance(raw, str) and raw.strip().startswith("{"):
        raw = rec.json_cell("options", raw, "a JSON object")
    if not isinstance(raw, dict) or len(raw) < 2:
        raise rec.problem(
            'expected an object of at least two options, e.g. {"A": "..."}', "options"
        )
    clean: dict[str, str] = {}
    for key, text in raw.items():
        k = str(key).strip()
        if not (k.isalnum() and len(k) <= 3) or not isinstance(text, str) or not text.strip():
            raise rec.problem(f"option {key!r} needs a short letter and a text", f"options.{key}")
        clean[k] = text.strip()
    return clean


def json_list(rec: Record, name: str) -> list[Any]:
    """A list field (in CSV: a JSON list); empty when absent."""
    raw = rec.data.get(name)
    if raw in (None, "", []):
        return []
    if isinstance(raw, str) and raw.strip().startswith("["):
        raw = rec.json_cell(name, raw, "a JSON list")
    if not isinstance(raw, list):
        raise rec.problem("expected a list", name)
    return raw


def item(
    rec: Record,
    kind: Kind,
    settings: StudySettings,
    batch_name: str | None,
    *,
    answers: list[tuple[str, str, str]],
    statements: list[tuple[str, str]] | None = None,
    data: dict[str, Any] | None = None,
    documents: list[str] | None = None,
    question: str | None = None,
) -> ItemIn:
    """The item of a record, with what every kind shares (id, question, location, batch,
    context — or the given ``documents`` — and its labels). ``answers`` names each answer's
    fields: ``(position, text field, source field)``; they are read after the id and the
    question, so a record missing several fields is told about them in that order. A kind
    that builds the question itself (a conversation) passes it as ``question``."""
    from medjudge.store.importing.parsed import ItemIn, parse_labels

    listed = statements or []
    ext_id = rec.ident()
    question = (rec.text("question") or "") if question is None else question
    texts = [(pos, rec.answer(text), rec.text(source) or "") for pos, text, source in answers]
    out = ItemIn(
        ext_id=ext_id,
        kind=kind.name,
        question=question,
        file=rec.file,
        line=rec.line,
        answers=texts,
        statements=listed,
        data=data or {},
        context=context(rec) if documents is None else documents,
        batch=batch(rec, batch_name),
    )
    out.labels = parse_labels(rec, settings, kind, len(listed))
    return out
