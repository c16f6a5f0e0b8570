"""Reads of the label history for the report: what reviewers changed after the reveal.

A post-reveal change is a ``label`` row of ``label_history`` with ``after_reveal`` set whose old
and new values differ (a first label is never a change). For each, the reviewer's change comes
with what they could have been pulled toward: the judges' current verdicts on the unit and the
other reviewers' current labels (the store's "current" rules: a reviewer's label is their row in
``labels``; a judge's verdict is its latest ``ok`` row).
"""

from __future__ import annotations

from dataclasses import dataclass

from .study import Study


@dataclass(frozen=True)
class PostRevealChange:
    """One label a reviewer changed after the judge's verdict and others' labels were shown."""

    reviewer: str
    unit_id: int
    criterion: str
    old: str
    new: str
    judge_values: tuple[str, ...]
    """Current ``ok`` verdicts of every judge (not panels) on the unit, in judge-name order."""
    others: tuple[str, ...]
    """The other reviewers' current labels on the unit."""


_CHANGES = """
    SELECT h.id, r.name, h.unit_id, u.criterion, h.old_value, h.new_value
    FROM label_history h JOIN raters r ON r.id = h.rater_id JOIN units u ON u.id = h.unit_id
    WHERE h.action = 'label' AND h.after_reveal = 1 AND r.kind = 'human'
      AND h.old_value IS NOT NULL AND h.new_value IS NOT NULL AND h.old_value != h.new_value
    ORDER BY h.id"""

_JUDGES = """
    SELECT v.value FROM current_verdicts v JOIN raters r ON r.id = v.rater_id
    WHERE v.unit_id = ? AND r.kind = 'judge' AND r.name NOT LIKE 'panel:%' AND v.status = 'ok'
    ORDER BY r.name"""

_OTHERS = """
    SELECT l.value FROM labels l JOIN raters r ON r.id = l.rater_id
    WHERE l.unit_id = ? AND r.kind = 'human' AND r.name != ? ORDER BY r.name"""


def post_reveal_changes(study: Study) -> list[PostRevealChange]:
    """Every post-reveal change in the order it was made."""
    conn = study.conn
    out = []
    for _, reviewer, unit_id, criterion, old, new in conn.execute(_CHANGES).fetchall():
        judges = tuple(v for (v,) in conn.execute(_JUDGES, (unit_id,)))
        others = tuple(v for (v,) in conn.execute(_OTHERS, (unit_id, reviewer)))
        out.append(PostRevealChange(reviewer, unit_id, criterion, old, new, judges, others))
    return out


def labels_per_reviewer(study: Study) -> dict[str, int]:
    """Per reviewer: how many units they have a label on (the base of the change rate)."""
    rows = study.conn.execute(
        "SELECT r.name, count(*) FROM labels l JOIN raters r ON r.id = l.rater_id "
        "WHERE r.kind = 'human' GROUP BY r.name ORDER BY r.name"
    )
    return {str(name): int(n) for name, n in rows}
