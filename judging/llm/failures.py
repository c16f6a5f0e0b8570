"""Stopping a judge run early when its calls keep failing the same way (fast fail).

A run against a server that is down, a wrong key or a wrong model name would otherwise try
every call — each with its retries and back-off — and end with nothing to show. The watch sees
each finished call (in the order results arrive) and trips:

- at once on an error that no retry can fix: authentication (401/403, or a key the HTTP client
  cannot send), an unknown model or endpoint (404), a malformed setup (``config``);
- after :data:`SAME_ERRORS_IN_A_ROW` errors in a row with the same kind and status, with no
  reply in between (a reply, even one that does not parse, resets the count).

Once tripped, no new call starts; calls in flight finish and are stored; the run ends as
``failed`` with the first error's message (status code, the provider's own message, the URL —
never the key: provider errors are redacted where they are made); when the server was
overloaded or slow, the message names ``--concurrency`` and ``--timeout``.
"""

from __future__ import annotations

import threading
from typing import Any

from medjudge.judging.llm.adaptive import OVERLOAD_STATUSES
from medjudge.store.judgments import CallOutcome

SAME_ERRORS_IN_A_ROW = 5
"""Consecutive identical errors (kind and status) that stop a run."""
FATAL_KINDS = frozenset({"auth", "not_found", "config"})
FATAL_STATUS = frozenset({401, 403, 404})
OVERLOAD_HINT = (
    "; the server is overloaded or slow: a lower --concurrency gives it fewer calls at once, "
    "a longer --timeout more time per call"
)
"""Said when the calls failed on rate limits, a busy server (429/502/503/504/529) or timeouts."""


class Halt(threading.Event):
    """An event that counts as set when it, or any of ``also``, is set (a user's cancel); it
    goes wherever the runner takes a cancel event."""

    def __init__(self, *also: threading.Event | None) -> None:
        """Watch ``also`` (None entries are ignored) besides this halt's own flag."""
        super().__init__()
        self._also = [e for e in also if e is not None]

    def is_set(self) -> bool:
        """Whether the run should start no new call."""
        return super().is_set() or any(e.is_set() for e in self._also)


class FailureWatch:
    """Follows finished calls and trips :class:`Halt` when they keep failing the same way."""

    def __init__(self, halt: Halt, limit: int = SAME_ERRORS_IN_A_ROW) -> None:
        """``halt`` is set when the watch trips."""
        self.halt = halt
        self.limit = limit
        self.cause: str | None = None
        """Why the run stopped (the first error of the failing streak), once tripped."""
        self._signature: tuple[Any, Any] | None = None
        self._first: str | None = None
        self._count = 0

    def see(self, row: CallOutcome) -> None:
        """One finished call's row (``status``; for errors ``error``, ``error_kind``,
        ``error_status``)."""
        if self.cause is not None:
            return
        if row["status"] != "error":
            self._signature, self._first, self._count = None, None, 0
            return
        kind, status = row.get("error_kind"), row.get("error_status")
        if kind == "too_long":  # one item's length, not the server's state: no streak
            return
        if kind in FATAL_KINDS or status in FATAL_STATUS:
            self._trip(str(row["error"]), 1)
            return
        if (kind, status) != self._signature:
            self._signature, self._first, self._count = (kind, status), str(row["error"]), 0
        self._count += 1
        if self._count >= self.limit:
            hint = OVERLOAD_HINT if kind in ("rate_limit", "timeout") else ""
            if status in OVERLOAD_STATUSES:
                hint = OVERLOAD_HINT
            self._trip(self._first or str(row["error"]), self._count, hint)

    def _trip(self, error: str, count: int, hint: str = "") -> None:
        what = "the first call failed" if count == 1 else f"{count} calls in a row failed alike"
        self.cause = f"{what}: {error}{hint}"
        self.halt.set()
