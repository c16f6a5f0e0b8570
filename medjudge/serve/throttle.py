"""Failed-login throttling: per account name and per client address, in memory.

After :attr:`Throttle.limit` failures in a row a key is locked for :attr:`Throttle.base`
seconds, and each further lock-out doubles that (up to a day). A name is throttled whether or
not it has an account, so a lock-out says nothing about which names exist. A success clears
the name's count but not the address's (one valid account must not reset an address that is
guessing others). Keys left alone for :attr:`Throttle.forget` seconds are forgotten, and at
most :attr:`Throttle.max_keys` are kept (the oldest go first), so guesses at random names
cannot fill the memory. One server process, one event loop: no locking needed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Strikes:
    failures: int = 0
    lockouts: int = 0
    locked_until: float = 0.0
    last: float = 0.0


MAX_LOCK_S = 24 * 3600.0
"""The longest lock-out, however many came before."""


class Throttle:
    """Counts failed logins per key (``name:…``, ``addr:…``) and says which keys are locked."""

    def __init__(
        self,
        *,
        limit: int = 5,
        base: float = 60.0,
        forget: float = 6 * 3600.0,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``limit`` failures lock a key for ``base`` seconds, doubling per lock-out."""
        self.limit = limit
        self.base = base
        self.forget = forget
        self.max_keys = max_keys
        self.clock = clock
        self._keys: dict[str, _Strikes] = {}

    def wait(self, *keys: str) -> float:
        """Seconds until every one of ``keys`` may try again (0: none is locked)."""
        now = self.clock()
        return max([0.0, *(s.locked_until - now for k in keys if (s := self._keys.get(k)))])

    def failed(self, *keys: str) -> None:
        """Count a failed login against each key; lock those that reached the limit."""
        now = self.clock()
        self._prune(now)
        for key in keys:
            strikes = self._keys.pop(key, None) or _Strikes()
            self._keys[key] = strikes  # most recent last: the oldest are pruned first
            strikes.failures += 1
            strikes.last = now
            if strikes.failures >= self.limit:
                strikes.failures = 0
                strikes.lockouts += 1
                strikes.locked_until = now + min(
                    self.base * 2 ** (strikes.lockouts - 1), MAX_LOCK_S
                )

    def succeeded(self, key: str) -> None:
        """A good login: forget the key's failures and lock-outs."""
        self._keys.pop(key, None)

    def _prune(self, now: float) -> None:
        stale = [
            k for k, s in self._keys.items() if s.locked_until < now and now - s.last > self.forget
        ]
        for k in stale:
            del self._keys[k]
        while len(self._keys) >= self.max_keys:
            del self._keys[next(iter(self._keys))]
