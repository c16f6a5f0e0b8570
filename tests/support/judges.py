"""Scripted judges for the fake LLM server: they read medjudge's prompts and answer by policy."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from .fakellm import FakeRequest, Reply


def _between(text: str, start: str, end: str) -> str:
    i = text.index(start) + len(start)
    return text[i : text.index(end, i)].strip()


def pairwise_parts(req: FakeRequest) -> tuple[list[str], str, str]:
    """The criteria and the two responses shown in a pairwise prompt."""
    text = req.prompt_text
    keys = [k.strip() for k in _between(text, "one entry per criterion (", "):").split(",")]
    return (
        keys,
        _between(text, "<response_a>", "</response_a>"),
        _between(text, "<response_b>", "</response_b>"),
    )


def sample_of(req: FakeRequest) -> int:
    """The sample index (the OpenAI request's seed)."""
    body = req.json or {}
    return int(body.get("seed") or 0)


Chooser = Callable[[str, str, str, int], str]
"""(criterion, shown response A, shown response B, sample) → verdict in the prompt's own terms."""


def prefer_first(criterion: str, a: str, b: str, sample: int) -> str:
    """A judge with pure position bias: always the response shown first."""
    return "A"


def prefer_marked(marker: str = "GOOD") -> Chooser:
    """A consistent judge: picks whichever shown response contains the marker."""

    def choose(criterion: str, a: str, b: str, sample: int) -> str:
        if marker in a and marker not in b:
            return "A"
        if marker in b and marker not in a:
            return "B"
        return "tie"

    return choose


def flip_sample(inner: Chooser, flipped: int = 1) -> Chooser:
    """The inner judge, except that one sample index votes the other way."""

    def choose(criterion: str, a: str, b: str, sample: int) -> str:
        v = inner(criterion, a, b, sample)
        if sample == flipped:
            return {"A": "B", "B": "A"}.get(v, "A")
        return v

    return choose


def pairwise_responder(choose: Chooser, *, wrap: str = "{}") -> Callable[[FakeRequest], Reply]:
    """A responder for pairwise prompts; ``wrap`` may put prose around the JSON."""

    def respond(req: FakeRequest) -> Reply:
        keys, a, b = pairwise_parts(req)
        s = sample_of(req)
        body = {
            k: {"verdict": choose(k, a, b, s), "reason": f"{k} judged on sample {s}"} for k in keys
        }
        return Reply(wrap.format(json.dumps(body)) if wrap != "{}" else json.dumps(body))

    return respond


def statement_responder(req: FakeRequest) -> Reply:
    """NLI / K-QA replies: entailed when the statement is quoted in the answer,
    contradicted when the answer says 'NOT <statement>', else neutral."""
    text = req.prompt_text
    statement = _between(text, "<statement>", "</statement>")
    answer = _between(text, "<answer>", "</answer>")
    label = "neutral"
    if f"NOT {statement}" in answer:
        label = "contradicted"
    elif statement in answer:
        label = "entailed"
    if '"label"' in text:
        return Reply(json.dumps({"label": label, "reason": "scripted"}))
    asks_contradiction = "contradict the statement" in text
    yes = (label == "contradicted") if asks_contradiction else (label == "entailed")
    return Reply(json.dumps({"answer": "yes" if yes else "no", "reason": "scripted"}))


def rating_responder(values: dict[str, object]) -> Callable[[FakeRequest], Reply]:
    """Rating replies with fixed values per criterion."""

    def respond(req: FakeRequest) -> Reply:
        return Reply(json.dumps({k: {"value": v, "reason": "scripted"} for k, v in values.items()}))

    return respond


def routing(
    pairwise: Callable[[FakeRequest], Reply], rating: Callable[[FakeRequest], Reply] | None = None
) -> Callable[[FakeRequest], Reply]:
    """Send each prompt to the responder for its task."""

    def respond(req: FakeRequest) -> Reply:
        text = req.prompt_text
        if "<response_a>" in text:
            return pairwise(req)
        if "<statement>" in text:
            return statement_responder(req)
        if rating is not None:
            return rating(req)
        return Reply("{}")

    return respond


KEY = re.compile(r"sk-[A-Za-z0-9-]+")
