"""Judge calls sent through the providers' batch APIs: which batches a study has, and their calls.

Storage contract:
- A batch is recorded with its calls (cache key, the ``custom_id`` it carries, and what is
  needed to store its result) and a medjudge-generated ``token`` in state ``intent``, in one
  transaction, *before* anything is sent to the provider. The provider's ids are recorded as
  soon as the provider returns them (``submitted``). A command killed in between leaves an
  ``intent`` row; the next run looks for the provider's batch carrying the token before it
  submits again, so a batch is never paid twice.
- A batch's results are stored in ``judge_calls`` (the same call cache as synchronous calls,
  same keys) in the same transaction that marks the batch ``collected``, so a kill during
  collection leaves either nothing or everything of it.
- A batch the provider refused or lost is ``failed`` with the reason; its calls are no longer
  in flight and the next run sends them again. So is a batch abandoned (``judge
  --abandon-batch``, or a batch the provider answers 404 for): its error starts with
  ``abandoned:``.
- An ``intent`` that surely never reached the provider (its upload failed, or its creation
  was answered with an error and no such batch is found) is rolled back: deleted with its
  calls, so the study never waits on a batch that does not exist.
- A call's request (``judge_batch_requests``) is kept only while its batch is open.
- ``open`` batches (``intent``, ``submitted``, ``ended``) hold their calls: a call in an open
  batch is never put into another batch.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .judgments import CallRow, record_call
from .study import Study, dumps, utcnow


@dataclass(frozen=True)
class Batch:
    """One recorded batch."""

    id: int
    judge: str
    provider: str
    token: str
    state: str
    provider_id: str | None
    input_file_id: str | None
    provider_status: str | None
    n_calls: int
    n_bytes: int
    run_id: int | None
    created_at: str
    submitted_at: str | None
    ended_at: str | None
    collected_at: str | None
    error: str | None


@dataclass(frozen=True)
class BatchCall:
    """One call carried by a batch."""

    key: str
    custom_id: str
    call: dict[str, Any]
    """The request and what the caller needs to turn its result into a ``judge_calls`` row
    (``{}`` once the batch is collected or failed: the request is deleted then)."""


_COLUMNS = (
    "id, judge, provider, token, state, provider_id, input_file_id, provider_status, n_calls, "
    "n_bytes, run_id, created_at, submitted_at, ended_at, collected_at, error"
)


def _batch(row: sqlite3.Row | tuple[Any, ...]) -> Batch:
    return Batch(*tuple(row))


def record_intent(
    study: Study,
    *,
    judge: str,
    provider: str,
    token: str,
    calls: Sequence[BatchCall],
    n_bytes: int,
    run_id: int | None,
) -> int:
    """Record a batch about to be submitted, with its calls, in one transaction.

    Returns:
        The batch's id in the study.
    """
    with study.tx() as conn:
        batch_id = int(
            conn.execute(
                "INSERT INTO judge_batches (judge, provider, token, state, n_calls, n_bytes, "
                "run_id, created_at) VALUES (?, ?, ?, 'intent', ?, ?, ?, ?)",
                (judge, provider, token, len(calls), n_bytes, run_id, utcnow()),
            ).lastrowid
            or 0
        )
        conn.executemany(
            "INSERT INTO judge_batch_calls (batch_id, key, custom_id) VALUES (?, ?, ?)",
            [(batch_id, c.key, c.custom_id) for c in calls],
        )
        conn.executemany(
            "INSERT INTO judge_batch_requests (batch_id, key, call) VALUES (?, ?, ?)",
            [(batch_id, c.key, dumps(c.call)) for c in calls],
        )
    return batch_id


def record_file(study: Study, batch_id: int, input_file_id: str) -> None:
    """Record the provider's id of the uploaded input file (OpenAI)."""
    with study.tx() as conn:
        conn.execute(
            "UPDATE judge_batches SET input_file_id = ? WHERE id = ?", (input_file_id, batch_id)
        )


def record_submitted(study: Study, batch_id: int, provider_id: str, provider_status: str) -> None:
    """Record that the provider accepted the batch under ``provider_id``."""
    with study.tx() as conn:
        conn.execute(
            "UPDATE judge_batches SET state = 'submitted', provider_id = ?, provider_status = ?, "
            "submitted_at = ? WHERE id = ?",
            (provider_id, provider_status, utcnow(), batch_id),
        )


def record_status(study: Study, batch_id: int, provider_status: str, *, ended: bool) -> None:
    """Record the provider's latest status of a batch; ``ended``: its results are ready."""
    with study.tx() as conn:
        if ended:
            conn.execute(
                "UPDATE judge_batches SET provider_status = ?, state = 'ended', "
                "ended_at = coalesce(ended_at, ?) WHERE id = ? AND state IN ('submitted', 'ended')",
                (provider_status, utcnow(), batch_id),
            )
        else:
            conn.execute(
                "UPDATE judge_batches SET provider_status = ? WHERE id = ?",
                (provider_status, batch_id),
            )


def record_failed(study: Study, batch_id: int, error: str) -> None:
    """The provider refused or lost the batch: its calls are free to be sent again."""
    with study.tx() as conn:
        conn.execute(
            "UPDATE judge_batches SET state = 'failed', error = ?, ended_at = ? WHERE id = ?",
            (error, utcnow(), batch_id),
        )
        conn.execute("DELETE FROM judge_batch_requests WHERE batch_id = ?", (batch_id,))


def roll_back_intent(study: Study, batch_id: int) -> bool:
    """Forget a batch recorded as ``intent`` that surely never reached the provider (its upload
    failed, or its creation was answered with an error and no such batch is found): its calls
    are free again. True when it was rolled back (a batch in any other state is left alone)."""
    with study.tx() as conn:
        row = conn.execute("SELECT state FROM judge_batches WHERE id = ?", (batch_id,)).fetchone()
        if row is None or row[0] != "intent":
            return False
        conn.execute("DELETE FROM judge_batch_requests WHERE batch_id = ?", (batch_id,))
        conn.execute("DELETE FROM judge_batch_calls WHERE batch_id = ?", (batch_id,))
        conn.execute("DELETE FROM judge_batches WHERE id = ?", (batch_id,))
    return True


ABANDONED = "abandoned: "
"""How the error of an abandoned batch starts (its state is ``failed``)."""


def find_open_batch(study: Study, ident: str) -> Batch | None:
    """The open batch ``ident`` names: its provider id, its token or its number in the study."""
    row = study.conn.execute(
        f"SELECT {_COLUMNS} FROM judge_batches WHERE state IN ('intent', 'submitted', 'ended') "
        "AND (provider_id = ? OR token = ? OR CAST(id AS TEXT) = ?) ORDER BY id LIMIT 1",
        (ident, ident, ident),
    ).fetchone()
    return None if row is None else _batch(row)


def abandon_batch(study: Study, batch_id: int, why: str) -> int:
    """Mark an open batch dead (``failed``, its error ``abandoned: why``), so that its calls
    are asked again by the next run, synchronous or batched; its results, should they still
    come, are never collected.

    Returns:
        The calls released: those of the batch with no stored result (0 when the batch was
        not open any more).
    """
    with study.tx() as conn:
        updated = conn.execute(
            "UPDATE judge_batches SET state = 'failed', error = ?, ended_at = ? "
            "WHERE id = ? AND state IN ('intent', 'submitted', 'ended')",
            (ABANDONED + why, utcnow(), batch_id),
        ).rowcount
        if not updated:
            return 0
        conn.execute("DELETE FROM judge_batch_requests WHERE batch_id = ?", (batch_id,))
        row = conn.execute(
            "SELECT count(*) FROM judge_batch_calls c WHERE c.batch_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM judge_calls j WHERE j.key = c.key AND j.status IN ('ok', 'failed'))",
            (batch_id,),
        ).fetchone()
    return int(row[0])


def record_collected(study: Study, batch_id: int, rows: Iterable[CallRow]) -> None:
    """Store a batch's results as ``judge_calls`` rows and mark it collected, atomically.

    Rows follow :func:`~.judgments.record_call` (an ``ok`` row is never replaced).
    """
    with study.tx() as conn:
        # Requests first: the pages they free are reused by the stored calls.
        conn.execute("DELETE FROM judge_batch_requests WHERE batch_id = ?", (batch_id,))
        for row in rows:
            record_call(conn, row)
        conn.execute(
            "UPDATE judge_batches SET state = 'collected', collected_at = ? WHERE id = ?",
            (utcnow(), batch_id),
        )


def open_batches(study: Study, judges: Sequence[str]) -> list[Batch]:
    """The batches of these judges whose results are not stored yet, oldest first."""
    if not judges:
        return []
    marks = ",".join("?" * len(judges))
    rows = study.conn.execute(
        f"SELECT {_COLUMNS} FROM judge_batches WHERE state IN ('intent', 'submitted', 'ended') "
        f"AND judge IN ({marks}) ORDER BY id",
        list(judges),
    )
    return [_batch(r) for r in rows]


def open_batches_all(study: Study) -> list[Batch]:
    """Every open batch of the study, of any judge, oldest first."""
    rows = study.conn.execute(
        f"SELECT {_COLUMNS} FROM judge_batches WHERE state IN ('intent', 'submitted', 'ended') "
        "ORDER BY id"
    )
    return [_batch(r) for r in rows]


def get_batch(study: Study, batch_id: int) -> Batch:
    """One batch by its id in the study."""
    row = study.conn.execute(
        f"SELECT {_COLUMNS} FROM judge_batches WHERE id = ?", (batch_id,)
    ).fetchone()
    if row is None:
        raise KeyError(batch_id)
    return _batch(row)


def all_batches(study: Study) -> list[Batch]:
    """Every batch of the study, oldest first."""
    return [
        _batch(r) for r in study.conn.execute(f"SELECT {_COLUMNS} FROM judge_batches ORDER BY id")
    ]


def batch_calls(study: Study, batch_id: int) -> list[BatchCall]:
    """The calls a batch carries, in the order they were recorded."""
    rows = study.conn.execute(
        "SELECT c.key, c.custom_id, r.call FROM judge_batch_calls c LEFT JOIN judge_batch_requests r"
        " ON r.batch_id = c.batch_id AND r.key = c.key WHERE c.batch_id = ? ORDER BY c.rowid",
        (batch_id,),
    )
    return [BatchCall(r[0], r[1], json.loads(r[2]) if r[2] else {}) for r in rows]


def keys_in_flight(study: Study, judges: Sequence[str]) -> set[str]:
    """Cache keys carried by open batches of these judges (never put into another batch)."""
    if not judges:
        return set()
    marks = ",".join("?" * len(judges))
    rows = study.conn.execute(
        "SELECT c.key FROM judge_batch_calls c JOIN judge_batches b ON b.id = c.batch_id "
        f"WHERE b.state IN ('intent', 'submitted', 'ended') AND b.judge IN ({marks})",
        list(judges),
    )
    return {r[0] for r in rows}
