"""K-QA's own files: the physicians' ``questions_w_answers.jsonl`` plus model answers.

The reference file has ``Question``, ``Free_form_answer``, ``Must_have`` and ``Nice_to_have``;
the answers file is K-QA's result format, a JSON array (or JSONL) of
``{"Question": ..., "result": ...}``. Each answered question becomes one statements item with
id ``kqa-NNN-SOURCE`` (NNN is the question's line in the reference file). Questions the model
left unanswered are not items, but the number of reference questions is kept so metrics can
also be averaged over all questions, as the K-QA paper does.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..settings import StudySettings
from .parsed import ItemIn
from .problems import ImportProblem, Record
from .readers import read_records


def _source_slug(source: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", source).strip("-") or "model"


def _key(question: str) -> str:
    return " ".join(question.split())


def _statement_list(rec: Record, field: str, *, required: bool = False) -> list[str]:
    """K-QA's statement lists, kept whole: the file has three blank statements, and the
    paper's counts (1,589 statements) and metric denominators include them."""
    value = rec.data.get(field)
    if value is None or value == []:
        if required:
            raise rec.problem("missing (required)", field)
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise rec.problem("expected a list of texts", field)
    return [v.strip() for v in value]


def parse_kqa(
    reference: Path, answers: Path, source: str, settings: StudySettings, batch: str | None
) -> tuple[list[ItemIn], int, list[str]]:
    """Read the reference and answers files.

    Returns:
        The statements items (one per answered question), the number of reference questions,
        and the entries skipped for an empty answer (an absent ``result`` is an error).
    """
    del settings  # K-QA items carry no labels
    if not source.strip():
        raise ImportProblem(
            answers, "a K-QA import needs --source (the model that wrote the answers)"
        )
    refs: dict[str, tuple[Record, str, list[tuple[str, str]]]] = {}
    n_questions = 0
    for rec in read_records(reference):
        n_questions += 1
        question = rec.text("Question") or ""
        statements = [(t, "must_have") for t in _statement_list(rec, "Must_have", required=True)]
        statements += [(t, "nice_to_have") for t in _statement_list(rec, "Nice_to_have")]
        key = _key(question)
        if key in refs:
            raise rec.problem(
                f"the same question appears twice (first on line {refs[key][0].line})", "Question"
            )
        refs[key] = (rec, question, statements)
    if not refs:
        raise ImportProblem(reference, "has no questions")
    items: list[ItemIn] = []
    skipped: list[str] = []
    seen: dict[str, int] = {}
    slug = _source_slug(source)
    for entry, rec in enumerate(read_records(answers), start=1):
        try:
            question = rec.text("Question") or ""
            if rec.data.get("result") is None:  # absent or null: an error, never skipped
                raise rec.problem("missing (required): the model's answer", "result")
            answer = rec.text("result", required=False) or ""
        except ImportProblem as exc:
            raise ImportProblem(
                exc.file, f"entry {entry}: {exc.message}", line=exc.line, field=exc.field
            ) from None
        key = _key(question)
        if key not in refs:
            raise rec.problem(
                f"entry {entry}: this question is not in the reference file {reference.name}",
                "Question",
            )
        if key in seen:
            raise rec.problem(
                f"entry {entry}: a second answer to the same question (first on line {seen[key]})",
                "Question",
            )
        seen[key] = rec.line
        if not answer.strip():  # an empty answer: not an item, and said so in the summary
            skipped.append(f"entry {entry}, line {rec.line}: empty result")
            continue
        ref_rec, ref_question, statements = refs[key]
        items.append(
            ItemIn(
                ext_id=f"kqa-{ref_rec.line:03d}-{slug}",
                kind="statements",
                question=ref_question,
                file=rec.file,
                line=rec.line,
                answers=[("answer", answer, source)],
                statements=statements,
                batch=batch,
                data={
                    "kqa_line": ref_rec.line,
                    "reference_answer": ref_rec.text("Free_form_answer", required=False) or "",
                },
            )
        )
    return items, n_questions, skipped
