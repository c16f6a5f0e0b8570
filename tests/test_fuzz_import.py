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
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from medjudge.cli import app

from .support.fuzz import BIG_INT, DEEP, fuzz, json_values
from .support.fuzz_study import FIELDS, run_import, template_study, to_bytes, valid_rows
from .support.kind_rows import pairwise_row

# --------------------------------------------------------------------------- strategies

template = pytest.fixture(scope="module")(template_study)
"""A fresh study's bytes, copied by each test (see tests/support/fuzz_study.py)."""


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
