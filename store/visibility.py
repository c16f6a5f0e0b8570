"""What a reviewer may see of other raters on an item: nothing, while blind, until their own
labels for the item are all saved; everything afterwards (or always, in a non-blind study).

The review app reads other raters' labels and judge verdicts only through here.
"""

from __future__ import annotations

from .judgments import VerdictView, item_verdicts
from .labels import item_labels, other_labels
from .study import Study


def own_labels_complete(study: Study, item_id: int, reviewer: str) -> bool:
    """Whether the reviewer has labelled every unit of the item."""
    total = study.conn.execute(
        "SELECT count(*) FROM units WHERE item_id = ?", (item_id,)
    ).fetchone()[0]
    return total > 0 and len(item_labels(study, item_id, reviewer)) == total


def may_see_others(study: Study, item_id: int, reviewer: str) -> bool:
    """True when the study is not blind or the reviewer's own labels are all saved."""
    return not study.settings.blind or own_labels_complete(study, item_id, reviewer)


def visible_verdicts(study: Study, item_id: int, reviewer: str) -> list[VerdictView]:
    """Judge verdicts on the item, or [] while the reviewer may not see them."""
    return item_verdicts(study, item_id) if may_see_others(study, item_id, reviewer) else []


def visible_other_labels(study: Study, item_id: int, reviewer: str) -> dict[int, dict[str, str]]:
    """Other reviewers' labels (unit → {rater: value}), or {} while blind."""
    if not may_see_others(study, item_id, reviewer):
        return {}
    return {
        u: {r: v for r, v in by.items()} for u, by in other_labels(study, item_id, reviewer).items()
    }
