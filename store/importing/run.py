"""One entry point for every import kind: read, parse, check, store (all or nothing)."""

from __future__ import annotations

from pathlib import Path

from ..study import Study
from .kinds import parse_all
from .kqa import parse_kqa
from .problems import ImportProblem
from .readers import read_records
from .writer import ImportSummary, store_items

KINDS = ("pairwise", "statements", "rating", "kqa")


def import_file(
    study: Study,
    path: Path,
    kind: str,
    *,
    actor: str,
    answers: Path | None = None,
    source: str | None = None,
    batch: str | None = None,
    fmt: str | None = None,
) -> ImportSummary:
    """Import one file into a study.

    Args:
        study: the open study.
        path: the input file (for ``kqa``, K-QA's ``questions_w_answers.jsonl``).
        kind: ``pairwise``, ``statements``, ``rating`` or ``kqa``.
        actor: who imports (recorded in the audit trail).
        answers: ``kqa`` only: the model answers file (K-QA result format).
        source: ``kqa`` only: the name of the model that wrote the answers.
        batch: a batch name for items that do not name their own.
        fmt: ``jsonl``, ``csv`` or ``json``; None picks by extension (``-``, standard input,
            is JSONL unless named).

    Raises:
        ImportProblem: bad input (file, line and field named); the study is unchanged.
    """
    if kind not in KINDS:
        raise ImportProblem(path, f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    if kind == "kqa":
        if answers is None:
            raise ImportProblem(path, "a K-QA import needs --answers FILE (the model's answers)")
        items, n_questions = parse_kqa(path, answers, source or "", study.settings, batch)
        return store_items(
            study,
            items,
            file=answers,
            kind="statements",
            actor=actor,
            settings_extra={"kqa_questions": n_questions},
        )
    items = parse_all(read_records(path, fmt), kind, study.settings, batch)
    if not items:
        raise ImportProblem(path, "has no records")
    return store_items(study, items, file=path, kind=kind, actor=actor)
