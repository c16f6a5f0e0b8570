"""Crash safety: SIGKILL at random moments loses nothing that was shown as saved.

docs/design.md §7: "a killed process loses nothing that was shown as saved" and "resumable after a
kill with no call paid twice". Both are checked against real processes killed with SIGKILL
(no cleanup, no atexit, no flush), with a seeded RNG so every run kills at the same offsets.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from medjudge.judging.llm.runner import RunOptions, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.llm.workers import SHARD_THRESHOLD
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, FakeRequest, Reply
from .support.judges import flip_sample, pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row, write_jsonl
from .support.studies import small_study

PROCS = Path(__file__).resolve().parent / "procs"
SEED = 20240607


class Child:
    """A child process whose stdout lines are collected by a thread (so a kill never blocks)."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1, env=env
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not line.endswith("\n"):
                break  # a line cut by the kill was never completely shown
            self.lines.append(line.rstrip("\n"))
            if line.startswith("ready"):
                self.ready.set()
        self.ready.set()

    def kill(self) -> str:
        """SIGKILL, reap, and return stderr."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._reader.join(timeout=10)
        assert self.proc.stderr is not None
        return self.proc.stderr.read()


def check_integrity(path: Path) -> None:
    """The file passes SQLite's full check and opens as a study."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    with Study.open(path) as s:
        assert s.settings.name


# --------------------------------------------------------------------------- (a) labels


def test_sigkill_while_labelling_loses_no_saved_label(tmp_path: Path) -> None:
    """15 SIGKILLs at random moments of a tight set_label loop: every label the process
    printed as saved is in the study with its value (or a later one), the file is intact."""
    path = tmp_path / "crash.db"
    small_study(path, pairwise=20, statements=5, actor="t").close()
    rng = random.Random(SEED)
    reported: dict[int, tuple[int, str]] = {}  # history id → (unit, value), as printed
    kills = 0
    for round_ in range(15):
        child = Child(
            [sys.executable, str(PROCS / "labeller.py"), str(path), "dr.crash", str(SEED + round_)]
        )
        assert child.ready.wait(30), "the labeller never opened the study"
        time.sleep(rng.uniform(0.05, 0.4))
        stderr = child.kill()
        kills += 1
        assert child.lines and child.lines[0].startswith("ready"), stderr
        for line in child.lines[1:]:
            tag, unit_text, value, hid_text = line.split()
            assert tag == "saved", line
            reported[int(hid_text)] = (int(unit_text), value)
        check_integrity(path)
        conn = sqlite3.connect(path)
        history = {
            r[0]: (r[1], r[2])
            for r in conn.execute(
                "SELECT h.id, h.unit_id, h.new_value FROM label_history h "
                "JOIN raters r ON r.id = h.rater_id WHERE r.name = 'dr.crash'"
            )
        }
        current = dict(
            conn.execute(
                "SELECT l.unit_id, l.value FROM labels l JOIN raters r ON r.id = l.rater_id "
                "WHERE r.name = 'dr.crash'"
            ).fetchall()
        )
        conn.close()
        # Every printed save is in the history, exactly as printed.
        for hid, saved in reported.items():
            assert history.get(hid) == saved, f"round {round_}: saved label {hid} {saved} lost"
        # At most one write per kill can be committed but not yet printed.
        assert len(set(history) - set(reported)) <= kills
        # The current value of each unit is its latest history row: the printed value, or a
        # later write that the kill stopped from being printed.
        latest: dict[int, tuple[int, str]] = {}
        for hid, (unit, value) in sorted(history.items()):
            latest[unit] = (hid, value)
        for unit, (_hid, value) in latest.items():
            assert current.get(unit) == value, f"unit {unit}: label {current.get(unit)} != {value}"
    assert len(reported) > 15 * 5, "too few labels between kills to mean anything"


# --------------------------------------------------------------------------- (b) judge run


def call_identity(messages: list[dict[str, str]], seed: object, model: str) -> str:
    """What makes one judge call: its messages, its seed (the sample) and the model."""
    return json.dumps([[(m["role"], m["content"]) for m in messages], seed, model])


def request_identity(req: FakeRequest) -> str:
    body = req.json or {}
    return call_identity(body["messages"], body.get("seed"), body["model"])


def stored_identities(path: Path) -> set[str]:
    """Calls with a final row (ok or failed) in the study right now."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT messages, params, model FROM judge_calls WHERE status IN ('ok', 'failed')"
        ).fetchall()
    finally:
        conn.close()
    return {call_identity(json.loads(m), json.loads(p)["seed"], model) for m, p, model in rows}


def judge_responder() -> Callable[[FakeRequest], Reply]:
    """Deterministic by request content: a consistent judge with one flipped sample, and a
    garbage reply for some calls (failed samples, which must not be re-requested either)."""
    good = routing(pairwise_responder(flip_sample(prefer_marked("GOOD"), flipped=2)))

    def respond(req: FakeRequest) -> Reply:
        text = req.prompt_text
        if "Question 7?" in text and (req.json or {}).get("seed") == 1:
            return Reply("I would rather not say.")
        return good(req)

    return respond


def final_verdicts(path: Path) -> dict[tuple[str, str], tuple[str | None, str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT i.ext_id, u.criterion, v.value, v.status FROM verdicts v "
            "JOIN units u ON u.id = v.unit_id JOIN items i ON i.id = u.item_id "
            "WHERE v.id = (SELECT max(v2.id) FROM verdicts v2 WHERE v2.unit_id = v.unit_id "
            "AND v2.rater_id = v.rater_id)"
        ).fetchall()
    finally:
        conn.close()
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


@pytest.mark.parametrize(
    ("n_items", "kills"), [(40, 4), (170, 2)], ids=["one process", "sharded over workers"]
)
def test_sigkilled_judge_run_never_pays_twice_for_a_stored_call(
    n_items: int, kills: int, tmp_path: Path
) -> None:
    """Kill `medjudge judge` (concurrency 8, 50 ms per reply) mid-flight, then let it finish:
    no stored call is requested again, only calls in flight at a kill are paid twice, and the
    verdicts equal those of an uninterrupted run. Sharded over worker processes (--workers 2),
    the workers must die with the killed parent (or they would go on paying)."""
    concurrency = 8
    sharded = n_items * 6 >= SHARD_THRESHOLD
    path = tmp_path / "judge.db"
    rows = [
        pairwise_row(
            i,
            answer_a=f"GOOD answer {i}" if i % 3 else f"Plain answer {i}",
            answer_b=f"Plain answer {i}" if i % 3 else f"GOOD answer {i}",
        )
        for i in range(n_items)
    ]
    with Study.create(path, actor="t") as s:
        import_file(s, write_jsonl(tmp_path / "pw.jsonl", rows), "pairwise", actor="t")
    baseline_path = tmp_path / "baseline.db"
    shutil.copy(path, baseline_path)

    rng = random.Random(SEED)
    with FakeLLMServer(judge_responder(), latency=0.05) as server:
        args = [
            sys.executable,
            "-m",
            "medjudge",
            "judge",
            str(path),
            "-j",
            f"openai:fake@{server.openai_url}",
            "--concurrency",
            str(concurrency),
            "--samples",
            "3",
            *(["--workers", "2"] if sharded else []),
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        boundaries: list[int] = []  # server.count() when each killed process was dead
        stored_at_kill: list[set[str]] = []
        for _ in range(kills):
            start = server.count()
            child = Child(args, env)
            deadline = time.monotonic() + 30
            while server.count() == start:  # wait for the first request of this lifetime
                assert child.proc.poll() is None, child.proc.stderr.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the judge run made no request"
                time.sleep(0.005)
            time.sleep(rng.uniform(0.1, 0.45))
            child.kill()
            if sharded:
                time.sleep(0.5)  # the workers get their SIGKILL from the kernel (PDEATHSIG)
            boundaries.append(server.count())
            stored_at_kill.append(stored_identities(path))
            check_integrity(path)
        done = subprocess.run(args, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        requests = server.requests

    # Which lifetime each request belongs to (the kills split the request log).
    def lifetime(index: int) -> int:
        return next((k for k, b in enumerate(boundaries) if index < b), len(boundaries))

    # A request cut off by the kill mid-upload never reached a provider as a request.
    requests = [r for r in requests if isinstance(r.json, dict) and "messages" in r.json]
    per_call: dict[str, Counter[int]] = {}
    for req in requests:
        per_call.setdefault(request_identity(req), Counter())[lifetime(req.index)] += 1
    # 1. A call stored (ok/failed) when a process was killed is never requested afterwards.
    for k, stored in enumerate(stored_at_kill):
        again = [
            c
            for c in stored
            for later in range(k + 1, len(boundaries) + 1)
            if per_call.get(c, Counter())[later]
        ]
        assert not again, f"{len(again)} call(s) stored before kill {k + 1} were requested again"
    # 2. Only calls in flight at a kill (requested, not recorded) are paid in two lifetimes,
    #    at most `concurrency` of them per kill.
    repaid = {c: n for c, n in per_call.items() if len(+n) > 1}
    for k in range(len(boundaries)):
        in_flight = [c for c, n in repaid.items() if n[k] and c not in stored_at_kill[k]]
        assert len(in_flight) <= concurrency, f"kill {k + 1}: {len(in_flight)} calls paid twice"
    distinct = len(per_call)
    assert distinct == n_items * 2 * 3
    # Within one lifetime a call is requested once, or twice when its reply is garbage
    # (parse_retries=1): nothing is requested twice by the same run.
    expected = {c: 2 if "Question 7?" in c and json.loads(c)[1] == 1 else 1 for c in per_call}
    for c, n in per_call.items():
        assert max(n.values()) <= expected[c], f"requested {dict(n)} times in one run"
    assert len(repaid) <= len(boundaries) * concurrency
    # The bound, with a garbage reply's in-run parse retry not counted as a repeat.
    parse_retries = sum(n - 1 for c in per_call.values() for n in c.values())
    assert len(requests) - parse_retries <= distinct + len(boundaries) * concurrency
    assert len(requests) <= sum(expected.values()) + sum(
        expected[c] * (len(+n) - 1) for c, n in repaid.items()
    )
    # 3. The interrupted-and-resumed study ends with exactly the verdicts of a clean run.
    with FakeLLMServer(judge_responder(), latency=0.0) as clean_server:
        with Study.open(baseline_path) as b:
            judge = JudgeConfig(
                parse_judge_spec(f"openai:fake@{clean_server.openai_url}"), samples=3
            )
            options = RunOptions(concurrency=concurrency, workers=1)
            asyncio.run(run_judges(b, [judge], options))
    resumed, clean = final_verdicts(path), final_verdicts(baseline_path)
    assert len(clean) == n_items * 6
    assert resumed == clean
    check_integrity(path)
