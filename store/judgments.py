"""Judge calls (the cache), judge runs and verdicts.

Storage contract:
- ``judge_calls`` is keyed by the call's cache key. A row with status ``ok`` (parsed) or
  ``failed`` (a paid reply that never parsed) is final and is never requested again; a row
  with status ``error`` (transport failure, nothing usable came back) is retried by the next
  run. Each call is committed on its own as soon as its reply is in, so a killed run resumes
  without paying again for anything it had received.
- ``verdicts`` is append-only: re-resolving adds a row only when the value or the trail's
  calls changed; the latest row per (unit, judge) is current. The judge's current value is
  mirrored in ``labels`` (with a ``verdict`` history row when it changes) so agreement
  treats judges and reviewers alike.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from .json_types import JsonObject
from .labels import write_label
from .study import Study, dumps, utcnow

CALL_COLUMNS = (
    "key", "judge", "provider", "model", "template", "template_hash", "params", "messages",
    "item_id", "task", "sample", "status", "raw", "parsed", "error", "input_tokens",
    "output_tokens", "cost_usd", "latency_s", "attempts", "run_id", "created_at",
)  # fmt: skip
"""The columns of a stored judge call, in table order."""


class CallOutcome(TypedDict):
    """What a run's progress, failure watch and live verdicts need of a finished call (workers
    send this)."""

    key: str
    """The call's cache key (the call is committed under it)."""
    status: str
    """``ok`` (parsed), ``failed`` (paid, never parsed) or ``error`` (nothing usable)."""
    cost_usd: float
    input_tokens: int
    output_tokens: int
    attempts: int
    judge: str
    task: str
    error: str | None
    error_kind: NotRequired[str]
    """Why a call errored (for the run's failure watch; not stored)."""
    error_status: NotRequired[int | None]
    concurrency_lowest: NotRequired[int]
    """The fewest attempts its judge's endpoint was allowed in flight so far, once an overload
    lowered it (adaptive concurrency; not stored)."""
    usage_unknown: NotRequired[bool]
    """The server's token figures were out of bounds and recorded as 0 (not stored)."""
    overload: NotRequired[str]
    """What lowered it (``HTTP 429``, ``timeouts``; not stored)."""


class CallRow(CallOutcome):
    """A ``judge_calls`` row as the runner builds it (:data:`CALL_COLUMNS`, JSON as text)."""

    provider: str
    model: str
    template: str
    template_hash: str
    params: str
    messages: str
    item_id: int | None
    sample: int
    raw: str | None
    parsed: str | None
    latency_s: float
    created_at: str
    run_id: NotRequired[int | None]
    retry: NotRequired[bool]
    """A re-asked ``failed`` call (``--retry-failed``): its costs add to the earlier row."""


def event_of(row: CallRow) -> CallOutcome:
    """The part of a call's row its run's progress and failure watch need."""
    event = CallOutcome(
        key=row["key"],
        status=row["status"],
        cost_usd=row["cost_usd"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        attempts=row["attempts"],
        judge=row["judge"],
        task=row["task"],
        error=row["error"],
    )
    if "error_kind" in row:
        event["error_kind"] = row["error_kind"]
    if "error_status" in row:
        event["error_status"] = row["error_status"]
    if "concurrency_lowest" in row:
        event["concurrency_lowest"] = row["concurrency_lowest"]
    if "overload" in row:
        event["overload"] = row["overload"]
    if "usage_unknown" in row:
        event["usage_unknown"] = row["usage_unknown"]
    return event


@dataclass(frozen=True)
class StoredCall:
    """What the cache holds for one key."""

    status: str
    parsed: Any
    error: str | None
    cost_usd: float


TOO_LONG = "too long for the context"
"""The first line of a call's error when its request did not fit the model's context window:
the reason it is counted under ("not judged (too long for the context)"), and the mark that
keeps later runs from asking it again (only ``--retry-failed`` does)."""


def ask_again(stored: StoredCall | None, retry_failed: bool) -> bool:
    """Whether a run asks a call: never asked; or it ended in an error (nothing came back),
    unless the request was too long for the model's context (it would fail the same way);
    with ``retry_failed`` also a reply that never parsed and a request too long."""
    if stored is None:
        return True
    if stored.status == "error":
        return retry_failed or not (stored.error or "").startswith(TOO_LONG)
    return retry_failed and stored.status == "failed"


REASON_CHARS = 120
"""An error reason's length when grouped and said (:func:`short_reason`)."""


def short_reason(error: str | None) -> str:
    """An error's first line, cut at :data:`REASON_CHARS` characters (reasons are grouped by
    it: in a run's summary, ``status`` and the report)."""
    lines = (error or "").strip().splitlines()
    text = lines[0].strip() if lines else "unknown error"
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def not_judged(study: Study) -> dict[str, dict[str, int]]:
    """Per judge version: items it has no verdict on because a call of theirs ended in an
    error (nothing usable came back; the next run asks again), counted per reason, most
    frequent first."""
    out: dict[str, dict[str, int]] = {}
    rows = study.conn.execute(
        "SELECT c.judge, c.item_id, min(c.error) FROM judge_calls c WHERE c.status = 'error' "
        "AND NOT EXISTS (SELECT 1 FROM current_verdicts v JOIN units u ON u.id = v.unit_id "
        "JOIN raters r ON r.id = v.rater_id WHERE u.item_id = c.item_id AND r.name = c.judge) "
        "GROUP BY c.judge, c.item_id"
    )
    for judge, _, error in rows:
        why = out.setdefault(judge, {})
        reason = short_reason(error)
        why[reason] = why.get(reason, 0) + 1
    return {j: dict(sorted(w.items(), key=lambda kv: (-kv[1], kv[0]))) for j, w in out.items()}


def cached_calls(study: Study, keys: Iterable[str]) -> dict[str, StoredCall]:
    """Stored results for the given keys (chunked queries, any number of keys)."""
    keys = list(keys)
    out: dict[str, StoredCall] = {}
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for r in study.conn.execute(
            f"SELECT key, status, parsed, error, cost_usd FROM judge_calls WHERE key IN ({marks})",
            chunk,
        ):
            out[r[0]] = StoredCall(r[1], json.loads(r[2]) if r[2] else None, r[3], r[4])
    return out


_SUMMED = ("input_tokens", "output_tokens", "cost_usd", "latency_s", "attempts")
"""Columns a re-asked call adds to its earlier attempt (the ledger keeps what was paid)."""


def record_call(conn: sqlite3.Connection, row: Mapping[str, object]) -> None:
    """Store one call result (inside a transaction).

    An earlier ``error`` row (nothing came back) is replaced. An earlier ``failed`` row (a
    reply that never parsed) is replaced only by a call re-asked with ``--retry-failed``
    (``row["retry"]``); its tokens, cost, latency and attempts are added to the earlier ones,
    so the ledger keeps everything that was paid. ``ok`` rows are never replaced.
    """
    cols = CALL_COLUMNS
    values = [row.get(c) for c in cols]
    updates = ", ".join(
        f"{c} = judge_calls.{c} + excluded.{c}" if c in _SUMMED else f"{c} = excluded.{c}"
        for c in cols[1:]
    )
    replaceable = "('error', 'failed')" if row.get("retry") else "('error')"
    conn.execute(
        f"INSERT INTO judge_calls ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
        f"ON CONFLICT (key) DO UPDATE SET {updates} "
        f"WHERE judge_calls.status IN {replaceable}",
        values,
    )


def start_run(
    study: Study, judges: Sequence[str], params: JsonObject, actor: str, calls_needed: int
) -> int:
    """Open a judge run row; returns its id.

    The caller holds the run leases of these judge versions (:func:`.leases.take`), so an
    earlier run of any of them that is still ``running`` has died without recording its end
    (SIGKILL, a power cut): it is marked ``killed`` here, in the same transaction."""
    with study.tx() as conn:
        conn.execute(
            "UPDATE judge_runs SET status = 'killed' WHERE status = 'running' AND EXISTS "
            "(SELECT 1 FROM json_each(judge_runs.judges) j "
            "WHERE j.value IN (SELECT value FROM json_each(?)))",
            (dumps(list(judges)),),
        )
        return int(
            conn.execute(
                "INSERT INTO judge_runs (judges, params, actor, started_at, calls_needed) VALUES (?, ?, ?, ?, ?)",
                (dumps(list(judges)), dumps(params), actor, utcnow(), calls_needed),
            ).lastrowid
            or 0
        )


def finish_run(
    study: Study, run_id: int, *, status: str, made: int, cached: int, failed: int, cost: float
) -> None:
    """Close a judge run row with its counts."""
    with study.tx() as conn:
        conn.execute(
            "UPDATE judge_runs SET finished_at = ?, status = ?, calls_made = ?, calls_cached = ?, "
            "calls_failed = ?, cost_usd = ? WHERE id = ?",
            (utcnow(), status, made, cached, failed, cost, run_id),
        )


@dataclass(frozen=True)
class NewVerdict:
    """A resolved verdict to store."""

    unit_id: int
    value: str | None
    reason: str
    trail: dict[str, Any]


def write_verdicts(
    study: Study,
    judge: str,
    config: JsonObject,
    verdicts: Sequence[NewVerdict],
    *,
    run_id: int | None,
    actor: str,
) -> int:
    """Store verdicts of one judge version in one transaction; returns how many rows were added.

    ``judge`` names a version (:mod:`.judge_versions`); ``config`` is used only when the rater
    does not exist yet. A rater's config is never changed: other settings are another version.
    """
    added = 0
    with study.tx() as conn:
        rater_id = study.rater_id(judge, "judge", config, conn=conn)
        for v in verdicts:
            trail = dumps(v.trail)
            last = conn.execute(
                "SELECT value, trail FROM current_verdicts WHERE unit_id = ? AND rater_id = ?",
                (v.unit_id, rater_id),
            ).fetchone()
            if last is not None and last[0] == v.value and last[1] == trail:
                continue
            conn.execute(
                "INSERT INTO verdicts (unit_id, rater_id, value, status, reason, trail, run_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    v.unit_id,
                    rater_id,
                    v.value,
                    "ok" if v.value is not None else "missing",
                    v.reason,
                    trail,
                    run_id,
                    utcnow(),
                ),
            )
            added += 1
            current = conn.execute(
                "SELECT value FROM labels WHERE unit_id = ? AND rater_id = ?", (v.unit_id, rater_id)
            ).fetchone()
            if (current[0] if current else None) != v.value:
                write_label(conn, v.unit_id, rater_id, v.value, actor=actor, action="verdict")
    return added


def latest_verdicts(study: Study, judge: str) -> dict[int, str | None]:
    """A judge version's current verdict per unit (``None``: the verdict is missing)."""
    rows = study.conn.execute(
        "SELECT v.unit_id, v.value FROM current_verdicts v JOIN raters r ON r.id = v.rater_id "
        "WHERE r.name = ?",
        (judge,),
    )
    return {int(r[0]): r[1] for r in rows}


@dataclass(frozen=True)
class VerdictView:
    """A judge's current verdict on a unit, for display."""

    judge: str
    unit_id: int
    value: str | None
    reason: str | None
    trail: dict[str, Any]


def item_verdicts(study: Study, item_id: int) -> list[VerdictView]:
    """Every judge's current verdict on each unit of an item."""
    rows = study.conn.execute(
        """SELECT r.name, v.unit_id, v.value, v.reason, v.trail FROM current_verdicts v
           JOIN raters r ON r.id = v.rater_id JOIN units u ON u.id = v.unit_id
           WHERE u.item_id = ? ORDER BY u.position, r.name""",
        (item_id,),
    )
    return [VerdictView(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]


def call_rows(study: Study, keys: Sequence[str]) -> list[sqlite3.Row]:
    """Full stored rows of some calls (for showing raw responses of failed samples)."""
    marks = ",".join("?" * len(keys))
    return list(study.conn.execute(f"SELECT * FROM judge_calls WHERE key IN ({marks})", list(keys)))
