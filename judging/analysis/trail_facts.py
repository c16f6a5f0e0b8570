"""What the report reads from a verdict's trail, kept instead of the trail itself.

A trail (the stored JSON document of how a verdict was reached: every sample's vote, reason
and call key, per presentation order) takes kilobytes as Python objects; a 100,000-unit study
judged once held hundreds of MB of them while its report was built. The report needs a few
facts from each: the A-B and B-A verdicts, failed samples, whether samples or panel members
disagreed. :func:`trail_facts` reads them; equal facts are one shared object.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from medjudge.store.json_types import JsonObject


@dataclass(frozen=True, slots=True)
class TrailFacts:
    """The facts of one verdict trail that the consistency and position figures use."""

    shape: str
    """``orders`` (one result per presentation order: pairwise AB and BA, a ranking's
    rotations), ``panel`` (a panel's verdict over its members) or ``plain`` (one set of
    samples)."""
    ab: Hashable | None = None
    """``orders``: the verdict of the A-B order (None when that order has none)."""
    ba: Hashable | None = None
    """``orders``: the verdict of the B-A order."""
    failed: int = 0
    """Failed samples (every order together)."""
    voted: bool = False
    """Some samples voted (so whether they disagreed is known)."""
    disagreed: bool = False
    """``orders``/``plain``: the samples of an order disagreed; ``panel``: the members did."""
    sampled: bool = False
    """An order (or the plain trail) has two valid samples or more: only then could its
    samples disagree (one sample per order measures no self-consistency)."""
    inconsistent: bool | None = None
    """``orders``: whether the orders' verdicts differ (position inconsistency); None unless
    every order the trail holds, two or more, has a verdict."""


def _scalar(value: object) -> Hashable | None:
    """A verdict as a label: text, a number or a truth value; anything else is no verdict."""
    return value if isinstance(value, (str, int, float)) else None


def _votes(part: Mapping[str, object]) -> int:
    votes = part.get("votes")
    return len(votes) if isinstance(votes, list) else 0


def _failed(part: Mapping[str, object]) -> int:
    failed = part.get("failed")
    return len(failed) if isinstance(failed, list) else 0


def trail_facts(trail: JsonObject) -> TrailFacts:
    """The facts of one trail (a malformed part counts as absent)."""
    orders = trail.get("orders")
    if isinstance(orders, dict):
        ab, ba = orders.get("AB"), orders.get("BA")
        parts = [o for o in orders.values() if isinstance(o, dict)]
        voted = [o for o in parts if o.get("votes")]
        decided = [_scalar(o.get("verdict")) for o in parts]
        return TrailFacts(
            "orders",
            _scalar(ab.get("verdict")) if isinstance(ab, dict) else None,
            _scalar(ba.get("verdict")) if isinstance(ba, dict) else None,
            sum(_failed(o) for o in parts),
            bool(voted),
            any(bool(o.get("samples_disagreed")) for o in voted),
            any(_votes(o) >= 2 for o in parts),
            len(set(decided)) > 1
            if len(decided) >= 2 and all(d is not None for d in decided)
            else None,
        )
    if "members" in trail:
        return TrailFacts("panel", disagreed=bool(trail.get("judges_disagreed")))
    return TrailFacts(
        "plain",
        failed=_failed(trail),
        voted=bool(trail.get("votes")),
        disagreed=bool(trail.get("samples_disagreed")),
        sampled=_votes(trail) >= 2,
    )
