"""One judge run per judge version at a time: run leases in the study.

Two runs of the same judge version at once paid every call twice (each planned the same
missing calls). A run therefore takes a lease on each of its judge versions, in one write
transaction, before it plans or sends anything (:func:`take`); it refreshes the lease's
heartbeat while it runs (:class:`Heartbeat`) and deletes it when it ends (:func:`release`).

A lease is held while its holder lives. It is taken over (and the run says so) when its holder
is surely gone: on this host, its process id is not alive; on any host, its heartbeat is older
than :data:`STALE_AFTER_S` (the holder refreshes it every :data:`HEARTBEAT_S`). Otherwise the
new run is refused with :class:`LeaseHeld`, naming the holder (pid, host, since when), before
any request is sent.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .db import StudyError, connect, transaction
from .study import Study, utcnow

__all__ = [
    "HEARTBEAT_S",
    "STALE_AFTER_S",
    "Heartbeat",
    "Lease",
    "LeaseHeld",
    "Taken",
    "release",
    "take",
]

STALE_AFTER_S = 120.0
"""A lease whose heartbeat is older than this is taken over (its holder is taken for dead)."""
HEARTBEAT_S = 30.0
"""How often a running run refreshes its leases' heartbeat."""


@dataclass(frozen=True)
class Lease:
    """One judge version's lease."""

    judge_key: str
    judge: str
    token: str
    pid: int
    host: str
    started: str
    heartbeat: str


@dataclass
class Taken:
    """The leases a run holds (by one token), and the ones it took over from a dead holder."""

    token: str
    taken_over: list[str]
    """One note per lease taken over: whose it was and why it was taken for dead."""


class LeaseHeld(StudyError):
    """Another live run holds the lease of a judge version of this run."""


def _age_s(stamp: str, now: datetime) -> float:
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return float("inf")  # unreadable: taken for dead
    return (now - then).total_seconds()


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, another user's
    except OSError:
        return False
    return True


_ACTIVE: set[str] = set()
"""Tokens of the runs this process holds now (taken and not yet released)."""


def _dead(lease: Lease, host: str, now: datetime) -> str | None:
    """Why the holder of ``lease`` is taken for dead, or None while it lives."""
    if lease.host == host and not pid_alive(lease.pid):
        return f"process {lease.pid} no longer runs on {host}"
    if lease.host == host and lease.pid == os.getpid() and lease.token not in _ACTIVE:
        # this very process, from a run that ended without releasing it (e.g. a full disk
        # refused the release): no run of ours holds it now
        return f"an earlier run of this process ({lease.pid}) ended without releasing it"
    age = _age_s(lease.heartbeat, now)
    if age > STALE_AFTER_S:
        return f"its heartbeat is {age:.0f} s old (more than {STALE_AFTER_S:.0f} s)"
    return None


def _holder(lease: Lease, now: datetime) -> str:
    age = _age_s(lease.heartbeat, now)
    return (
        f"process {lease.pid} on host {lease.host}, running since {lease.started} "
        f"(last heartbeat {age:.0f} s ago)"
    )


def take(
    study: Study,
    judges: Sequence[tuple[str, str]],
    *,
    pid: int | None = None,
    host: str | None = None,
) -> Taken:
    """Take the lease of each judge version, all or none, in one write transaction.

    Args:
        study: The study.
        judges: (version key, judge version name) of each judge version of the run.
        pid: The holder's process id (default: this process).
        host: The holder's host name (default: this host).

    Returns:
        The run's token (for :class:`Heartbeat` and :func:`release`) and what it took over.

    Raises:
        LeaseHeld: a live run holds one of them (nothing is taken).
    """
    pid = os.getpid() if pid is None else pid
    host = socket.gethostname() if host is None else host
    token = uuid.uuid4().hex
    taken_over: list[str] = []
    with study.tx() as conn:
        now = datetime.now(UTC)
        stamp = utcnow()
        for key, name in dict(judges).items():
            row = conn.execute(
                "SELECT judge_key, judge, token, pid, host, started, heartbeat FROM run_leases "
                "WHERE judge_key = ?",
                (key,),
            ).fetchone()
            if row is not None:
                lease = Lease(*tuple(row))
                why = _dead(lease, host, now)
                if why is None:
                    raise LeaseHeld(
                        f"{study.path}: another judge run of {lease.judge} is under way: "
                        f"{_holder(lease, now)}; wait for it to end (a judge version is run "
                        "by one process at a time, so no call is paid twice)"
                    )
                taken_over.append(
                    f"took over the run lease of {lease.judge} from process {lease.pid} on "
                    f"host {lease.host} (since {lease.started}): {why}"
                )
                conn.execute("DELETE FROM run_leases WHERE judge_key = ?", (key,))
            conn.execute(
                "INSERT INTO run_leases (judge_key, judge, token, pid, host, started, heartbeat) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, name, token, pid, host, stamp, stamp),
            )
    _ACTIVE.add(token)
    return Taken(token, taken_over)


def release(study: Study, token: str) -> None:
    """Delete the leases of ``token`` (the run ended). Should the study refuse the write (a
    full disk), the lease is no longer this process's: its next run takes it over."""
    try:
        with study.tx() as conn:
            conn.execute("DELETE FROM run_leases WHERE token = ?", (token,))
    finally:
        _ACTIVE.discard(token)


def holders(study: Study) -> list[Lease]:
    """Every lease in the study."""
    rows = study.conn.execute(
        "SELECT judge_key, judge, token, pid, host, started, heartbeat FROM run_leases "
        "ORDER BY judge_key"
    )
    return [Lease(*tuple(r)) for r in rows]


class Heartbeat:
    """Refreshes a run's leases every ``interval`` seconds, on a thread with its own
    connection, until :meth:`stop`. A refresh that fails (the study busy for long) is tried
    again at the next beat; a lease is taken for dead only after :data:`STALE_AFTER_S`."""

    def __init__(self, path: Path, token: str, interval: float = HEARTBEAT_S) -> None:
        self.path, self.token, self.interval = Path(path), token, interval
        self._stop = threading.Event()
        self.beats = 0
        self._thread = threading.Thread(target=self._run, name="medjudge-lease", daemon=True)

    def start(self) -> Heartbeat:
        """Start beating."""
        self._thread.start()
        return self

    def _run(self) -> None:
        conn = connect(self.path)
        try:
            while not self._stop.wait(self.interval):
                with contextlib.suppress(Exception):
                    with transaction(conn, self.path):
                        conn.execute(
                            "UPDATE run_leases SET heartbeat = ? WHERE token = ?",
                            (utcnow(), self.token),
                        )
                    self.beats += 1
        finally:
            conn.close()

    def stop(self) -> None:
        """Stop beating (waits for the thread)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
