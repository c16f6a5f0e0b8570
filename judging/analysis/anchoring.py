"""Anchoring: how often reviewers change a label after the judge's verdict and the other
reviewers' labels are revealed, and toward whom.

Per reviewer (and for all reviewers together):

- ``n_labels``: units the reviewer labelled; ``changed``: post-reveal changes (a label whose
  value the reviewer changed after the reveal — each change counts once), with its share of
  ``n_labels``;
- of the changes, ``toward_judge``: the new value equals a judge's current verdict that the old
  value did not; ``toward_reviewers``: the new value is the strict majority of the other
  reviewers' current labels and the old value was not; a change may count in both;
  ``elsewhere``: neither.

Shares carry Wilson intervals and their n. This is the figure the blind protocol exists for: a
high ``toward_judge`` share means the judge's verdict, once shown, moves physicians.
"""

from __future__ import annotations

from collections import Counter

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import AnchoringRow
from medjudge.store import reads
from medjudge.store.history import PostRevealChange, labels_per_reviewer, post_reveal_changes
from medjudge.store.study import Study

ALL = "all reviewers"


def _majority(values: tuple[str, ...]) -> str | None:
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > len(values) else None


def _row(
    reviewer: str, n_labels: int, changes: list[PostRevealChange], confidence: float
) -> AnchoringRow:
    judge = sum(c.new in c.judge_values and c.old not in c.judge_values for c in changes)
    peers = 0
    for c in changes:
        m = _majority(c.others)
        peers += m is not None and c.new == m and c.old != m
    elsewhere = sum(
        not (c.new in c.judge_values and c.old not in c.judge_values)
        and not (_majority(c.others) == c.new and c.old != c.new)
        for c in changes
    )
    n = len(changes)
    return AnchoringRow(
        reviewer=reviewer,
        n_labels=n_labels,
        changed=share(n, n_labels, confidence, empty="no labels"),
        toward_judge=share(judge, n, confidence, empty="no changes after the reveal"),
        toward_reviewers=share(peers, n, confidence, empty="no changes after the reveal"),
        elsewhere=share(elsewhere, n, confidence, empty="no changes after the reveal"),
    )


def anchoring(study: Study, confidence: float = 0.95) -> list[AnchoringRow]:
    """One record per reviewer who labelled anything, then one for all reviewers together."""
    changes = post_reveal_changes(study)
    labels = labels_per_reviewer(study)
    gone = reads.retired_units(study)
    if gone:  # a retired item (``medjudge retire``) counts in no figure
        changes = [c for c in changes if c.unit_id not in gone]
        for label in reads.current_labels(study):
            if label.rater_kind == "human" and label.unit_id in gone:
                labels[label.rater] -= 1
        labels = {name: n for name, n in labels.items() if n}
    rows = [
        _row(name, n, [c for c in changes if c.reviewer == name], confidence)
        for name, n in labels.items()
    ]
    if len(rows) > 1:
        rows.append(_row(ALL, sum(labels.values()), changes, confidence))
    return rows
