"""Slow and limited servers: a run lowers its concurrency while a server answers 429/503
or times out (AIMD: halve on overload, grow back slowly) and says so on its summary line;
``judge -v`` shows each retry; a run that gives up names ``--concurrency`` and ``--timeout``.

The servers here are the fake one with a fixed number of slots; they never sleep to line
requests up: the first requests wait on an event until the server has been crowded."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.adaptive import AdaptiveLimit, overload
from medjudge.judging.llm.failures import FailureWatch, Halt
from medjudge.judging.llm.provider_types import ProviderError
from medjudge.store.judgments import CallOutcome

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import pairwise_responder, prefer_marked, routing
from .support.studies import small_study

cli = CliRunner()
GOOD = routing(pairwise_responder(prefer_marked("Answer A")))


class Slots:
    """A server with ``slots`` places: a request beyond them gets 429 (``retry-after-ms``).

    The first accepted requests hold their place until a request was turned away (an event,
    not a timer), so a run that sends more than ``slots`` at once always meets the limit;
    after that each request holds its place for ``work_s`` (or until the test ends)."""

    def __init__(self, answer: Callable[[FakeRequest], Reply], slots: int, work_s: float) -> None:
        self.answer, self.slots, self.work_s = answer, slots, work_s
        self.lock = threading.Lock()
        self.busy = self.most = self.turned_away = 0
        self.crowded = threading.Event()
        self.closing = threading.Event()

    def __call__(self, req: FakeRequest) -> Reply:
        with self.lock:
            if self.busy >= self.slots:
                self.turned_away += 1
                self.crowded.set()
                return Reply.rate_limited(0.005, ms=True)
            self.busy += 1
            self.most = max(self.most, self.busy)
        try:
            self.crowded.wait(timeout=10)
            self.closing.wait(timeout=self.work_s)  # the request's work, in its place
            return self.answer(req)
        finally:
            with self.lock:
                self.busy -= 1


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=4, statements=0).close()
    return path


@pytest.fixture
def two_slots() -> Iterator[tuple[FakeLLMServer, Slots]]:
    slots = Slots(GOOD, 2, work_s=0.01)
    with FakeLLMServer(slots) as server:
        yield server, slots
        slots.closing.set()


# --------------------------------------------------------------------------- the limit


def test_the_limit_halves_once_per_overload_and_grows_back_slowly() -> None:
    async def go() -> None:
        limit = AdaptiveLimit(8)
        epochs = [await limit.acquire() for _ in range(8)]
        assert limit.in_flight == 8
        for e in epochs[:6]:  # six attempts of one crowded moment: one cut, not six
            limit.release(e, replied=False, overloaded="HTTP 429")
        assert limit.permits == 4 and limit.lowest == 4 and limit.reason == "HTTP 429"
        e = await limit.acquire()
        limit.release(e, replied=False, overloaded="HTTP 503")  # a new overload: cut again
        assert limit.permits == 2 and limit.reason == "HTTP 503"
        for e in epochs[6:]:
            limit.release(e, replied=True)  # replies grow it by 1/limit each
        assert limit.permits == 2 and 2.5 < limit.limit < 3
        for _ in range(200):
            limit.release(await limit.acquire(), replied=True)
        assert limit.permits == 8, "back to --concurrency, never past it"
        for _ in range(10):
            limit.release(await limit.acquire(), replied=False, overloaded="timeouts")
        assert limit.permits == 1 and limit.lowest == 1, "one attempt is always allowed"

    asyncio.run(go())


def test_a_full_limit_makes_attempts_wait_for_a_slot() -> None:
    async def go() -> None:
        limit = AdaptiveLimit(2)
        first, second = await limit.acquire(), await limit.acquire()
        third = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)  # one turn of the loop: it is waiting, not sleeping on time
        assert not third.done()
        limit.release(first, replied=False, overloaded="HTTP 429")  # now 1 slot: still full
        await asyncio.sleep(0)
        assert not third.done() and limit.permits == 1
        limit.release(second, replied=True)
        assert await third == 1 and limit.in_flight == 1

    asyncio.run(go())


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ProviderError("x", status=429, kind="rate_limit"), "HTTP 429"),
        (ProviderError("x", status=503, kind="server"), "HTTP 503"),
        (ProviderError("x", status=529, kind="server"), "HTTP 529"),
        (ProviderError("x", kind="timeout"), "timeouts"),
        (ProviderError("x", status=500, kind="server"), None),
        (ProviderError("x", kind="connection"), None),
        (ProviderError("x", status=400, kind="bad_request"), None),
    ],
)
def test_what_counts_as_an_overload(error: ProviderError, reason: str | None) -> None:
    assert overload(error) == reason


# --------------------------------------------------------------------------- through the CLI


def judge(study: Path, server: FakeLLMServer, *extra: str) -> object:
    return cli.invoke(
        app,
        ["judge", str(study), "-j", f"openai:m@{server.openai_url}", "--samples", "2", *extra],
    )


def test_a_two_slot_server_and_concurrency_8(
    study: Path, two_slots: tuple[FakeLLMServer, Slots]
) -> None:
    server, slots = two_slots
    r = judge(study, server, "--concurrency", "8", "-v")
    calls = 4 * 2 * 2  # items × AB/BA × samples
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    out, err = r.stdout, r.stderr  # type: ignore[attr-defined]
    assert f"{calls} calls: 0 cached, {calls} ok, 0 failed samples, 0 errors" in out, out
    line = next(x for x in out.splitlines() if x.startswith(f"{calls} calls: "))
    lowered = re.search(
        r"; concurrency lowered from 8 to (\d+) \(HTTP 429 from the server\)$", line
    )
    assert lowered and int(lowered.group(1)) < 8, line
    assert out.count("concurrency lowered") == 1, "said once"
    assert slots.turned_away >= 1 and slots.most <= 2
    assert server.count() < 3 * calls, f"{server.count()} requests for {calls} calls"
    # -v: each retry, with the call, the attempt, why and the wait
    retries = [x for x in err.splitlines() if x.startswith("retry: ")]
    assert len(retries) == slots.turned_away, err
    assert re.fullmatch(
        rf"retry: openai:m@{re.escape(server.openai_url)}: item \d+ pairwise/(AB|BA) sample [01]: "
        r"attempt \d+ failed \(HTTP 429: Rate limit exceeded \(fake\)\.\); retrying in 0\.\d\d s",
        retries[0],
    ), retries[0]
    assert "concurrency lowered from 8 to 4" in err
    assert "sk-" not in err


def test_v_shows_retries_after_a_library_reconfigured_logging(
    study: Path, two_slots: tuple[FakeLLMServer, Slots]
) -> None:
    """A library that called ``logging.config.dictConfig`` (which disables every logger that
    exists then) must not silence ``-v``: in the full suite an earlier test did exactly that."""
    import logging.config

    import medjudge.judging.llm.adaptive
    import medjudge.judging.llm.retrying  # noqa: F401 - their loggers exist, then are disabled

    loggers = [
        x for x in logging.Logger.manager.loggerDict.values() if isinstance(x, logging.Logger)
    ]
    before = {x: x.disabled for x in loggers}
    logging.config.dictConfig({"version": 1})  # disable_existing_loggers defaults to True
    try:
        server, slots = two_slots
        r = judge(study, server, "--concurrency", "8", "-v")
        assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
        err = r.stderr  # type: ignore[attr-defined]
        retries = [x for x in err.splitlines() if x.startswith("retry: ")]
        assert slots.turned_away >= 1 and len(retries) == slots.turned_away
    finally:
        for x, disabled in before.items():  # the next tests see logging as it was
            x.disabled = disabled


def test_without_v_no_retry_is_shown(study: Path, two_slots: tuple[FakeLLMServer, Slots]) -> None:
    server, slots = two_slots
    r = judge(study, server, "--concurrency", "8")
    assert r.exit_code == 0 and slots.turned_away >= 1, r.output  # type: ignore[attr-defined]
    assert "retry: " not in r.output  # type: ignore[attr-defined]
    assert "concurrency lowered from 8" in r.stdout  # type: ignore[attr-defined]


def test_a_run_that_gives_up_names_concurrency_and_timeout(study: Path) -> None:
    with FakeLLMServer(lambda req: Reply.rate_limited(0.001, ms=True)) as server:
        r = judge(study, server, "--concurrency", "2")
    assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
    line = r.stderr.strip().splitlines()[-1]  # type: ignore[attr-defined]
    assert line.startswith("error: the judge run failed: 5 calls in a row failed alike"), line
    assert "HTTP 429" in line and "--concurrency" in line and "--timeout" in line


def outcome(kind: str, status: int | None) -> CallOutcome:
    return CallOutcome(
        key="k",
        status="error",
        cost_usd=0.0,
        input_tokens=0,
        output_tokens=0,
        attempts=5,
        judge="j",
        task="t",
        error="j: no reply within 5 s",
        error_kind=kind,
        error_status=status,
    )


@pytest.mark.parametrize(
    ("kind", "status", "hinted"),
    [("timeout", None, True), ("server", 503, True), ("server", 500, False)],
)
def test_the_give_up_message_for_slow_servers(kind: str, status: int | None, hinted: bool) -> None:
    watch = FailureWatch(Halt())
    for _ in range(5):
        watch.see(outcome(kind, status))
    assert watch.cause is not None
    assert ("--concurrency" in watch.cause and "--timeout" in watch.cause) == hinted
