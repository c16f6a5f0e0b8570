"""Judge replies: lenient about wrapping, strict about content."""

from __future__ import annotations

import pytest

from medjudge.judging.protocol.replies import (
    ReplyError,
    extract_json,
    parse_nli,
    parse_pairwise,
    parse_rating,
    parse_yes_no,
)

CRITERIA = ["correctness", "harmfulness"]
GOOD = '{"correctness": {"verdict": "A", "reason": "r1"}, "harmfulness": {"verdict": "neither", "reason": "r2"}}'


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"Sure! Here is my verdict:\n{GOOD}\nHope this helps.",
        GOOD.replace('"A"', '"Response A"'),
    ],
)
def test_pairwise_accepts_wrapped_json(text: str) -> None:
    out = parse_pairwise(text, CRITERIA)
    assert out["correctness"]["verdict"] == "A" and out["harmfulness"]["verdict"] == "neither"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ('{"correctness": {"verdict": "A"', "no JSON"),  # truncated
        ("I think A is better.", "no JSON"),  # prose only
        ('{"correctness": {"verdict": "A", "reason": ""}}', "harmfulness"),  # missing key
        ('{"correct": "A", "harm": "B"}', "correctness"),  # wrong keys
        (GOOD.replace('"neither"', '"C"'), "not A, B"),  # bad verdict
        ('{"correctness": {"verdict": 1}, "harmfulness": {"verdict": "A"}}', "not A, B"),
        ("[1, 2, 3]", "no JSON"),
    ],
)
def test_pairwise_rejects_bad_replies(text: str, why: str) -> None:
    with pytest.raises(ReplyError, match=why):
        parse_pairwise(text, CRITERIA)


def test_other_tasks() -> None:
    assert parse_nli('{"label": "Contradiction", "reason": "x"}')["label"] == "contradicted"
    with pytest.raises(ReplyError):
        parse_nli('{"label": "maybe"}')
    assert parse_yes_no('{"answer": true}')["answer"] == "yes"
    with pytest.raises(ReplyError):
        parse_yes_no('{"answer": "perhaps"}')
    scales = {"completeness": None, "relevance": (1, 5)}
    r = parse_rating(
        '{"completeness": {"value": ["c", "A"]}, "relevance": {"value": "4"}}',
        scales,
        ["A", "B", "C"],
    )
    assert r["completeness"]["value"] == ["A", "C"] and r["relevance"]["value"] == 4
    with pytest.raises(ReplyError, match="from 1 to 5"):
        parse_rating('{"completeness": {"value": []}, "relevance": {"value": 9}}', scales, ["A"])
    with pytest.raises(ReplyError, match="unknown option"):
        parse_rating('{"completeness": {"value": ["Z"]}, "relevance": {"value": 3}}', scales, ["A"])
    assert extract_json('noise {"a": 1} more {"b": 2}') == {"a": 1}


def test_a_hostile_reply_of_braces_is_given_up_on_after_a_bounded_number_of_tries() -> None:
    """a 1 MB reply of "{" was tried at every brace, each failure costing time linear in
    its position (minutes, deaf to Ctrl-C); now at most MAX_TRIES starts are tried."""
    from medjudge.judging.protocol.replies import MAX_TRIES, ReplyError, extract_json

    with pytest.raises(ReplyError, match=f"first {MAX_TRIES} braces"):
        extract_json("{" * 1_000_000)
    stray = "{ " * (MAX_TRIES - 1) + '{"correctness": "A"}'
    assert extract_json(stray) == {"correctness": "A"}, "an object after a few stray braces"
    with pytest.raises(ReplyError):
        extract_json("{ " * MAX_TRIES + '{"correctness": "A"}')
