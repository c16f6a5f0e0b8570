"""Hostile input files and judge replies (hypothesis, derandomised so CI sees the same cases).

The import contract (store/importing): every import ends in success or ONE ImportProblem
whose message names the file and, when it is about a record, the line (and the field when
one is to blame); never any other exception; and a failed import leaves the study file
byte-for-byte unchanged. The reply contract (judging/protocol/replies.py): a reply parses into a
valid verdict for every criterion or raises ReplyError — and through the runner a bad reply
is a failed sample, never a vote.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.fuzz import BIG_INT, DEEP, fuzz, json_values
from .support.kind_rows import pairwise_row, statements_row, write_jsonl

# --------------------------------------------------------------------------- a template study


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> bytes:
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


# --------------------------------------------------------------------------- strategies

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


@st.composite
def mutated_rows(draw: st.DrawFn, kind: str, fmt: str = "jsonl") -> list[dict[str, Any]]:
    """Valid rows, then deletions, replacements by any JSON value, extra fields, duplicate ids."""
    rows = valid_rows(kind, draw(st.integers(1, 4)), fmt)
    for _ in range(draw(st.integers(0, 4))):
        row = rows[draw(st.integers(0, len(rows) - 1))]
        op = draw(st.sampled_from(["delete", "set", "set", "set", "extra", "duplicate", "label"]))
        name = draw(st.sampled_from(FIELDS[kind]))
        if op == "delete":
            row.pop(name, None)
        elif op == "set":
            row[name] = draw(json_values)
        elif op == "extra":
            row[draw(st.text(min_size=1, max_size=10))] = draw(json_values)
        elif op == "duplicate":
            other = rows[draw(st.integers(0, len(rows) - 1))]
            for key in ("id", "Question"):
                if key in other:
                    row[key] = other[key]
        elif isinstance(row.get("labels"), list) and row["labels"]:
            lab = row["labels"][0]
            if isinstance(lab, dict):
                lab[
                    draw(
                        st.sampled_from(
                            ["rater", "criterion", "value", "statement", "type", "note"]
                        )
                    )
                ] = draw(json_values)
    return rows


def expand(text: str) -> str:
    """Put in what json.dumps cannot write: bare 5000-digit numbers and 5000-deep nesting."""
    return (
        text.replace('"@@BIGINT@@"', BIG_INT)
        .replace("@@BIGINT@@", BIG_INT)
        .replace('"@@DEEP@@"', DEEP)
        .replace("@@DEEP@@", DEEP)
    )


def to_jsonl(draw: st.DrawFn, rows: list[dict[str, Any]]) -> str:
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in rows]
    out = ""
    for line in lines:
        out += line + draw(st.sampled_from(["\n", "\r\n", "\n\n", "\r\n\r\n"]))
    return expand(out)


def cell(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def to_csv(draw: st.DrawFn, rows: list[dict[str, Any]]) -> str:
    header: list[str] = []
    for r in rows:
        header += [k for k in r if k not in header]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator=draw(st.sampled_from(["\n", "\r\n", "\r"])))
    writer.writerow(header)
    for r in rows:
        values = [cell(r[k]) if k in r else "" for k in header]
        if draw(st.integers(0, 30)) == 17:  # rare (hypothesis favours 0 and the ends)
            values = values[:-1]  # a short row
        writer.writerow(values)
    return expand(buf.getvalue())


def encode(draw: st.DrawFn, text: str) -> bytes:
    enc = draw(st.sampled_from(["utf-8"] * 8 + ["utf-8-sig", "utf-16", "latin-1"]))
    data = text.encode(enc, errors="surrogatepass" if enc.startswith("utf") else "replace")
    return mangle(draw, data) if draw(st.integers(0, 4)) == 2 else data


def mangle(draw: st.DrawFn, data: bytes) -> bytes:
    """Byte-level damage: insert random bytes or NULs, cut a piece out, truncate."""
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "nul", "cut", "truncate"]))
        if op == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
        elif op == "nul":
            data = data[:at] + b"\x00" + data[at:]
        elif op == "cut":
            data = data[:at] + data[at + draw(st.integers(1, 20)) :]
        else:
            data = data[:at]
    return data


@st.composite
def input_file(draw: st.DrawFn, kind: str, fmt: str) -> bytes:
    rows = draw(mutated_rows(kind, fmt))
    text = to_jsonl(draw, rows) if fmt == "jsonl" else to_csv(draw, rows)
    return encode(draw, text)


# --------------------------------------------------------------------------- import fuzzing


@pytest.mark.parametrize(
    ("kind", "fmt"),
    [
        ("pairwise", "jsonl"),
        ("pairwise", "csv"),
        ("statements", "jsonl"),
        ("statements", "csv"),
        ("rating", "jsonl"),
        ("rating", "csv"),
    ],
)
def test_fuzzed_files_import_or_fail_with_one_located_problem(
    kind: str, fmt: str, tmp_path: Path, template: bytes
) -> None:
    @fuzz(250)
    @given(data=input_file(kind, fmt))
    def check(data: bytes) -> None:
        run_import(tmp_path, template, {f"in.{fmt}": data}, kind)

    check()


def test_fuzzed_kqa_files(tmp_path: Path, template: bytes) -> None:
    @fuzz(200)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        # hypothesis types DataObject.draw as a plain callable, not its DrawFn protocol
        draw: st.DrawFn = data.draw  # type: ignore[assignment]
        reference = encode(draw, to_jsonl(draw, draw(mutated_rows("kqa"))))
        answer_rows = draw(mutated_rows("kqa_answers"))
        if draw(st.booleans()):
            name, body = (
                "answers.json",
                expand(json.dumps(answer_rows, indent=draw(st.sampled_from([None, 1])))),
            )
        else:
            name, body = "answers.jsonl", to_jsonl(draw, answer_rows)
        run_import(
            tmp_path,
            template,
            {"ref.jsonl": reference, name: encode(draw, body)},
            "kqa",
            answers=name,
        )

    check()


def test_random_bytes_in_every_format(tmp_path: Path, template: bytes) -> None:
    @fuzz(300)
    @given(
        kind=st.sampled_from(["pairwise", "statements", "rating", "kqa"]),
        suffix=st.sampled_from([".jsonl", ".csv", ".json", ".txt"]),
        data=st.binary(max_size=300)
        | st.sampled_from(
            [
                b"\xff\xfe{\x00}\x00",
                b"\xef\xbb\xbf",
                b"\x00" * 64,
                b"[" * 5000,
                b"{}\n" * 3,
                b"[]",
                b"[1, 2]",
                b"null\n",
                b'{"id": ' + BIG_INT.encode() + b"}\n",
                b"id\n\x00\n",
                b'"unterminated\n',
                b"a,b\n1,2,3\n",
                b"\r\r\r",
            ]
        ),
    )
    def check(kind: str, suffix: str, data: bytes) -> None:
        files = {"in" + suffix: data}
        if kind == "kqa":
            files["ans" + suffix] = data
        run_import(
            tmp_path, template, files, kind, answers="ans" + suffix if kind == "kqa" else None
        )

    check()


def test_same_ids_with_other_content_are_refused_and_leave_the_study_alone(
    tmp_path: Path, template: bytes
) -> None:
    """Duplicate ids within a file and against the study name the line and field 'id'."""
    rows = [pairwise_row(5), pairwise_row(5, question="Other?")]
    problem = run_import(tmp_path, template, {"dup.jsonl": to_bytes(rows)}, "pairwise")
    assert problem is not None and problem.line == 2 and problem.field == "id"
    problem = run_import(
        tmp_path,
        template,
        {"again.jsonl": to_bytes([pairwise_row(1, question="Changed?")])},
        "pairwise",
    )
    assert problem is not None and problem.field == "id" and "already exists" in problem.message


def to_bytes(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


# Regression tests for what the fuzzers found (each was an uncaught exception or bad data).


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


# --------------------------------------------------------------------------- through the CLI

cli = CliRunner()


def test_cli_import_of_fuzzed_files_exits_1_without_traceback(
    tmp_path: Path, template: bytes
) -> None:
    study = tmp_path / "cli.db"

    @fuzz(80)
    @given(
        kind=st.sampled_from(["pairwise", "statements", "rating"]),
        fmt=st.sampled_from(["jsonl", "csv"]),
        data=st.data(),
    )
    def check(kind: str, fmt: str, data: st.DataObject) -> None:
        body = data.draw(input_file(kind, fmt))
        source = tmp_path / f"in.{fmt}"
        source.write_bytes(body)
        for suffix in ("-wal", "-shm"):
            Path(str(study) + suffix).unlink(missing_ok=True)
        study.write_bytes(template)
        r = cli.invoke(app, ["import", str(study), str(source), "-k", kind])
        assert r.exit_code in (0, 1), r.output
        assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
        assert "Traceback" not in r.output
        if r.exit_code == 1:
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
            assert str(source) in lines[0]
            assert "\x1b" not in r.output and "\x00" not in r.output
            assert study.read_bytes() == template

    check()
