"""One entry point for every import kind: read, parse, check, store (all or nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from medjudge import kinds

from ..people import person_name
from ..roles import has_lead, roles_of
from ..study import Study
from .kinds import parse_all
from .kqa import parse_kqa
from .parsed import ItemIn
from .problems import ImportProblem
from .readers import read_records
from .writer import ImportSummary, store_items

KINDS = (*kinds.NAMES, "kqa")
"""What ``import --kind`` takes: every item kind, and K-QA's own files."""


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
        items, n_questions, skipped = parse_kqa(path, answers, source or "", study.settings, batch)
        return store_items(
            study,
            items,
            file=answers,
            kind="statements",
            actor=actor,
            settings_extra={"kqa_questions": n_questions},
            skipped=skipped,
        )
    return store_items(
        study,
        parse_all(read_records(path, fmt), kind, study.settings, batch),
        file=path,
        kind=kind,
        actor=actor,
        check=label_owner_check(study, actor),
        require_items=True,
    )


def label_owner_check(study: Study, actor: str) -> Callable[[ItemIn], None] | None:
    """A reviewer imports labels only under their own name; a lead (or anyone, in a study
    without a lead) imports labels of any reviewer or judge.

    Returns:
        None when ``actor`` may import anyone's labels, else a check of one item that raises
        :class:`ImportProblem` at its first label under another name (its line and rater).
    """
    me = person_name(actor, "login")
    if not has_lead(study) or "lead" in roles_of(study, me):
        return None

    def check(item: ItemIn) -> None:
        for label in item.labels:
            if label.rater_kind != "human" or label.rater != me:
                whose = "judge " if label.rater_kind == "judge" else ""
                raise ImportProblem(
                    item.file,
                    f"labels of {whose}{label.rater!r}: you ({me}) may import only your own "
                    "labels; a lead may import anyone's",
                    line=item.line,
                    field="labels",
                )

    return check
