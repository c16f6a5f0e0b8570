"""Hostile judge replies (hypothesis, derandomised so CI sees the same cases).

The reply contract (judging/protocol/replies.py): a reply parses into a valid verdict for every
criterion or raises ReplyError — and through the runner a bad reply is a failed sample, never
a vote. (Hostile import files: tests/test_fuzz_import.py.)
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol import replies
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.fuzz import BIG_INT, fuzz, json_values
from .support.kind_rows import pairwise_row, write_jsonl

# --------------------------------------------------------------------------- judge replies

CRITERIA = ["correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias"]
VERDICT_WORDS: list[object] = [
    "A",
    "B",
    "tie",
    "neither",
    "a",
    " b ",
    "Response A",
    "response_b",
    "TIE",
    "C",
    "",
    "yes",
    None,
    1,
    True,
    [],
    {},
    {"verdict": "A"},
]


@st.composite
def reply_texts(draw: st.DrawFn) -> str:
    """Empty, prose, truncated JSON, wrong keys, wrong types, fences, nested junk, long text."""
    obj: dict[str, Any] = {}
    for c in draw(st.lists(st.sampled_from(CRITERIA + ["Correctness ", "other", ""]), max_size=8)):
        v = draw(st.sampled_from(VERDICT_WORDS) | json_values)
        obj[c] = {"verdict": v, "reason": draw(json_values)} if draw(st.booleans()) else v
    text = json.dumps(obj)
    shape = draw(
        st.sampled_from(["plain", "fenced", "prose", "truncated", "random", "deep", "bigint"])
    )
    if shape == "fenced":
        text = f"```json\n{text}\n```"
    elif shape == "prose":
        text = f"Here is my verdict: {text} I hope this helps."
    elif shape == "truncated":
        text = text[: draw(st.integers(0, len(text)))]
    elif shape == "random":
        text = draw(st.text(max_size=200))
    elif shape == "deep":
        text = "{" + '"correctness": ' * 1 + "[" * 5000
    elif shape == "bigint":
        text = '{"correctness": ' + BIG_INT + "}"
    return text


@fuzz(800)
@given(
    text=reply_texts(),
    criteria=st.lists(st.sampled_from(CRITERIA), min_size=1, max_size=6, unique=True),
)
def test_parse_pairwise_returns_every_criterion_or_raises_reply_error(
    text: str, criteria: list[str]
) -> None:
    try:
        out = replies.parse_pairwise(text, criteria)
    except replies.ReplyError:
        return
    assert set(out) == set(criteria)
    for v in out.values():
        assert v["verdict"] in ("A", "B", "tie", "neither") and isinstance(v["reason"], str)


@fuzz(300)
@given(
    text=reply_texts()
    | st.sampled_from(
        [
            '{"relevance": "²", "correctness_rating": 3, "completeness": "A"}',
            '{"relevance": {"value": "１"}, "correctness_rating": 3, "completeness": ["A"]}',
            '{"label": "[[[["}',
            '{"answer": 1e999}',
            "[" * 5000,
            '{"answer": ' + BIG_INT + "}",
        ]
    )
)
def test_other_parsers_return_valid_values_or_raise_reply_error(text: str) -> None:
    for parse in (replies.parse_nli, replies.parse_yes_no):
        try:
            parse(text)
        except replies.ReplyError:
            pass
    try:
        out = replies.parse_rating(
            text,
            {"relevance": (1, 5), "correctness_rating": (1, 5), "completeness": None},
            ["A", "B"],
        )
    except replies.ReplyError:
        return
    assert out["relevance"]["value"] in range(1, 6)
    assert set(out["completeness"]["value"]) <= {"A", "B"}


def test_superscript_digit_rating_is_a_reply_error_not_a_crash() -> None:
    """Found by fuzzing: "²".isdigit() is True but int("²") raises ValueError, which the runner
    does not catch — one odd reply would have killed a whole judge run."""
    with pytest.raises(replies.ReplyError):
        replies.parse_rating('{"relevance": "²"}', {"relevance": (1, 5)}, [])


@pytest.mark.parametrize("text", ["[" * 5000, '{"correctness": ' + BIG_INT + "}"])
def test_pathological_json_replies_are_reply_errors(text: str) -> None:
    """Found by fuzzing: RecursionError / ValueError escaped extract_json."""
    with pytest.raises(replies.ReplyError):
        replies.parse_pairwise(text, ["correctness"])


BAD_REPLIES = [
    "",  # empty
    '{"correctness": {"verdict": "A", "reason": "',  # truncated
    "Both answers are fine, I would call it even.",  # prose without JSON
    'I think {"correctness": "A", "helpfulness": } is right',  # prose around broken JSON
    json.dumps({"Correct": "A", "helpful": "B"}),  # wrong keys
    json.dumps({c: "C" for c in CRITERIA}),  # an unknown verdict
    json.dumps({c: ["A"] for c in CRITERIA}),  # wrong types
    "[" * 5000,  # nested too deeply
    '{"correctness": ' + BIG_INT + "}",  # a number Python will not read
]


def test_bad_replies_through_the_runner_are_failed_samples_never_votes(tmp_path: Path) -> None:
    """Each item gets one kind of bad reply on every call: all its calls are failed samples
    with the raw text kept, its verdicts are missing (never a tie), nothing crashes."""
    rows = [pairwise_row(i) for i in range(len(BAD_REPLIES))]
    study = Study.create(tmp_path / "bad.db")
    import_file(study, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="t")

    def respond(req: FakeRequest) -> Reply:
        for i, text in enumerate(BAD_REPLIES):
            if f"Question {i}?" in req.prompt_text:
                return Reply(text)
        return Reply("?")

    with FakeLLMServer(respond) as server:
        judge = JudgeConfig(parse_judge_spec(f"openai:fake@{server.openai_url}"), samples=2)
        summary = asyncio.run(
            run_judges(study, [judge], RunOptions(concurrency=8, parse_retries=1))
        )
    n_calls = len(BAD_REPLIES) * 2 * 2
    assert summary.failed == n_calls and summary.ok == 0
    statuses = study.conn.execute(
        "SELECT status, count(*), sum(raw IS NULL) FROM judge_calls GROUP BY status"
    ).fetchall()
    assert [tuple(r) for r in statuses] == [("failed", n_calls, 0)]
    values = study.conn.execute("SELECT DISTINCT value, status FROM verdicts").fetchall()
    assert [tuple(r) for r in values] == [(None, "missing")]
    assert (
        study.conn.execute(
            "SELECT count(*) FROM labels l JOIN raters r ON r.id = l.rater_id "
            "WHERE r.kind = 'judge'"
        ).fetchone()[0]
        == 0
    )
    study.close()


def test_prose_around_a_valid_object_is_accepted_as_documented() -> None:
    """Lenient about wrapping, strict about content (replies.py): prose or fences around a
    complete, valid object parse; the same object cut short does not."""
    body = json.dumps({c: {"verdict": "B", "reason": "r"} for c in CRITERIA})
    assert (
        replies.parse_pairwise(f"Sure! ```json\n{body}\n``` Done.", CRITERIA)["bias"]["verdict"]
        == "B"
    )
    with pytest.raises(replies.ReplyError):
        replies.parse_pairwise(f"Sure! {body[:-2]}", CRITERIA)
