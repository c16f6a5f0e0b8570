"""Batches as requests and results: splitting calls into batches under the providers' limits,
the ``custom_id`` of a call, what a batch keeps of each call until it is collected, and the
``judge_calls`` row a batch result becomes (the same row a synchronous call would store).

Pure functions (no I/O); :mod:`.batching` runs them.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from medjudge.judging.llm.batch_api import BatchAPI, BatchResult
from medjudge.judging.llm.calls import call_row, chat_request, cut_off, parse_text
from medjudge.judging.llm.pricing import Price, unreported_usage
from medjudge.judging.protocol import replies
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig
from medjudge.store.json_types import JsonObject
from medjudge.store.judgments import CallRow
from medjudge.store.study import dumps, utcnow


@dataclass(frozen=True)
class PlannedBatch:
    """A batch about to be submitted: its token, calls and their request lines."""

    judge: JudgeConfig
    token: str
    calls: list[CallSpec]
    lines: list[bytes]

    @property
    def n_bytes(self) -> int:
        """Its size as the provider counts it."""
        return sum(len(x) for x in self.lines)


def custom_id(token: str, key: str) -> str:
    """The id of a call inside a batch: the batch's token and the cache key's first 48 hex
    digits (64 characters at most, as Anthropic requires)."""
    return f"{token}-{key[:48]}"


def new_token() -> str:
    """A fresh batch token (12 hex digits)."""
    return secrets.token_hex(6)


def split(
    judge: JudgeConfig,
    calls: Sequence[CallSpec],
    api: BatchAPI,
    max_requests: int,
    max_bytes: int,
) -> list[PlannedBatch]:
    """One judge's calls in batches under the limits, each cache key once."""
    out: list[PlannedBatch] = []
    seen: set[str] = set()
    cur: list[CallSpec] = []
    lines: list[bytes] = []
    size = 0
    token = new_token()
    json_schema = True  # response_format (OpenAI) or a forced tool (Anthropic)
    for c in calls:
        if c.key in seen:
            continue
        seen.add(c.key)
        line = api.line(custom_id(token, c.key), chat_request(c, json_schema))
        if cur and (len(cur) >= max_requests or size + len(line) > max_bytes):
            out.append(PlannedBatch(judge, token, cur, lines))
            cur, lines, size, token = [], [], 0, new_token()
            line = api.line(custom_id(token, c.key), chat_request(c, json_schema))
        cur.append(c)
        lines.append(line)
        size += len(line)
    if cur:
        out.append(PlannedBatch(judge, token, cur, lines))
    return out


def payload(call: CallSpec, retry: bool) -> JsonObject:
    """What a batch call keeps until collected; its messages are in its request line."""
    row = call_row(call)
    return {
        "judge": row["judge"],
        "provider": row["provider"],
        "model": row["model"],
        "template": row["template"],
        "template_hash": row["template_hash"],
        "params": row["params"],
        "item_id": call.item_id,
        "task": call.task,
        "sample": call.sample,
        "kind": call.kind,
        "parse_args": call.parse_args,
        "retry": retry,
    }


def messages_of(provider: str, line: str) -> str:
    """The stored form of a call's messages (as a synchronous call stores them), read back
    from its request line."""
    entry = json.loads(line)
    if provider == "anthropic":
        params = entry["params"]
        system = str(params.get("system", ""))
        user = [m for m in params["messages"] if m["role"] == "user"]
    else:
        body = entry["body"]["messages"]
        system = next((str(m["content"]) for m in body if m["role"] == "system"), "")
        user = [m for m in body if m["role"] == "user"]
    return dumps(
        [{"role": "system", "content": system}]
        + [{"role": "user", "content": m["content"]} for m in user]
    )


def result_row(
    key: str, p: JsonObject, result: BatchResult | None, price: Price, run_id: int | None
) -> CallRow:
    """The ``judge_calls`` row of one batch request's outcome."""
    row: CallRow = {
        "key": key,
        "judge": p["judge"],
        "provider": p["provider"],
        "model": p["model"],
        "template": p["template"],
        "template_hash": p["template_hash"],
        "params": p["params"],
        "messages": messages_of(p["provider"], p["line"]),
        "item_id": p["item_id"],
        "task": p["task"],
        "sample": p["sample"],
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "latency_s": 0.0,
        "attempts": 1,
        "raw": None,
        "parsed": None,
        "error": None,
        "created_at": utcnow(),
        "status": "failed",
        "run_id": run_id,
        "retry": p.get("retry", False),
    }
    if result is None:
        row["error"] = "batch request: the provider returned no result for it"
        return row
    if result.text is None:
        row["error"] = result.error or "batch request failed"
        return row
    row["raw"] = result.text
    row["input_tokens"], row["output_tokens"] = result.input_tokens, result.output_tokens
    row["cost_usd"] = price.cost(result.input_tokens, result.output_tokens)
    if result.usage_unknown:  # counted at the estimate, as a call's (calls.make_call)
        row["usage_unknown"] = True
        params = json.loads(p["params"])
        criteria = len(p["parse_args"].get("criteria", [1]))
        row["cost_usd"] += price.cost(
            *unreported_usage(row["messages"], result.text, params.get("max_tokens", 0), criteria)
        )
    try:
        parsed = parse_text(p["kind"], p["parse_args"], result.text)
    except replies.ReplyError as exc:
        limit = json.loads(p["params"]).get("max_tokens")
        row["error"] = cut_off(result.finish_reason, limit) or f"unparseable reply: {exc}"
        return row
    row["status"], row["parsed"] = "ok", dumps(parsed)
    return row
