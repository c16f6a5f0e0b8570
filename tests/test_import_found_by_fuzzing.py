"""Regression tests for what the import fuzzers (tests/test_fuzz_import.py) found — each was an
uncaught exception or bad data — and the large inputs: a big JSON array read in linear time, a
50 MB line."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest

from .support.fuzz import BIG_INT, DEEP
from .support.fuzz_study import rating_row, run_import, template_study, to_bytes, valid_rows
from .support.kind_rows import pairwise_row, statements_row

# Regression tests for what the fuzzers found (each was an uncaught exception or bad data).

template = pytest.fixture(scope="module")(template_study)
"""A fresh study's bytes, copied by each test (see tests/support/fuzz_study.py)."""


FOUND_BY_FUZZING = [
    # a \ud800 escape is valid JSON but no UTF-8 text: UnicodeEncodeError at the database
    ("pairwise", "sur.jsonl", json.dumps(pairwise_row(9, question="\ud800")), "question"),
    (
        "pairwise",
        "sur.csv",
        'id,question,answer_a,answer_b,source_a,source_b,context\nc1,q,a,b,m,n,"[""\\ud800""]"\n',
        "context",
    ),
    (
        "rating",
        "sur_opt.jsonl",
        json.dumps(rating_row(9, options={"A": "\udc00", "B": "x"})),
        "options",
    ),
    (
        "pairwise",
        "sur_rater.jsonl",
        json.dumps(pairwise_row(9, human_labels={"\ud800": {"bias": "A"}})),
        "human_labels",
    ),
    # more than 4300 digits: ValueError from int(), not a JSONDecodeError
    ("pairwise", "bigint.jsonl", '{"id": ' + BIG_INT + ', "question": "q"}', None),
    (
        "pairwise",
        "bigint.csv",
        f'id,question,answer_a,answer_b,source_a,source_b,context\nc2,q,a,b,m,n,"[{BIG_INT}]"\n',
        "context",
    ),
    # 5000-deep nesting inside a CSV cell: RecursionError
    (
        "pairwise",
        "deep.csv",
        f"id,question,answer_a,answer_b,source_a,source_b,context\nc3,q,a,b,m,n,{DEEP}\n",
        "context",
    ),
    (
        "statements",
        "deep_st.csv",
        f"id,question,answer,source,statements\nd1,q,a,m,{DEEP}\n",
        "statements",
    ),
    (
        "rating",
        "bigint_opt.csv",
        f'id,question,options,correct,explanation,source\nd2,q,"{{""A"": {BIG_INT}}}",A,e,m\n',
        "options",
    ),
    # a statements item labelled on its criterion without a statement number: KeyError
    (
        "statements",
        "st_nostmt.jsonl",
        json.dumps(statements_row(9, human_labels={"dr": {"entailment": "entailed"}})),
        "human_labels.dr.entailment",
    ),
    (
        "statements",
        "st_col.csv",
        "id,question,answer,source,must_have,human:dr:entailment\ns9,q,a,m,x,entailed\n",
        "human:dr:entailment",
    ),
]


@pytest.mark.parametrize(
    ("kind", "name", "body", "field"), FOUND_BY_FUZZING, ids=[c[1] for c in FOUND_BY_FUZZING]
)
def test_found_by_fuzzing_each_is_one_import_problem(
    kind: str, name: str, body: str, field: str | None, tmp_path: Path, template: bytes
) -> None:
    problem = run_import(tmp_path, template, {name: body.encode("utf-8", "surrogatepass")}, kind)
    assert problem is not None and problem.line is not None
    if field is not None:
        assert problem.field is not None and problem.field.startswith(field), problem


def test_statement_label_on_another_criterion_is_refused_not_stored_on_the_statement(
    tmp_path: Path, template: bytes
) -> None:
    """Found by fuzzing: {"criterion": "correctness", "statement": 0, "value": "A"} on a
    statements item was stored as the statement's label 'A' (not a statement verdict)."""
    row = statements_row(
        9, labels=[{"rater": "ann", "criterion": "correctness", "statement": 0, "value": "A"}]
    )
    problem = run_import(tmp_path, template, {"wrong.jsonl": to_bytes([row])}, "statements")
    assert problem is not None and problem.field == "labels[0].criterion", problem


def test_kqa_answers_json_nested_too_deeply_is_a_problem(tmp_path: Path, template: bytes) -> None:
    ref = to_bytes(valid_rows("kqa", 2))
    problem = run_import(
        tmp_path, template, {"ref.jsonl": ref, "ans.json": DEEP.encode()}, "kqa", answers="ans.json"
    )
    assert problem is not None and problem.file.endswith("ans.json") and problem.line == 1


def test_a_large_json_array_is_read_in_linear_time(tmp_path: Path) -> None:
    """Regression: each element's line number was counted from the top of the file, so a K-QA
    answers array of 40,000 elements took minutes (quadratic) before any message."""
    from medjudge.store.importing.readers import read_json_array

    path = tmp_path / "answers.json"
    rows = [{"Question": f"Question {i}?", "result": f"Answer {i}."} for i in range(40_000)]
    path.write_text(json.dumps(rows, indent=1))
    # CPU time, not wall-clock: quadratic took minutes of it, however idle the machine;
    # other processes' load does not add to it
    t0 = time.process_time()
    records = list(read_json_array(path))
    assert time.process_time() - t0 < 5
    assert records[-1].line == 1 + 4 * 39_999 + 1 and records[-1].data == rows[-1]


def _written(*parts: bytes, filler: int = 0, at: int = 1) -> Callable[[BinaryIO], object]:
    """A file of ``parts`` with ``filler`` bytes ``x`` written in 1 MB pieces before part
    ``at``: the test never holds the big line itself."""

    def write(fh: BinaryIO) -> None:
        fh.write(b"".join(parts[:at]))
        piece = b"x" * 1_000_000
        for _ in range(filler // len(piece)):
            fh.write(piece)
        fh.write(b"x" * (filler % len(piece)))
        fh.write(b"".join(parts[at:]))

    return write


def test_a_50_mb_line(tmp_path: Path, template: bytes) -> None:
    """One 50 MB line: a clear problem naming line and field, quickly, study untouched. The
    files are written in pieces: the test holds none of them, so the worker's memory is what
    the importer needs."""
    n = 50_000_000
    t0 = time.process_time()  # CPU time: a busy machine does not stretch it
    head, tail = json.dumps(pairwise_row(1, question="QUESTION")).encode().split(b"QUESTION")
    problem = run_import(
        tmp_path, template, {"big.jsonl": _written(head, tail + b"\n", filler=n)}, "pairwise"
    )
    assert problem is not None and problem.line == 1 and problem.field == "question"
    assert "50,000,000 characters" in problem.message
    header = b"id,question,answer_a,answer_b,source_a,source_b\nb1,q,a,"
    files = {"big.csv": _written(header, b",m,n\n", filler=n)}
    problem = run_import(tmp_path, template, files, "pairwise")
    assert problem is not None and problem.line == 2 and problem.field == "answer_b"
    files = {"big.jsonl": _written(b"", b"\n", filler=n)}
    problem = run_import(tmp_path, template, files, "pairwise")
    assert problem is not None and problem.line == 1 and "not valid JSON" in problem.message
    assert time.process_time() - t0 < 30
