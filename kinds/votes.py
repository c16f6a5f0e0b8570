"""The judge protocol's voting rules (docs/design.md §3), as pure functions.

Pairwise, per item, criterion and judge model:

1. Samples are drawn in order AB (the item's answer A shown as "Response A") and BA (swapped);
   BA votes are mapped back to the item's own answers with :func:`.orders.to_file` (tie/neither
   stay).
   Failed samples are not votes of any kind: callers pass only valid votes.
2. :func:`order_majority`: a strict majority of the valid votes wins; otherwise ``tie`` if
   ``tie`` is among the votes, else ``neither`` if it is among them, else the criterion's null
   verdict; with both ``tie`` and ``neither`` present, the null verdict. No valid vote: missing.
3. :func:`reconcile`: AB equal to BA → that verdict; different → the null verdict, recorded as
   a position inconsistency. Either order missing → the verdict is missing.
4. :func:`panel`: several judge models all equal → that verdict; otherwise the null verdict
   (``conservative``, the default) or the plurality (``plurality``; a tied plurality falls back
   to the null verdict). Any member missing → missing.

Statements: strict majority of the sample labels, otherwise ``neutral``; in the K-QA protocol
each sample is a pair of yes/no answers and "contradicts: yes" wins over "entails: yes".
Ratings: the median of the sample values (the lower median for an even count); an options
criterion keeps each option that a strict majority of samples named.
Everything is deterministic: no random choice anywhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from statistics import median_low

MISSING = None
"""A verdict that could not be reached (no valid sample); never silently a tie."""


class StatementsProtocol(StrEnum):
    """How judges label statements: one 3-way NLI prompt, or K-QA's entails/contradicts pair."""

    nli = "nli"
    kqa = "kqa"


class PanelRule(StrEnum):
    """How a panel of judges settles: a split gives the null verdict, or the plurality wins."""

    conservative = "conservative"
    plurality = "plurality"


@dataclass(frozen=True)
class OrderResult:
    """The outcome of one order's samples."""

    verdict: str | None
    rule: str
    """How it was reached: majority, no-majority→tie, no-majority→neither, no-majority→null, missing."""
    disagreed: bool
    """True when the valid samples did not all agree."""


def strict_majority(votes: Sequence[str]) -> str | None:
    """The value held by more than half of the votes, if any."""
    if not votes:
        return None
    value, count = Counter(votes).most_common(1)[0]
    return value if count * 2 > len(votes) else None


def order_majority(votes: Sequence[str], null_verdict: str) -> OrderResult:
    """Per-order majority over the valid samples of one criterion (rule 3)."""
    if not votes:
        return OrderResult(MISSING, "missing", False)
    disagreed = len(set(votes)) > 1
    winner = strict_majority(votes)
    if winner is not None:
        return OrderResult(winner, "majority", disagreed)
    has_tie, has_neither = "tie" in votes, "neither" in votes
    if has_tie and has_neither:
        return OrderResult(null_verdict, "no-majority→null", disagreed)
    if has_tie:
        return OrderResult("tie", "no-majority→tie", disagreed)
    if has_neither:
        return OrderResult("neither", "no-majority→neither", disagreed)
    return OrderResult(null_verdict, "no-majority→null", disagreed)


@dataclass(frozen=True)
class Reconciled:
    """The AB/BA outcome for one criterion."""

    verdict: str | None
    position_inconsistent: bool
    rule: str


def reconcile(ab: str | None, ba: str | None, null_verdict: str) -> Reconciled:
    """Combine the AB and BA per-order verdicts (rule 4); BA must already be unswapped."""
    if ab is MISSING or ba is MISSING:
        return Reconciled(
            MISSING, False, "missing: " + ("AB" if ab is MISSING else "BA") + " had no valid sample"
        )
    if ab == ba:
        return Reconciled(ab, False, "AB = BA")
    return Reconciled(null_verdict, True, "AB ≠ BA → null verdict")


@dataclass(frozen=True)
class PanelResult:
    """The outcome over several judge models."""

    verdict: str | None
    disagreed: bool
    rule: str


def panel(
    verdicts: Sequence[str | None], null_verdict: str, rule: str = "conservative"
) -> PanelResult:
    """Combine several judges' verdicts (rule 5).

    Raises:
        ValueError: unknown rule.
    """
    if rule not in ("conservative", "plurality"):
        raise ValueError(f"unknown panel rule {rule!r}")
    if not verdicts or any(v is MISSING for v in verdicts):
        return PanelResult(MISSING, False, "missing: a member had no verdict")
    present = [v for v in verdicts if v is not None]
    if len(set(present)) == 1:
        return PanelResult(present[0], False, "unanimous")
    if rule == "conservative":
        return PanelResult(null_verdict, True, "split → null verdict")
    ranked = Counter(present).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return PanelResult(null_verdict, True, "tied plurality → null verdict")
    return PanelResult(ranked[0][0], True, "plurality")


def statement_majority(labels: Sequence[str]) -> OrderResult:
    """Statements: strict majority of the sample labels, ``neutral`` without one."""
    if not labels:
        return OrderResult(MISSING, "missing", False)
    winner = strict_majority(labels)
    disagreed = len(set(labels)) > 1
    if winner is None:
        return OrderResult("neutral", "no-majority→neutral", disagreed)
    return OrderResult(winner, "majority", disagreed)


def kqa_label(entails: str, contradicts: str) -> str:
    """One K-QA sample: the two yes/no answers → a statement label (contradicted wins)."""
    if contradicts == "yes":
        return "contradicted"
    if entails == "yes":
        return "entailed"
    return "neutral"


def rating_median(values: Sequence[float]) -> float | None:
    """Median of numeric samples (lower median for an even count); None without samples."""
    return median_low(values) if values else None


def options_majority(samples: Sequence[Sequence[str]]) -> list[str] | None:
    """Options named by a strict majority of samples; None without samples."""
    if not samples:
        return None
    counts = Counter(opt for s in samples for opt in set(s))
    return sorted(o for o, c in counts.items() if c * 2 > len(samples))
