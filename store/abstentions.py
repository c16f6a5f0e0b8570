"""Answers that decline to answer: abstentions, counted apart rather than scored.

An answer declines when one of the study's ``decline_phrases`` (e.g. "insufficient
information") appears, in any case, within its first :data:`HEAD` characters — a model that
declines says so up front; a long answer that mentions the phrase later is an answer.
"""

from __future__ import annotations

from medjudge import kinds

from .study import Study

HEAD = 200


def declines(text: str, phrases: tuple[str, ...]) -> bool:
    """Whether ``text`` declines to answer."""
    head = text[:HEAD].casefold()
    return any(p.casefold() in head for p in phrases if p.strip())


def declining_items(study: Study) -> set[int]:
    """Ids of the statements and match items whose answer declines (``decline_phrases``):
    a K-QA answer or a MedRGB prediction of "insufficient information" is an abstention."""
    phrases = study.settings.decline_phrases
    rows = study.conn.execute(
        "SELECT a.item_id, a.text FROM answers a JOIN items i ON i.id = a.item_id "
        f"WHERE i.kind IN {kinds.sql_names(kinds.where('abstains'))} AND a.position = 'answer'"
    )
    return {int(item_id) for item_id, text in rows if declines(text or "", phrases)}
