"""``settings --fast-rule``: reading the option and saying the rule (too-fast labels)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from medjudge.store.study import Study

from .common import UserError


def parse_fast_rule(text: str) -> float | None:
    """``--fast-rule``'s value: a fraction strictly between 0 and 1, or None for ``off``.

    Raises:
        UserError: anything else, with the option named.
    """
    word = text.strip().lower()
    if word == "off":
        return None
    try:
        value = float(word)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 < value < 1:
        raise UserError(
            f"--fast-rule {text!r}: give a fraction between 0 and 1 (e.g. 0.33: under a third "
            "of the typical time), or 'off' to clear the rule"
        )
    return value


def fast_rule_line(fraction: float | None) -> str:
    """The settings display's line for the rule."""
    if fraction is None:
        return "too-fast labels: no rule (settings --fast-rule FRACTION)"
    return (
        f"too-fast labels: under {fraction:g} × the smaller of the reviewer's and the team's "
        "median time on the item's kind"
    )


def fast_status(study: Study) -> dict[str, object] | None:
    """``status``'s figures of the rule (None: no rule): the fraction, the items and labels it
    flags, and the reviewers it flags them for."""
    fraction = study.settings.fast_rule
    if fraction is None:
        return None
    from medjudge.judging.analysis.fast_labels import fast_flags  # only with a rule

    flags = fast_flags(study, fraction)
    return {
        "fraction": fraction,
        "items": len(flags.flagged),
        "labels": flags.labels,
        "reviewers": sorted({f.reviewer for f in flags.flagged}),
        "not_judged": [f"{n.reviewer} on {n.kind}" for n in flags.not_judged],
    }


def fast_status_line(fast: Mapping[str, object]) -> str:
    """``status``'s line: how many labels the rule flags."""
    reviewers = fast["reviewers"]
    assert isinstance(reviewers, list)
    who = f" ({', '.join(reviewers)})" if reviewers else ""
    return (
        f"too-fast labels (under {fast['fraction']:g} × the typical time): {fast['labels']} "
        f"label(s) on {fast['items']} item(s){who}; `requeue --fast` sends them back"
    )
