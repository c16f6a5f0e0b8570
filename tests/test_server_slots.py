"""A self-hosted server's slots: a judge run asks llama.cpp's ``GET /props`` once before its
calls and sends no more calls at once than the server has slots, so none waits in the
server's queue while its timeout runs (and none is sent twice); a server without ``/props``
keeps ``--concurrency``; a call waiting for one of our own slots spends none of its timeout.

The servers here queue what is beyond their slots as llama.cpp does; they never sleep to line
requests up: the first requests wait on an event until the server has been crowded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.adaptive import AdaptiveLimit
from medjudge.judging.llm.provider_types import ChatRequest, ChatResult
from medjudge.judging.llm.retrying import RetryingProvider
from medjudge.judging.llm.server_slots import is_self_hosted, props_url
from medjudge.judging.llm.specs import parse_judge_spec

from .support.judges import pairwise_responder, prefer_marked, routing
from .support.llamacpp import LlamaCppServer, ServerSlots, props
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


def study_of(tmp_path: Path, items: int) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=items, statements=0).close()
    return path


def spec(protocol: str, server: LlamaCppServer) -> str:
    url = server.openai_url if protocol == "openai" else server.anthropic_url
    return f"{protocol}:m@{url}"


def judge(study: Path, judge_spec: str, *extra: str, concurrency: int = 8) -> object:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", judge_spec, "--samples", "2"]
        + ["--concurrency", str(concurrency), *extra],
    )


@pytest.fixture
def slots() -> Iterator[ServerSlots]:
    server_slots = ServerSlots(GOOD, 2)
    yield server_slots
    server_slots.closing.set()


# --------------------------------------------------------------------------- the slots


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_a_two_slot_server_gets_two_calls_at_a_time_each_once(
    tmp_path: Path, slots: ServerSlots, protocol: str
) -> None:
    study = study_of(tmp_path, 4)
    calls = 4 * 2 * 2  # items × AB/BA × samples
    with LlamaCppServer(slots, props=props(2)) as server:
        r = judge(study, spec(protocol, server), "-v")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        asked = [q for q in server.requests if q.path == "/props"]
        chats = server.chat_requests()
        url = server.openai_url if protocol == "openai" else server.anthropic_url
    assert len(asked) == 1 and asked[0].method == "GET", "/props asked once"
    assert asked[0].index == 0, "before any call"
    assert asked[0].headers["authorization"] == "Bearer not-needed", "the calls' placeholder"
    assert slots.most == 2, f"{slots.most} requests at the server at once"
    assert len(chats) == calls, f"{len(chats)} requests for {calls} calls: some sent twice"
    if protocol == "openai":  # each sample has its seed: every body differs
        assert len(set(slots.bodies)) == calls
    out, err = r.stdout, r.stderr  # type: ignore[attr-defined]
    assert f"{calls} calls: 0 cached, {calls} ok, 0 failed samples, 0 errors; {calls} HTTP" in out
    line = next(x for x in out.splitlines() if x.startswith(f"{calls} calls: "))
    assert line.endswith("; concurrency lowered from 8 to 2 (2 slots reported from the server)")
    assert out.count("concurrency lowered") == 1, "said once"
    said = [x for x in err.splitlines() if "slots" in x]
    assert said == [f"{url}: server reports 2 slots: running 2 calls at a time, not 8"]
    # and on the command's own output, once, before the calls' counts
    note = f"note: {url}: server reports 2 slots: running 2 calls at a time, not 8"
    assert out.count(note) == 1 and out.index(note) < out.index(line)


def test_the_json_summary_names_the_slots(tmp_path: Path, slots: ServerSlots) -> None:
    study = study_of(tmp_path, 2)
    with LlamaCppServer(slots, props=props(2)) as server:
        r = judge(study, spec("openai", server), "--json")
        url = server.openai_url
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    summary = json.loads(r.stdout)  # type: ignore[attr-defined]
    assert summary["server_slots"] == {url: 2}
    assert summary["concurrency"] == 8 and summary["concurrency_lowest"] == 2


def test_more_slots_than_concurrency_change_nothing(tmp_path: Path) -> None:
    study = study_of(tmp_path, 4)
    many = ServerSlots(GOOD, 16, crowd=8)  # the run's 8 at once, then answered
    with LlamaCppServer(many, props=props(16)) as server:
        r = judge(study, spec("openai", server))
        many.closing.set()
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert many.most == 8
    assert "slots" not in r.output and "concurrency lowered" not in r.output  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "answer",
    [None, props("two"), props(0), props(-3), props(True), props(2.5), {"total_slots": None}, []],
    ids=["404", "text", "zero", "negative", "bool", "fraction", "null", "not-an-object"],
)
def test_a_server_without_usable_props_keeps_the_concurrency(
    tmp_path: Path, answer: object
) -> None:
    study = study_of(tmp_path, 4)
    wide = ServerSlots(GOOD, 8, crowd=8)  # the first requests wait until 8 are in
    with LlamaCppServer(wide, props=answer) as server:
        r = judge(study, spec("openai", server))
        wide.closing.set()
        asked = server.count("/props")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert asked == 1
    assert wide.most == 8, f"{wide.most} in flight, not --concurrency 8"
    assert "slots" not in r.output and "concurrency lowered" not in r.output  # type: ignore[attr-defined]


def test_a_cached_run_asks_nothing(tmp_path: Path, slots: ServerSlots) -> None:
    study = study_of(tmp_path, 1)
    with LlamaCppServer(slots, props=props(2)) as server:
        assert judge(study, spec("openai", server)).exit_code == 0  # type: ignore[attr-defined]
        server.clear()
        again = judge(study, spec("openai", server))
        dry = judge(study, spec("openai", server), "--dry-run")
        assert again.exit_code == 0 and dry.exit_code == 0  # type: ignore[attr-defined]
        assert server.count() == 0, [q.path for q in server.requests]


# --------------------------------------------------------------------------- the timeout


def test_calls_queued_behind_our_slots_longer_than_the_timeout_do_not_time_out(
    tmp_path: Path,
) -> None:
    """16 calls, 2 at a time, each worked on for 0.4 s: the last ones wait longer than
    ``--timeout 2`` for a slot, and none of them times out. (Sent all at once, the server
    would queue them while their timeout ran: the last would time out and be sent again.)"""
    study = study_of(tmp_path, 4)
    calls = 4 * 2 * 2
    slow = ServerSlots(GOOD, 2, crowd=1, work_s=0.4)
    with LlamaCppServer(slow, props=props(2)) as server:
        r = judge(study, spec("openai", server), "--timeout", "2", concurrency=16)
        chats = server.chat_requests()
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    waited = chats[-1].received_at - chats[0].received_at
    assert waited > 2, f"the last call waited {waited:.2f} s for a slot: not beyond --timeout"
    assert len(chats) == calls, f"{len(chats)} requests for {calls} calls"
    assert slow.most <= 2
    assert f"{calls} ok, 0 failed samples, 0 errors; {calls} HTTP requests" in r.stdout  # type: ignore[attr-defined]


class _Instant(RetryingProvider):
    """A provider whose every attempt answers at once (no HTTP): what its timeout covers is
    the attempt alone."""

    def __init__(self, limit: AdaptiveLimit, timeout: float) -> None:
        super().__init__(
            "m",
            name="instant",
            timeout=timeout,
            max_retries=0,
            backoff_base=0.01,
            backoff_max=0.01,
            max_concurrency=None,
            secrets=(),
            on_close=None,
            adaptive=limit,
        )

    async def _send(self, req: ChatRequest) -> ChatResult:
        return ChatResult(
            text="{}", input_tokens=1, output_tokens=1, latency_s=0.0, model="m", attempts=0
        )

    def _translate(self, exc: Exception) -> None:
        return None

    async def _close_client(self) -> None:
        return None


def test_a_call_waiting_for_a_slot_spends_none_of_its_timeout() -> None:
    async def go() -> None:
        limit = AdaptiveLimit(1)
        provider = _Instant(limit, timeout=0.05)
        held = await limit.acquire()  # every slot taken: the call waits for it
        call = asyncio.ensure_future(
            provider.complete(
                ChatRequest(system="", messages=[{"role": "user", "content": "x"}], max_tokens=1)
            )
        )
        await asyncio.sleep(0.3)  # six timeouts' worth of waiting for the slot
        assert not call.done(), "it waits for the slot"
        limit.release(held, replied=True)
        result = await call
        assert result.attempts == 1 and result.text == "{}"

    asyncio.run(go())


# --------------------------------------------------------------------------- which servers


@pytest.mark.parametrize(
    ("judge_spec", "asked"),
    [
        ("openai:m@http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/props"),
        ("anthropic:m@http://127.0.0.1:8080", "http://127.0.0.1:8080/props"),
        ("anthropic:m@http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/props"),
        ("openai:m@https://llm.example.org/llama/v1", "https://llm.example.org/llama/props"),
        ("vllm:m", "http://127.0.0.1:8000/props"),
        ("ollama:m", "http://127.0.0.1:11434/props"),
        ("openai:gpt-4o", None),
        ("anthropic:claude-3-5-sonnet-20241022", None),
        ("openai:m@https://api.openai.com/v1", None),
        ("azure:gpt-4o@https://team.openai.azure.com", None),
        ("azure:gpt-4o@http://127.0.0.1:8080", None),
        ("gemini:gemini-2.0-flash", None),
        ("openrouter:m", None),
        ("local:smollm2", None),
    ],
)
def test_which_servers_are_asked(judge_spec: str, asked: str | None) -> None:
    parsed = parse_judge_spec(judge_spec)
    assert is_self_hosted(parsed) == (asked is not None)
    if asked is not None:
        assert props_url(parsed) == asked
