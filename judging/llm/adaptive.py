"""Adaptive concurrency: fewer requests in flight while a server says it is overloaded.

A server with fewer slots than ``--concurrency`` answers the extra requests with 429 or 503, or
queues them until they time out; retrying them all at the same width only repeats that (a
2-slot server and ``--concurrency 8`` made 55 requests for 14 calls, and the run gave up).
:class:`AdaptiveLimit` bounds the *attempts* in flight to one endpoint, AIMD-style as TCP does:

- an overload (HTTP 429, 502, 503, 504, 529 or a timeout, see :func:`overload`) halves the
  limit, once per congestion event: an overload of an attempt that started before the last cut
  is the same event and does not cut again;
- a reply grows it back by ``1 / limit`` (about one more slot per round of replies), never past
  the ``--concurrency`` asked for;
- at least one attempt is always allowed.

The retry's wait happens outside the limit (a slot is taken per attempt), and the per-attempt
timeout starts once a slot is taken. Bound to one event loop; no locking (no await between a
check and its update).
"""

from __future__ import annotations

import asyncio
import logging

from medjudge.judging.llm.provider_types import ProviderError

__all__ = ["OVERLOAD_STATUSES", "AdaptiveLimit", "overload"]

log = logging.getLogger(__name__)

OVERLOAD_STATUSES = frozenset({429, 502, 503, 504, 529})
"""HTTP statuses that mean "too many requests now": rate limits, a busy or queueing server or
gateway (529: Anthropic's "overloaded")."""


def overload(err: ProviderError) -> str | None:
    """How an error says the server is overloaded (``HTTP 429``, ``timeouts``), or ``None``."""
    if err.kind == "timeout" and err.status is None:
        return "timeouts"
    if err.status in OVERLOAD_STATUSES or err.kind == "rate_limit":
        return f"HTTP {err.status}" if err.status else "rate limits"
    return None


class AdaptiveLimit:
    """Attempts in flight to one endpoint: at most ``ceiling``, halved on overload, grown back
    slowly (see the module).

    Args:
        ceiling: The most attempts in flight (``--concurrency``).
        name: Who it limits, for the log.
    """

    def __init__(self, ceiling: int, name: str = "") -> None:
        self.ceiling = max(1, int(ceiling))
        self.name = name
        self.limit = float(self.ceiling)
        self.in_flight = 0
        self.lowest = self.ceiling
        """The fewest attempts it allowed at once so far."""
        self.reason: str | None = None
        """What lowered it last (``HTTP 429``, ``timeouts``), if anything did."""
        self._epoch = 0
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def permits(self) -> int:
        """Attempts allowed in flight now."""
        return max(1, int(self.limit))

    async def acquire(self) -> int:
        """Wait for a slot and take it; returns the epoch to give back to :meth:`release`."""
        while self.in_flight >= self.permits:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                self._wake()  # a cancelled waiter passes its turn on
                raise
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        self.in_flight += 1
        return self._epoch

    def release(self, epoch: int, *, replied: bool, overloaded: str | None = None) -> None:
        """Give a slot back after an attempt: ``replied`` when the server answered with a
        reply, ``overloaded`` with how it said it was overloaded."""
        self.in_flight -= 1
        if overloaded is not None:
            if epoch == self._epoch:  # the first overload since the last cut
                before = self.permits
                self.limit = max(1.0, self.limit / 2)
                self._epoch += 1
                self.reason = overloaded
                self.lowest = min(self.lowest, self.permits)
                if self.permits < before:
                    log.info(
                        "%s: %s: concurrency lowered from %d to %d",
                        self.name,
                        overloaded,
                        before,
                        self.permits,
                    )
        elif replied:
            self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)
        self._wake()

    def _wake(self) -> None:
        """Wake as many waiters as there are free slots (each checks again)."""
        free = self.permits - self.in_flight
        for waiter in list(self._waiters):
            if free <= 0:
                break
            if not waiter.done():
                waiter.set_result(None)
                free -= 1
            self._waiters.remove(waiter)
