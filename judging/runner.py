"""Running judges over a study: plan, skip what is cached, call, record, resolve.

Concurrency and storage contract:
- Calls run as asyncio tasks bounded by a semaphore (``concurrency``); providers retry
  429/5xx with backoff that honours ``Retry-After``, each attempt under a timeout.
- Every reply is handed to :class:`CallWriter`, a thread with its own connection that commits
  it at once (WAL, ``synchronous=NORMAL``: durable when the process is killed), so a run
  killed at any moment resumes without paying again for what it had received.
- Cached calls (status ``ok`` or ``failed``) are never requested again; ``error`` rows are.
- ``max_cost`` stops scheduling new calls once the spend would pass it; calls in flight
  finish, verdicts are resolved for the items whose calls are all in, and the run says so.
- Progress goes to a :class:`RunDisplay`; nothing here knows about terminals.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from medjudge.store.db import connect
from medjudge.store.items import Item, get_item, list_items
from medjudge.store.judgments import (
    NewVerdict, cached_calls, finish_run, record_call, start_run, write_verdicts,
)
from medjudge.store.study import Study, dumps, utcnow

from . import protocol, replies
from .plan import CallSpec, JudgeConfig, plan_item
from .pricing import Price, estimate_tokens, price_for
from .providers import ChatRequest, Provider, ProviderError, make_provider
from .resolve import Outcome, VerdictOut, resolve_item


@dataclass
class RunOptions:
    """How to run."""

    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 4
    parse_retries: int = 1
    """Extra requests for a reply that does not parse, before it is a failed sample."""
    max_cost: float | None = None
    dry_run: bool = False
    panel_rule: str = "conservative"
    kinds: tuple[str, ...] = ("pairwise", "statements", "rating")
    item_ids: Sequence[int] | None = None
    price_override: tuple[float, float] | None = None
    api_keys: dict[str, str] = field(default_factory=dict)
    actor: str = "medjudge"


@dataclass
class CallEvent:
    """One finished call, for progress displays."""

    judge: str
    task: str
    status: str
    cost: float


@dataclass
class RunSummary:
    """What a run did (or, for a dry run, would do)."""

    calls_needed: int = 0
    cached: int = 0
    to_call: int = 0
    requests: int = 0
    ok: int = 0
    failed: int = 0
    errors: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    est_input_tokens: int = 0
    est_output_tokens: int = 0
    est_cost_usd: float = 0.0
    unknown_prices: list[str] = field(default_factory=list)
    verdicts_added: int = 0
    missing_verdicts: int = 0
    position_inconsistent: int = 0
    stopped: str | None = None
    elapsed_s: float = 0.0
    run_id: int | None = None


class RunDisplay(Protocol):
    """What a run reports as it goes (a progress bar, a TUI widget, a list in tests)."""

    def started(self, summary: RunSummary) -> None:
        """Planning is done: ``calls_needed``, ``cached`` and ``to_call`` are known."""

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """One call finished (ok, failed or error)."""

    def finished(self, summary: RunSummary) -> None:
        """The run is over (verdicts written)."""


class CallWriter(threading.Thread):
    """Commits call results from a queue, one small transaction per batch, on its own connection."""

    def __init__(self, study: Study) -> None:
        """Open a dedicated connection to the study."""
        super().__init__(name="medjudge-call-writer", daemon=True)
        self.conn = connect(study.path)
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.error: BaseException | None = None

    def run(self) -> None:
        """Drain the queue until the sentinel arrives."""
        done = False
        while not done:
            rows = [self.queue.get()]
            while True:
                try:
                    rows.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            if None in rows:
                done = True
                rows = [r for r in rows if r is not None]
            if not rows:
                continue
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                for row in rows:
                    record_call(self.conn, row)
                self.conn.execute("COMMIT")
            except BaseException as exc:  # reported by close()
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                self.error = exc
                done = True
        self.conn.close()

    def close(self) -> None:
        """Flush everything queued and stop; re-raise a write error."""
        self.queue.put(None)
        self.join()
        if self.error is not None:
            raise self.error


def parse_reply(call: CallSpec, text: str) -> Any:
    """Parse a reply for its task (raises :class:`replies.ReplyError`)."""
    if call.kind == "pairwise":
        return replies.parse_pairwise(text, call.parse_args["criteria"])
    if call.kind == "nli":
        return replies.parse_nli(text)
    if call.kind in ("kqa_entails", "kqa_contradicts"):
        return replies.parse_yes_no(text)
    return replies.parse_rating(text, call.parse_args["scales"], call.parse_args["options"])


def plan(study: Study, judges: Sequence[JudgeConfig], options: RunOptions) -> tuple[list[Item], list[CallSpec]]:
    """Items in scope and every call the judges need for them."""
    refs = list_items(study)
    wanted = set(options.item_ids) if options.item_ids is not None else None
    items = [get_item(study, r.id) for r in refs
             if r.kind in options.kinds and (wanted is None or r.id in wanted)]
    calls = [c for j in judges for it in items for c in plan_item(it, j, study.settings)]
    return items, calls


async def run_judges(study: Study, judges: Sequence[JudgeConfig], options: RunOptions,
                     display: RunDisplay | None = None) -> RunSummary:
    """Run judges over a study and store calls and verdicts.

    Returns:
        The run's summary (for a dry run: the counts and estimates only).

    Raises:
        ProviderError: a judge could not be set up (e.g. no API key); nothing was called.
    """
    t0 = time.monotonic()
    items, calls = plan(study, judges, options)
    summary = RunSummary(calls_needed=len(calls))
    stored = cached_calls(study, [c.key for c in calls])
    todo = [c for c in calls if c.key not in stored or stored[c.key].status == "error"]
    summary.cached = len(calls) - len(todo)
    summary.to_call = len(todo)
    prices = {j.rater: price_for(j.spec.provider, j.spec.model, j.spec.base_url, options.price_override)
              for j in judges}
    summary.unknown_prices = sorted(name for name, p in prices.items() if not p.known)
    for c in todo:
        tin = estimate_tokens(c.system + c.user)
        tout = min(c.judge.max_tokens, 60 * len(c.parse_args.get("criteria", [1])) + 40)
        summary.est_input_tokens += tin
        summary.est_output_tokens += tout
        summary.est_cost_usd += prices[c.judge.rater].cost(tin, tout)
    if options.dry_run:
        summary.elapsed_s = time.monotonic() - t0
        return summary
    run_id = start_run(study, [j.rater for j in judges],
                       {"judges": [j.describe() for j in judges], "panel_rule": options.panel_rule,
                        "concurrency": options.concurrency}, options.actor, len(calls))
    summary.run_id = run_id
    if display:
        display.started(summary)
    status = "done"
    if todo:
        status = await _execute(study, todo, options, prices, summary, run_id, display)
    outcomes = {k: Outcome(v.status, v.parsed, v.error)
                for k, v in cached_calls(study, [c.key for c in calls]).items()}
    _resolve_all(study, judges, items, calls, outcomes, options, summary, run_id)
    finish_run(study, run_id, status=status, made=summary.requests, cached=summary.cached,
               failed=summary.failed, cost=summary.cost_usd)
    summary.elapsed_s = time.monotonic() - t0
    if display:
        display.finished(summary)
    return summary


async def _execute(study: Study, todo: list[CallSpec], options: RunOptions, prices: dict[str, Price],
                   summary: RunSummary, run_id: int, display: RunDisplay | None) -> str:
    providers: dict[str, Provider] = {}
    for j in {c.judge.rater: c.judge for c in todo}.values():
        providers[j.rater] = make_provider(j.spec, api_keys=options.api_keys, timeout=options.timeout_s,
                                           max_retries=options.max_retries)
    writer = CallWriter(study)
    writer.start()
    sem = asyncio.Semaphore(options.concurrency)
    stop: list[str] = []
    reserved = [0.0]  # worst-case cost of the calls in flight, so the guard holds under concurrency

    async def one(call: CallSpec) -> None:
        async with sem:
            if stop:
                return
            price = prices[call.judge.rater]
            guess = price.cost(estimate_tokens(call.system + call.user), call.judge.max_tokens)
            if options.max_cost is not None and summary.cost_usd + reserved[0] + guess > options.max_cost:
                stop.append(f"--max-cost {options.max_cost:g} reached")
                return
            reserved[0] += guess
            try:
                row = await _call(providers[call.judge.rater], call, options, price, summary)
            finally:
                reserved[0] -= guess
            row["run_id"] = run_id
            writer.queue.put(row)
            if display:
                display.call_done(CallEvent(call.judge.rater, call.task, row["status"], row["cost_usd"]),
                                  summary)

    try:
        await asyncio.gather(*(one(c) for c in todo))
    finally:
        for p in providers.values():
            await p.aclose()
        writer.close()
    if stop:
        summary.stopped = stop[0]
        return "stopped"
    return "done"


async def _call(provider: Provider, call: CallSpec, options: RunOptions, price: Price,
                summary: RunSummary) -> dict[str, Any]:
    req = ChatRequest(system=call.system, messages=[{"role": "user", "content": call.user}],
                      max_tokens=call.judge.max_tokens, temperature=call.judge.temperature,
                      json_schema=call.json_schema if provider.supports_json_schema else None,
                      seed=call.sample)
    row: dict[str, Any] = {
        "key": call.key, "judge": call.judge.rater, "provider": call.judge.spec.provider,
        "model": call.judge.spec.model, "template": call.template.name,
        "template_hash": call.template.hash, "params": dumps(call.params()),
        "messages": dumps(call.messages()), "item_id": call.item_id, "task": call.task,
        "sample": call.sample, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0,
        "latency_s": 0.0, "attempts": 0, "raw": None, "parsed": None, "error": None,
        "created_at": utcnow(),
    }
    for _ in range(1 + options.parse_retries):
        try:
            result = await provider.complete(req)
        except ProviderError as exc:
            summary.errors += 1
            row.update(status="error", error=str(exc))
            return row
        cost = price.cost(result.input_tokens, result.output_tokens)
        summary.requests += result.attempts
        summary.cost_usd += cost
        summary.input_tokens += result.input_tokens
        summary.output_tokens += result.output_tokens
        row["input_tokens"] += result.input_tokens
        row["output_tokens"] += result.output_tokens
        row["cost_usd"] += cost
        row["latency_s"] += result.latency_s
        row["attempts"] += result.attempts
        row["raw"] = result.text
        try:
            parsed = parse_reply(call, result.text)
        except replies.ReplyError as exc:
            row.update(status="failed", error=f"unparseable reply: {exc}")
            continue
        row.update(status="ok", parsed=dumps(parsed), error=None)
        summary.ok += 1
        return row
    summary.failed += 1
    return row


def _resolve_all(study: Study, judges: Sequence[JudgeConfig], items: list[Item], calls: list[CallSpec],
                 outcomes: dict[str, Outcome], options: RunOptions, summary: RunSummary,
                 run_id: int) -> None:
    by_judge_item: dict[tuple[str, int], list[CallSpec]] = defaultdict(list)
    for c in calls:
        by_judge_item[(c.judge.rater, c.item_id)].append(c)
    resolved: dict[str, dict[int, VerdictOut]] = {}
    for j in judges:
        out: list[NewVerdict] = []
        resolved[j.rater] = {}
        for it in items:
            item_calls = by_judge_item[(j.rater, it.id)]
            if any(c.key not in outcomes or outcomes[c.key].status == "error" for c in item_calls):
                continue  # not all calls are in (stopped, or transport errors): judge it next run
            for v in resolve_item(it, item_calls, outcomes, study.settings):
                v.trail.update(judge=j.rater, template=item_calls[0].template.name,
                               template_hash=item_calls[0].template.hash, samples=j.samples)
                resolved[j.rater][v.unit_id] = v
                out.append(NewVerdict(v.unit_id, v.value, v.reason, v.trail))
                summary.missing_verdicts += v.value is None
                summary.position_inconsistent += bool(v.trail.get("position_inconsistent"))
        summary.verdicts_added += write_verdicts(study, j.rater, j.describe(), out, run_id=run_id,
                                                 actor=options.actor)
    if len(judges) >= 2:
        summary.verdicts_added += _panel(study, judges, items, resolved, options, run_id)


def _panel(study: Study, judges: Sequence[JudgeConfig], items: list[Item],
           resolved: dict[str, dict[int, VerdictOut]], options: RunOptions, run_id: int) -> int:
    names = [j.rater for j in judges]
    out: list[NewVerdict] = []
    for it in items:
        if it.kind == "rating":
            continue
        for unit in it.units:
            members = [resolved[n].get(unit.id) for n in names]
            if any(m is None for m in members):
                continue
            null = study.settings.criterion(unit.criterion).null_verdict if it.kind == "pairwise" else "neutral"
            result = protocol.panel([m.value for m in members if m], null, options.panel_rule)
            trail = {"protocol": f"panel ({options.panel_rule})", "members": dict(zip(
                names, [m.value for m in members if m], strict=True)), "verdict": result.verdict,
                "rule": result.rule, "judges_disagreed": result.disagreed}
            out.append(NewVerdict(unit.id, result.verdict, "", trail))
    config = {"panel": names, "rule": options.panel_rule}
    return write_verdicts(study, "panel:" + "+".join(names), config, out, run_id=run_id,
                          actor=options.actor)
