"""Verdicts resolved while a judge run goes: an item's as soon as its last call is stored.

A run used to resolve every item after the last reply (a third of a second for 800 pairwise
items, on top of the calls). :class:`LiveVerdicts` follows the stored calls instead: when
the last call of an item (for one judge) is committed, the item is ready; ready items are
resolved from what the study holds — the same rows a later run would read — and written in
small batches, while other calls are still in flight. The resolving runs on a thread of its
own with its own connection, so the event loop that drives the calls never waits for it (done
on the loop, each batch stalled every call in flight, and the run got slower). What is left at
the end (items whose calls were all cached, items that became ready since the last batch) is
resolved then.

The rule is the one of the whole-run resolution it replaces: an item with a call that is
missing or ended in ``error`` gets no verdict in this run (the next run asks again). The units
of an item with a call that ended in ``error`` are counted as "not judged", by the error.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from medjudge.judging.protocol.plan import CallSpec, JudgeConfig
from medjudge.judging.protocol.resolve import Outcome, resolve_item
from medjudge.store.db import connect
from medjudge.store.items import Item
from medjudge.store.judgments import NewVerdict, cached_calls, short_reason, write_verdicts
from medjudge.store.study import Study

__all__ = ["LiveVerdicts", "VerdictCounts", "short_reason"]

Group = tuple[str, int]
"""One judge version's calls on one item: (rater, item id)."""


@dataclass
class VerdictCounts:
    """What resolving added, for the run's summary."""

    added: int = 0
    missing: int = 0
    position_inconsistent: int = 0
    not_judged: dict[str, int] = field(default_factory=dict)
    """Units left without a verdict because a call of theirs ended in an error, by reason
    (the error's text, shortened: :func:`short_reason`)."""


class LiveVerdicts:
    """Resolves items during a run (see the module docstring).

    Args:
        study: The study (only its path is used: the resolving thread opens its own).
        judges: The run's judge versions.
        items: The run's items.
        calls: Every call of the run (cached or not).
        waiting_for: Keys of the calls this run makes; an item is ready when all of its are in.
        run_id: The run (recorded on each verdict).
        actor: Who ran it.
        batch: Ready items resolved and written together.
    """

    def __init__(
        self,
        study: Study,
        judges: Sequence[JudgeConfig],
        items: Sequence[Item],
        calls: Sequence[CallSpec],
        waiting_for: Sequence[CallSpec],
        *,
        run_id: int | None,
        actor: str,
        batch: int = 50,
    ) -> None:
        self.path = Path(study.path)
        self.settings = study.settings
        self.judges = {j.rater: j for j in judges}
        self.items = {it.id: it for it in items}
        self.run_id = run_id
        self.actor = actor
        self.batch = batch
        self.counts = VerdictCounts()
        self._calls: dict[Group, list[CallSpec]] = defaultdict(list)
        for c in calls:
            self._calls[(c.judge.rater, c.item_id)].append(c)
        self._pending: dict[Group, set[str]] = defaultdict(set)
        self._groups_of: dict[str, list[Group]] = defaultdict(list)
        for c in waiting_for:
            group = (c.judge.rater, c.item_id)
            if c.key not in self._pending[group]:
                self._pending[group].add(c.key)
                self._groups_of[c.key].append(group)
        self._ready: list[Group] = []
        self._done: set[Group] = set()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="medjudge-verdicts")
        self._jobs: list[Future[None]] = []
        self._study: Study | None = None  # opened on the resolving thread

    def stored(self, key: str) -> None:
        """The call ``key`` is committed (whatever its status); resolve a batch when one is full."""
        for group in self._groups_of.pop(key, ()):
            pending = self._pending[group]
            pending.discard(key)
            if not pending:
                self._ready.append(group)
        if len(self._ready) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Hand the items that are ready to the resolving thread."""
        ready, self._ready = self._ready, []
        self._submit(ready)

    def finish(self) -> None:
        """Resolve every item not resolved yet (one with a call still missing gets no verdict),
        and wait until every verdict is written.

        Raises:
            StudyError: a batch could not be written (the first such error).
        """
        self.flush()
        self._submit([g for g in self._calls if g not in self._done])
        try:
            for job in self._jobs:
                job.result()
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop the resolving thread and close its connection: batches not started are
        dropped (the run ended early: an error, Ctrl-C), the one being written is waited for
        (its items' calls are all stored, so its verdicts stand). Never raises; idempotent."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._study is not None:
            with contextlib.suppress(Exception):
                self._study.close()
            self._study = None

    def _submit(self, groups: list[Group]) -> None:
        if groups:
            self._done.update(groups)
            self._jobs.append(self._pool.submit(self._resolve, groups))

    def _resolve(self, groups: list[Group]) -> None:
        """Resolve and write ``groups`` (on the resolving thread)."""
        if self._study is None:
            self._study = Study(self.path, connect(self.path))  # migrated by the run already
        study = self._study
        keys = {c.key for g in groups for c in self._calls[g]}
        outcomes = {
            k: Outcome(v.status, v.parsed, v.error) for k, v in cached_calls(study, keys).items()
        }
        out: dict[str, list[NewVerdict]] = defaultdict(list)
        for rater, item_id in groups:
            item_calls = self._calls[(rater, item_id)]
            errors = [outcomes[c.key] for c in item_calls if c.key in outcomes]
            errors = [o for o in errors if o.status == "error"]
            if errors:  # a call failed: no verdict now (the next run asks again), said why
                units = len(resolve_item(self.items[item_id], item_calls, outcomes, self.settings))
                why = short_reason(errors[0].error)
                self.counts.not_judged[why] = self.counts.not_judged.get(why, 0) + units
                continue
            if any(c.key not in outcomes for c in item_calls):
                continue  # not all calls are in (stopped, in a batch): next run
            judge = self.judges[rater]
            for v in resolve_item(self.items[item_id], item_calls, outcomes, self.settings):
                v.trail.update(
                    judge=rater,
                    template=item_calls[0].template.name,
                    template_hash=item_calls[0].template.hash,
                    samples=judge.samples,
                )
                out[rater].append(NewVerdict(v.unit_id, v.value, v.reason, v.trail))
                self.counts.missing += v.value is None
                self.counts.position_inconsistent += bool(v.trail.get("position_inconsistent"))
        for rater, verdicts in out.items():
            self.counts.added += write_verdicts(
                study,
                rater,
                self.judges[rater].describe(),
                verdicts,
                run_id=self.run_id,
                actor=self.actor,
            )
