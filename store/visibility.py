"""What a reviewer may see of other raters: in the review app, nothing on an item, while blind,
until their own labels for it are all saved; everything afterwards (or always, in a non-blind
study). On the command line (reports, exports, the adjudication list), while the study is
blind, only leads and adjudicators see judge verdicts and other reviewers' labels
(:func:`require_unblinded`); a reviewer exports only their own labels.

The acting person is the login name. This keeps colleagues honest; it is not a security
boundary — the study file's permissions are (see :mod:`.roles`).
"""

from __future__ import annotations

from .judgments import VerdictView, item_verdicts
from .labels import labels_complete, other_labels
from .roles import PermissionDenied, has_lead, roles_of
from .study import Study


def own_labels_complete(study: Study, item_id: int, reviewer: str) -> bool:
    """Whether the reviewer has labelled every unit of the item."""
    return labels_complete(study.conn, item_id, reviewer)


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


def sees_everything(study: Study, login: str) -> bool:
    """Whether ``login`` may see every verdict and label on the command line: the study is not
    blind, or they are a lead or an adjudicator (or no lead is named yet)."""
    if not study.settings.blind or not has_lead(study):
        return True
    return bool(roles_of(study, login) & {"lead", "adjudicator"})


def require_unblinded(study: Study, login: str, what: str) -> None:
    """Refuse ``what`` (e.g. "the report") to a reviewer while the study is blind.

    Raises:
        PermissionDenied: naming the roles that may and how to get one.
    """
    if sees_everything(study, login):
        return
    raise PermissionDenied(
        f"{what} shows judge verdicts and other reviewers' labels, and this study is blind: "
        f"it needs the lead or adjudicator role ({login} has "
        f"{', '.join(sorted(roles_of(study, login))) or 'no role'}); a lead can grant it with "
        f"`medjudge role {study.path} add {login} --as adjudicator`"
    )
