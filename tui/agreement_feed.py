"""Live agreement for the overview, computed off the main thread.

Concurrency contract: the feed owns its own :class:`Study` connection and one
``LiveAgreement`` on it. Every method that touches them runs in a thread worker and holds
``_lock``, so the connection is only ever used by one thread at a time, and a refresh that
arrives while another is running waits rather than racing it. Nothing here talks to widgets;
callers post the returned snapshot as a message.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from medjudge.store.judge_versions import list_versions
from medjudge.store.labels import Progress, progress
from medjudge.store.study import Study

if TYPE_CHECKING:  # numpy and the statistics load on first use
    from medjudge.judging.stats.agreement.two import TwoRaterStats


@dataclass(frozen=True)
class Snapshot:
    """What the overview shows, read at one moment."""

    rows: list[Any] = field(default_factory=list)
    """``AgreementRow`` per criterion."""
    progress: list[Progress] = field(default_factory=list)
    error: str | None = None
    """Why agreement figures are unavailable (the rest still shows)."""


class AgreementFeed:
    """A ``LiveAgreement`` on a private connection, refreshed incrementally."""

    def __init__(self, path: Path) -> None:
        """Nothing is opened until the first refresh (the review screen never waits for it)."""
        self.path = path
        self._lock = threading.Lock()
        self._study: Study | None = None
        self._live: Any = None
        self._error: str | None = None
        self._closed = False

    def _ensure(self) -> Study:
        if self._study is None:
            self._study = Study.open(self.path)
        if self._live is None and self._error is None:
            try:
                from medjudge.judging.analysis.live import LiveAgreement
            except ImportError as exc:
                self._error = f"live agreement is not available ({exc})"
            else:
                self._live = LiveAgreement(self._study)
        return self._study

    def snapshot(self) -> Snapshot:
        """Bring the figures up to date (incrementally) and read them. Call from a thread."""
        with self._lock:
            if self._closed:
                return Snapshot(error="closed")
            study = self._ensure()
            study.reload()
            rows: list[Any] = []
            error = self._error
            if self._live is not None:
                try:
                    self._live.refresh()
                    rows = list(self._live.rows())
                except Exception as exc:  # a figure that fails must not take the app down
                    error = f"agreement could not be computed: {exc}"
            return Snapshot(rows=rows, progress=progress(study), error=error)

    def raters(self, criterion: str) -> list[str]:
        """Raters (humans and judges) with labels on a criterion. Call from a thread."""
        with self._lock:
            self._ensure()
            if self._live is None:
                return []
            self._live.refresh()
            return list(self._live.raters(criterion))

    def versions(self) -> dict[str, str]:
        """Judge versions by rater name → their key's short form. Call from a thread."""
        with self._lock:
            study = self._ensure()
            return {v.name: v.short for v in list_versions(study)}

    def pair(self, rater_a: str, rater_b: str, criterion: str) -> TwoRaterStats:
        """Two raters' agreement on one criterion (``TwoRaterStats``). Call from a thread."""
        with self._lock:
            self._ensure()
            if self._live is None:
                raise RuntimeError(self._error or "live agreement is not available")
            self._live.refresh()
            stats: TwoRaterStats = self._live.pair(rater_a, rater_b, criterion)
            return stats

    def alt_tests(self, raters: Sequence[str], criterion: str) -> dict[str, str]:
        """The alt-test decision line of each judge among ``raters`` on a criterion (judge →
        line). Call from a thread."""
        with self._lock:
            self._ensure()
            if self._live is None:
                return {}
            from medjudge.judging.analysis.alt_tests import decision_line

            self._live.refresh()
            out = {}
            for r in raters:
                if self._live.rater_kind(r) == "judge":
                    result, plan = self._live.alt_test_with_plan(r, criterion)
                    out[r] = f"{decision_line(result)}; {plan}"
            return out

    def close(self) -> None:
        """Close the private connection (waits for a running refresh)."""
        with self._lock:
            self._closed = True
            if self._study is not None:
                self._study.close()
                self._study = None
            self._live = None
