"""The import fuzz tests' template study (each test module makes it its module-scoped fixture,
``template = pytest.fixture(scope="module")(template_study)``; each test copies its bytes)
and the import run that checks the contract — success, or one located ImportProblem and the
study file byte-for-byte unchanged (tests/test_fuzz_import.py,
tests/test_import_found_by_fuzzing.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .kind_rows import pairwise_row, statements_row, write_jsonl

# --------------------------------------------------------------------------- a template study


def template_study(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A study that already holds items p1/s1/r1, a reviewer 'dr' and a judge 'judge-x', so
    fuzzed files also collide with stored ids, labels and rater kinds."""
    folder = tmp_path_factory.mktemp("template")
    path = folder / "template.db"
    with Study.create(path, actor="t") as s:
        import_file(
            s,
            write_jsonl(
                folder / "p.jsonl",
                [
                    pairwise_row(
                        1,
                        human_labels={"dr": {"correctness": "A"}},
                        judge_labels={"judge-x": {"bias": "neither"}},
                    )
                ],
            ),
            "pairwise",
            actor="t",
        )
        import_file(
            s, write_jsonl(folder / "s.jsonl", [statements_row(1)]), "statements", actor="t"
        )
        import_file(s, write_jsonl(folder / "r.jsonl", [rating_row(1)]), "rating", actor="t")
        unit = s.conn.execute("SELECT id FROM units WHERE criterion = 'entailment'").fetchone()[0]
        set_label(s, unit, "dr", "entailed")
    data = path.read_bytes()
    assert not Path(str(path) + "-wal").exists()
    return data


def rating_row(i: int, **extra: object) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"r{i}",
        "question": f"Case {i}: which drug?",
        "options": {"A": "Aspirin", "B": "Heparin"},
        "correct": "A",
        "explanation": f"Explanation {i}.",
        "source": "model-x",
    }
    row.update(extra)
    return row


FILE_LEVEL = (
    "no such file",
    "is a folder",
    "cannot read it",
    "is empty",
    "has no records",
    "has no questions",
    "unknown file type",
    "unknown kind",
    "a K-QA import needs",
)


def run_import(
    tmp: Path,
    template: bytes,
    files: Mapping[str, bytes | Callable[[BinaryIO], object]],
    kind: str,
    answers: str | None = None,
) -> ImportProblem | None:
    """Import into a fresh copy of the template; check the contract; return the problem.
    A file is given as its bytes, or as a function that writes them to the open file."""
    for name, data in files.items():
        if isinstance(data, bytes):
            (tmp / name).write_bytes(data)
        else:
            with (tmp / name).open("wb") as fh:
                data(fh)
    main = next(iter(files))
    study_path = tmp / "study.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(study_path) + suffix).unlink(missing_ok=True)
    study_path.write_bytes(template)
    study = Study.open(study_path)
    problem: ImportProblem | None = None
    try:
        import_file(
            study,
            tmp / main,
            kind,
            actor="fuzz",
            answers=tmp / answers if answers else None,
            source="model-z",
        )
    except ImportProblem as exc:
        # without its traceback, whose frames hold what the readers read (100 MB for a 50 MB
        # line), so that a test holding the problem does not hold the file
        problem = exc.with_traceback(None)
        problem.__context__ = None
    finally:
        study.close()
    if problem is None:
        return None
    names = {str(tmp / n) for n in files}
    assert problem.file in names, problem
    text = str(problem)
    assert text.startswith(problem.file), text
    if problem.line is not None:
        assert f", line {problem.line}" in text
    else:
        assert problem.message.startswith(FILE_LEVEL), f"a record problem without a line: {text}"
    if problem.field is not None:
        assert f"field {problem.field!r}" in text
    assert study_path.read_bytes() == template, f"failed import changed the study: {text}"
    assert not Path(str(study_path) + "-wal").exists()
    return problem


def to_bytes(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


FIELDS = {
    "pairwise": [
        "id",
        "question",
        "answer_a",
        "answer_b",
        "source_a",
        "source_b",
        "context",
        "batch",
        "labels",
        "human_labels",
        "judge_labels",
        "human:dr:correctness",
        "judge:jx:bias",
    ],
    "statements": [
        "id",
        "question",
        "answer",
        "source",
        "must_have",
        "nice_to_have",
        "statements",
        "context",
        "batch",
        "labels",
        "human_labels",
        "judge_labels",
        "human:dr:entailment",
    ],
    "rating": [
        "id",
        "question",
        "options",
        "correct",
        "explanation",
        "source",
        "context",
        "batch",
        "labels",
        "human_labels",
        "human:dr:relevance",
    ],
    "kqa": ["Question", "Free_form_answer", "Must_have", "Nice_to_have"],
    "kqa_answers": ["Question", "result"],
}


def valid_rows(kind: str, n: int, fmt: str = "jsonl") -> list[dict[str, Any]]:
    """Valid records, with labels in the form the format allows."""
    if kind == "pairwise":
        labels: dict[str, Any] = (
            {"labels": [{"rater": "ann", "criterion": "bias", "value": "B"}]}
            if fmt == "jsonl"
            else {"human:ann:bias": "B"}
        )
        return [pairwise_row(i, **labels) for i in range(n)]
    if kind == "statements":
        labels = (
            {"labels": [{"rater": "ann", "statement": 0, "value": "neutral"}]}
            if fmt == "jsonl"
            else {}
        )
        return [statements_row(i, **labels) for i in range(n)]
    if kind == "rating":
        labels = (
            {"human_labels": {"ann": {"relevance": 4, "completeness": ["A"]}}}
            if fmt == "jsonl"
            else {"human:ann:relevance": "4"}
        )
        return [rating_row(i, **labels) for i in range(n)]
    if kind == "kqa":
        return [
            {
                "Question": f"Question {i}?",
                "Free_form_answer": f"Answer {i}.",
                "Must_have": [f"Must {i}"],
                "Nice_to_have": [f"Nice {i}"],
            }
            for i in range(n)
        ]
    return [{"Question": f"Question {i}?", "result": f"Model answer {i}."} for i in range(n)]
