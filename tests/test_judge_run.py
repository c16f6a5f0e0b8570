"""The judge runner end to end: real SDKs against the fake server, a real study file."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.llm.runner import RunOptions, RunSummary, run_judges
from medjudge.judging.llm.specs import parse_judge_spec
from medjudge.judging.protocol import templates
from medjudge.judging.protocol.plan import JudgeConfig
from medjudge.store.importing.run import import_file
from medjudge.store.judgments import item_verdicts
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, Reply
from .support.judges import flip_sample, pairwise_responder, prefer_first, prefer_marked, routing
from .support.kind_rows import statements_row, write_jsonl
from .support.runs import judge_for, judged_study, run


def verdicts(study: Study) -> dict[tuple[str, str], str | None]:
    rows = study.conn.execute(
        "SELECT i.ext_id, u.criterion, l.value FROM units u JOIN items i ON i.id = u.item_id "
        "LEFT JOIN labels l ON l.unit_id = u.id ORDER BY i.id, u.position"
    )
    return {(r[0], r[1]): r[2] for r in rows}


def test_position_bias_gives_inconsistency_and_null_verdict(tmp_path: Path) -> None:
    study = judged_study(tmp_path)
    with FakeLLMServer(routing(pairwise_responder(prefer_first))) as server:
        summary = run(study, [judge_for(server)])
    assert summary.calls_needed == 4 * 2 * 3 and summary.ok == 24
    assert summary.position_inconsistent == 4 * 6
    nulls = {
        "correctness": "tie",
        "helpfulness": "tie",
        "reasoning": "tie",
        "efficiency": "tie",
        "harmfulness": "neither",
        "bias": "neither",
    }
    for (_, criterion), value in verdicts(study).items():
        assert value == nulls[criterion]
    trail = item_verdicts(study, 1)[0].trail
    assert trail["position_inconsistent"] is True
    assert trail["orders"]["AB"]["votes"] == ["A", "A", "A"]
    assert trail["orders"]["BA"]["votes"] == ["B", "B", "B"]  # mapped back to the item's answers


def test_consistent_judge_and_one_flipped_sample_keep_the_majority(tmp_path: Path) -> None:
    study = judged_study(tmp_path)
    with FakeLLMServer(
        routing(pairwise_responder(flip_sample(prefer_marked("GOOD"), flipped=1)))
    ) as server:
        summary = run(study, [judge_for(server)])
    assert summary.position_inconsistent == 0
    assert set(verdicts(study).values()) == {"A"}
    trail = item_verdicts(study, 1)[0].trail
    assert trail["orders"]["AB"]["votes"] == ["A", "B", "A"]
    assert trail["orders"]["AB"]["samples_disagreed"] is True


def test_unparseable_replies_are_failed_samples_and_missing_verdicts(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=2)
    with FakeLLMServer(lambda req: Reply("I cannot decide, both are fine.")) as server:
        summary = run(study, [judge_for(server)], parse_retries=1)
        # each of the 12 calls was tried twice (1 retry for the parse failure)
        assert server.count() == 24
    assert summary.failed == 12 and summary.ok == 0
    assert summary.missing_verdicts == 12
    assert set(verdicts(study).values()) == {None}  # missing, never a tie
    rows = study.conn.execute("SELECT status, raw, error FROM judge_calls").fetchall()
    assert {r[0] for r in rows} == {"failed"}
    assert rows[0][1] == "I cannot decide, both are fine." and "unparseable" in rows[0][2]
    status = [r[0] for r in study.conn.execute("SELECT DISTINCT status FROM verdicts")]
    assert status == ["missing"]


def test_one_order_without_valid_samples_makes_the_verdict_missing(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=1)
    good = pairwise_responder(prefer_marked("GOOD"))

    def respond(req):  # type: ignore[no-untyped-def]
        # BA order: the GOOD answer is shown second
        return Reply("garbage") if "GOOD" in req.prompt_text.split("<response_b>")[1] else good(req)

    with FakeLLMServer(respond) as server:
        summary = run(study, [judge_for(server)], parse_retries=0)
    assert summary.missing_verdicts == 6
    trail = item_verdicts(study, 1)[0].trail
    assert trail["rule"].startswith("missing: BA")


def test_second_run_makes_zero_requests(tmp_path: Path) -> None:
    study = judged_study(tmp_path)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        first = run(study, [judge_for(server)])
        n = server.count()
        second = run(study, [judge_for(server)])
        assert server.count() == n
    assert first.to_call == 24 and second.to_call == 0 and second.cached == 24
    assert second.verdicts_added == 0  # identical verdicts are not appended again


def test_retry_after_and_server_errors_are_retried(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=1)
    good = routing(pairwise_responder(prefer_marked()))
    seen: set[str] = set()

    def respond(req):  # type: ignore[no-untyped-def]
        key = req.prompt_text + str(req.json.get("seed"))
        if key not in seen:
            seen.add(key)
            return Reply.rate_limited(0.05) if len(seen) % 2 else Reply.server_error()
        return good(req)

    with FakeLLMServer(respond) as server:
        summary = run(study, [judge_for(server)])
        assert server.count() == 12
    assert summary.ok == 6 and summary.errors == 0 and summary.requests == 12


def test_transport_errors_are_not_cached(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=1)
    with FakeLLMServer(lambda req: Reply.error(400, "bad request")) as server:
        s1 = run(study, [judge_for(server)])
        assert s1.errors == 6
        server.responder = routing(pairwise_responder(prefer_marked()))
        s2 = run(study, [judge_for(server)])
    assert s2.to_call == 6 and s2.ok == 6
    assert set(verdicts(study).values()) == {"A"}


def test_anthropic_judge_and_panel(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=2)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        openai_j = judge_for(server)
        anthropic_j = judge_for(server, "anthropic")
        summary = run(study, [openai_j, anthropic_j])
        paths = {r.path for r in server.requests}
    assert paths == {"/v1/chat/completions", "/v1/messages"}
    assert summary.ok == 24
    names = {r["name"] for r in study.raters("judge")}
    assert f"panel:{openai_j.rater}+{anthropic_j.rater}" in names
    panel = [v for v in item_verdicts(study, 1) if v.judge.startswith("panel:")]
    assert {v.value for v in panel} == {"A"} and panel[0].trail["rule"] == "unanimous"


def test_statements_nli_and_kqa_protocols(tmp_path: Path) -> None:
    study = Study.create(tmp_path / "s.db")
    row = statements_row(1, answer="Says Must 1.1 clearly. Also NOT Nice 1.1 at all.")
    import_file(study, write_jsonl(tmp_path / "s.jsonl", [row]), "statements", actor="t")
    with FakeLLMServer(routing(pairwise_responder(prefer_first))) as server:
        run(study, [judge_for(server, samples=1)])
        nli = [v.value for v in item_verdicts(study, 1)]
        kqa = JudgeConfig(
            parse_judge_spec(f"openai:fake2@{server.openai_url}"),
            samples=1,
            statements_protocol="kqa",
        )
        s = run(study, [kqa])
    assert nli == ["entailed", "neutral", "contradicted"]
    assert s.calls_needed == 6  # 3 statements × 2 questions
    by_judge: dict[str, list[str | None]] = {}
    for v in item_verdicts(study, 1):
        by_judge.setdefault(v.judge, []).append(v.value)
    assert by_judge[kqa.rater] == ["entailed", "neutral", "contradicted"]


def test_dry_run_and_max_cost(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=3)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        j = judge_for(server)
        dry = run(study, [j], dry_run=True, price_override=(1000.0, 1000.0))
        assert server.count() == 0
        assert dry.to_call == 18 and dry.est_input_tokens > 0 and dry.est_cost_usd > 0
        capped = run(study, [j], max_cost=dry.est_cost_usd / 3, price_override=(1000.0, 1000.0))
        made = server.count()
    assert capped.stopped and "max-cost" in capped.stopped
    assert 0 < made < 18
    assert capped.cost_usd <= dry.est_cost_usd / 3 + 1e-9


def test_template_change_never_reuses_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = judged_study(tmp_path, n=1)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        run(study, [judge_for(server)])
        original = templates.load("pairwise")
        changed = templates.parse_template("pairwise_v2", original.text + "\nBe brief.")
        templates.load.cache_clear()
        monkeypatch.setattr(
            templates, "load", lambda task: changed if task == "pairwise" else original
        )
        import medjudge.judging.protocol.plan as plan_mod

        monkeypatch.setattr(plan_mod, "load", templates.load)
        n = server.count()
        again = run(study, [judge_for(server)])
        assert server.count() - n == 6
    assert again.cached == 0
    hashes = {r[0] for r in study.conn.execute("SELECT template_hash FROM judge_calls")}
    assert hashes == {original.hash, changed.hash}


def test_cli_judge_and_export_verdicts_show_the_trail(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=1)
    path = str(study.path)
    study.close()
    runner = CliRunner()
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        r = runner.invoke(
            app, ["judge", path, "-j", f"openai:fake@{server.openai_url}", "--dry-run"]
        )
        assert r.exit_code == 0, r.output
        assert "6 calls needed: 0 cached, 6 to make" in r.output
        r = runner.invoke(app, ["judge", path, "-j", f"openai:fake@{server.openai_url}"])
        assert r.exit_code == 0, r.output
        assert "verdicts written: 6" in r.output
    r = runner.invoke(app, ["export", path, "verdicts"])
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert len(rows) == 6 and rows[0]["value"] == "A" and rows[0]["current"] == 1
    assert rows[0]["trail"]["orders"]["AB"]["votes"] == ["A", "A", "A"]
    assert len(rows[0]["trail"]["orders"]["AB"]["calls"]) == 3
    r = runner.invoke(app, ["judge", path, "-j", "nonsense"])
    assert r.exit_code == 2 and "--judge" in r.output  # a usage error
    r = runner.invoke(app, ["judge", path, "-j", "openai:gpt-4o"])
    assert r.exit_code == 1 and "OPENAI_API_KEY" in r.output and "Traceback" not in r.output


def test_sharded_run_over_worker_processes_matches_one_process(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = judged_study(tmp_path / "a", n=6), judged_study(tmp_path / "b", n=6)
    with FakeLLMServer(
        routing(pairwise_responder(flip_sample(prefer_marked("GOOD"), flipped=2)))
    ) as server:
        s1 = run(one, [judge_for(server)])
        n1 = server.count()
        s2 = run(two, [judge_for(server)], workers=2)
        assert server.count() - n1 == n1 == 36  # each call exactly once in both
    assert (s2.ok, s2.requests, s2.verdicts_added) == (s1.ok, s1.requests, s1.verdicts_added)
    assert verdicts(one) == verdicts(two)

    def keys(s: Study) -> list[str]:
        return sorted(r[0] for r in s.conn.execute("SELECT key FROM judge_calls"))

    assert keys(one) == keys(two)


def test_sharded_run_keeps_the_cost_limit(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=6)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        j = judge_for(server)
        dry = run(study, [j], dry_run=True, price_override=(1000.0, 1000.0))
        limit = dry.est_cost_usd / 4
        capped = run(study, [j], max_cost=limit, price_override=(1000.0, 1000.0), workers=2)
    assert capped.stopped and 0 < capped.ok < 36
    assert capped.cost_usd <= limit + 1e-9


class _CancelAfter:
    """A RunDisplay that cancels the run after a number of calls."""

    def __init__(self, event: threading.Event, after: int) -> None:
        self.event, self.after, self.seen = event, after, 0

    def started(self, summary: RunSummary) -> None:
        pass

    def call_done(self, event: object, summary: RunSummary) -> None:
        self.seen += 1
        if self.seen >= self.after:
            self.event.set()

    def finished(self, summary: RunSummary) -> None:
        pass


@pytest.mark.parametrize("workers", [1, 2])
def test_cancel_stops_cleanly_and_the_next_run_finishes(tmp_path: Path, workers: int) -> None:
    study = judged_study(tmp_path, n=8)  # 8 items × 2 orders × 3 samples = 48 calls
    cancel = threading.Event()
    with FakeLLMServer(routing(pairwise_responder(prefer_marked())), latency=0.02) as server:
        options = RunOptions(concurrency=2, cancel=cancel, workers=workers)
        stopped = asyncio.run(
            run_judges(study, [judge_for(server)], options, _CancelAfter(cancel, 6))
        )
        made = server.count()
        assert stopped.stopped == "cancelled"
        assert 6 <= stopped.ok < 48 and made == stopped.requests
        judged = {k for k, v in verdicts(study).items() if v is not None}
        # only items whose calls were all in got verdicts: whole items (6 criteria each)
        assert len(judged) % 6 == 0 and len(judged) < 48
        if workers == 1:  # calls go out in item order, so the first item is complete
            assert len(judged) >= 6
        rest = run(study, [judge_for(server)])
        assert rest.stopped is None and rest.cached == stopped.ok
        assert server.count() - made == 48 - stopped.ok  # nothing stored was asked again
    assert set(verdicts(study).values()) == {"A"}


def test_worker_processes_do_not_import_the_programs_main_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spawned worker re-imports the parent's main module; for `medjudge` that is the console
    script and with it the whole CLI. Workers start from the runner's module instead."""
    import importlib.util
    import sys

    marker = tmp_path / "imported"
    script = tmp_path / "fake_main.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('imported\\n')\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("__main__", script)
    assert spec is not None and spec.loader is not None
    main = importlib.util.module_from_spec(spec)
    main.__spec__ = None  # like a script run by path (a console script)
    spec.loader.exec_module(main)
    assert marker.read_text() == "imported\n"  # the parent ran it once
    monkeypatch.setitem(sys.modules, "__main__", main)
    study = judged_study(tmp_path, n=2)
    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        summary = run(study, [judge_for(server)], workers=2)
    assert summary.ok == server.count() == 12
    assert marker.read_text() == "imported\n"  # no worker imported it again
    assert sys.modules["__main__"] is main  # and the parent's main module is back


def test_verdicts_are_written_while_later_calls_are_still_in_flight(tmp_path: Path) -> None:
    """An item's verdicts are stored as soon as its calls are in, not after the whole run: the
    fake judge holds the last item's replies until it sees other items' verdicts in the file."""
    n = 70
    study = judged_study(tmp_path, n)
    last = f"GOOD answer {n - 1}"
    answer = pairwise_responder(prefer_marked())
    seen: list[int] = []

    def respond(req):  # type: ignore[no-untyped-def]
        if last in req.prompt_text:
            import sqlite3
            import time

            deadline = time.monotonic() + 15
            count = 0
            while time.monotonic() < deadline:
                with sqlite3.connect(study.path) as conn:
                    count = conn.execute("SELECT count(*) FROM verdicts").fetchone()[0]
                if count:
                    break
                time.sleep(0.02)
            seen.append(count)
        return answer(req)

    with FakeLLMServer(routing(respond)) as server:
        summary = run(study, [judge_for(server, samples=1)])
    assert summary.calls_needed == 2 * n and summary.ok == 2 * n
    assert seen and min(seen) > 0, "no verdict was stored before the last item's calls returned"
    assert all(v == "A" for v in verdicts(study).values())  # the live verdicts are complete
    assert summary.verdicts_added == len(verdicts(study))


def test_runs_shard_over_workers_only_past_what_one_process_keeps_up_with() -> None:
    import os
    from types import SimpleNamespace

    from medjudge.judging.llm.workers import PROCESS_CONCURRENCY, SHARD_THRESHOLD, worker_count

    def calls(provider: str, n: int) -> list:  # type: ignore[type-arg]
        spec = SimpleNamespace(judge=SimpleNamespace(spec=SimpleNamespace(provider=provider)))
        return [spec] * n

    big = calls("openai", SHARD_THRESHOLD)
    cpus = max(1, min(os.cpu_count() or 1, 4))
    assert worker_count(big, None, 64) == 1
    assert worker_count(big, None, PROCESS_CONCURRENCY) == 1
    assert worker_count(big, None, PROCESS_CONCURRENCY + 1) == cpus
    assert worker_count(calls("openai", SHARD_THRESHOLD - 1), None, 512) == 1
    assert worker_count(big, 3, 8) == 3  # --workers decides
    assert worker_count(calls("local", SHARD_THRESHOLD), 3, 512) == 1  # one model in memory


def test_an_interrupted_run_keeps_the_verdicts_written_and_leaves_no_thread(
    tmp_path: Path,
) -> None:
    """Ctrl-C in the middle of a run: the run is recorded as interrupted, the verdicts already
    written for items whose calls were all in stay, and the resolving thread is gone."""
    n = 120
    study = judged_study(tmp_path, n)

    class Interrupt:
        def started(self, summary: RunSummary) -> None:
            pass

        def call_done(self, event: object, summary: RunSummary) -> None:
            if summary.ok == 180:
                raise KeyboardInterrupt

        def finished(self, summary: RunSummary) -> None:
            pass

    with FakeLLMServer(routing(pairwise_responder(prefer_marked()))) as server:
        with pytest.raises(KeyboardInterrupt):
            asyncio.run(
                run_judges(
                    study,
                    [judge_for(server, samples=1)],
                    RunOptions(concurrency=4),
                    Interrupt(),
                )
            )
    assert not [t for t in threading.enumerate() if t.name.startswith("medjudge-verdicts")]
    (status,) = study.conn.execute("SELECT status FROM judge_runs").fetchone()
    assert status == "interrupted"
    written = {
        r[0]
        for r in study.conn.execute(
            "SELECT i.ext_id FROM verdicts v JOIN units u ON u.id = v.unit_id "
            "JOIN items i ON i.id = u.item_id"
        )
    }
    assert written, "items whose calls were all in before the interrupt keep their verdicts"
    stored = {
        r[0]
        for r in study.conn.execute(
            "SELECT i.ext_id FROM judge_calls c JOIN items i ON i.id = c.item_id "
            "GROUP BY c.item_id HAVING count(*) = 2"
        )
    }
    assert written <= stored  # no verdict for an item with a call missing


def test_a_run_goes_on_while_another_connection_holds_the_write_lock(tmp_path: Path) -> None:
    """Another writer holds the study's write lock for a while in the middle of a run: the
    replies wait for it (the event loop does not block on the lock) and are all stored."""
    import sqlite3
    import time

    n = 30
    study = judged_study(tmp_path, n)
    answer = pairwise_responder(prefer_marked())
    held = threading.Event()
    released = threading.Event()

    def hold_lock() -> None:
        conn = sqlite3.connect(study.path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(0.6)
        conn.execute("COMMIT")
        conn.close()
        released.set()

    def respond(req):  # type: ignore[no-untyped-def]
        if req.index == 20:
            threading.Thread(target=hold_lock).start()
            held.wait(5)
        return answer(req)

    with FakeLLMServer(routing(respond)) as server:
        summary = run(study, [judge_for(server, samples=1)])
    assert held.is_set() and released.is_set()
    assert summary.ok == 2 * n and summary.errors == 0
    (stored,) = study.conn.execute("SELECT count(*) FROM judge_calls").fetchone()
    assert stored == 2 * n
    assert all(v == "A" for v in verdicts(study).values())


def test_the_call_writer_never_blocks_the_event_loop_on_the_lock(tmp_path: Path) -> None:
    import sqlite3
    import time

    from medjudge.judging.llm.calls import CallWriter, call_row
    from medjudge.judging.llm.runner import plan

    study = judged_study(tmp_path, 1)
    with FakeLLMServer() as server:
        judges = [judge_for(server, samples=1)]
    from medjudge.judging.protocol.versions import register_judges

    judges = register_judges(study, judges, actor="t")
    _, calls = plan(study, judges, RunOptions())
    row = call_row(calls[0])
    row["status"] = "ok"

    other = sqlite3.connect(study.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock

    async def scenario() -> float:
        writer = CallWriter(str(study.path))
        stored = writer.submit(row)
        gaps, last = [], time.monotonic()
        for _ in range(40):  # 0.4 s of 10 ms ticks while the lock is held
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now
        assert not stored.done()
        other.execute("COMMIT")
        await asyncio.wait_for(stored, 5)
        writer.close()
        return max(gaps)

    worst = asyncio.run(scenario())
    other.close()
    assert worst < 0.2, f"the loop stalled {worst:.2f} s waiting for the lock"
    (n,) = study.conn.execute("SELECT count(*) FROM judge_calls").fetchone()
    assert n == 1
