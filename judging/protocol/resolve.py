"""From an item's judge calls to its verdicts, each with the trail that produced it.

Input: the planned calls of one judge for one item and their stored outcomes (only ``ok``
samples count; ``failed`` samples are listed in the trail and never vote). Output: one
verdict per unit, by the item's kind (:meth:`kinds.base.Kind.judge_resolve`, following the
voting rules of :mod:`kinds.votes` exactly).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from medjudge import kinds
from medjudge.judging.protocol.plan import CallSpec
from medjudge.kinds.judged import Sample, Samples, Verdict
from medjudge.store.items import Item
from medjudge.store.settings import StudySettings


@dataclass(frozen=True)
class Outcome:
    """A stored call result."""

    status: str
    parsed: Any
    error: str | None = None


def _samples(calls: list[CallSpec], outcomes: dict[str, Outcome]) -> Samples:
    got = Samples()
    for c in sorted(calls, key=lambda c: c.sample):
        o = outcomes.get(c.key)
        if o is not None and o.status == "ok":
            got.valid.append(Sample(c.key, c.sample, o.parsed))
        else:
            got.failed.append(
                {
                    "key": c.key,
                    "sample": c.sample,
                    "error": o.error if o else "not run",
                    "status": o.status if o else None,
                }
            )
    return got


def resolve_item(
    item: Item, calls: list[CallSpec], outcomes: dict[str, Outcome], settings: StudySettings
) -> list[Verdict]:
    """Verdicts of one judge for one item.

    Args:
        item: the item.
        calls: every planned call of this judge for the item.
        outcomes: call key → stored outcome (keys missing here count as failed).
        settings: the study settings (criteria, null verdicts).
    """
    by_task: dict[str, list[CallSpec]] = defaultdict(list)
    for c in calls:
        by_task[c.task].append(c)
    samples = {task: _samples(group, outcomes) for task, group in by_task.items()}
    kind = kinds.get(item.kind)
    return kind.judge_resolve(item, samples, settings.criteria_for(item.kind))
