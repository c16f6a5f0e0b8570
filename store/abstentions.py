"""Answers that decline to answer: abstentions, counted apart rather than scored — never
silently.

Phrase matching alone is a suggestion, not a verdict: a real answer often opens with a
disclaimer ("As a medical expert, I cannot provide personalized medical advice. However, …")
and then answers. An answer is an abstention only when

- it holds one of the study's ``decline_phrases`` (e.g. "insufficient information"), in any
  case, within its first :data:`HEAD` characters — a model that declines says so up front; and
- no rater (reviewer or judge) and no adjudication has said it answered: no statement of a
  statements item is labelled entailed or contradicted, no score of a match item is above 0.

Every abstention carries the rule and the phrase that made it one (:class:`Abstention`): the
report lists each excluded answer with them. The review app shows a phrase match as a hint
("looks like a refusal?") and the reviewer's labels decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from medjudge import kinds

from .study import Study

HEAD = 200


@dataclass(frozen=True)
class Abstention:
    """One answer counted apart as an abstention, and why."""

    item_id: int
    item: str
    kind: str
    source: str
    phrase: str

    @property
    def rule(self) -> str:
        """The rule that excluded it, in words."""
        the_kind = kinds.get(self.kind)
        said = " or ".join(the_kind.answered_values)
        what = "statements" if the_kind.lists_entries else "units"
        return (
            f"opens with the decline phrase {self.phrase!r} and no rater labelled any of its "
            f"{what} {said}"
        )


def decline_phrase(text: str, phrases: tuple[str, ...]) -> str | None:
    """The first of ``phrases`` found near the start of ``text`` (any case), or None."""
    head = text[:HEAD].casefold()
    return next((p for p in phrases if p.strip() and p.casefold() in head), None)


def declines(text: str, phrases: tuple[str, ...]) -> bool:
    """Whether ``text`` looks like it declines to answer (a suggestion, not a verdict)."""
    return decline_phrase(text, phrases) is not None


def abstentions(study: Study) -> dict[int, Abstention]:
    """The statements and match items whose answer is an abstention (see the module), by id."""
    phrases = study.settings.decline_phrases
    rows = study.conn.execute(
        "SELECT a.item_id, i.ext_id, i.kind, a.source, a.text FROM answers a "
        "JOIN items i ON i.id = a.item_id "
        f"WHERE i.kind IN {kinds.sql_names(kinds.where('abstains'))} AND a.position = 'answer'"
    )
    found = {
        int(item_id): Abstention(int(item_id), str(ext), str(kind), str(source or ""), phrase)
        for item_id, ext, kind, source, text in rows
        if (phrase := decline_phrase(text or "", phrases)) is not None
    }
    if not found:
        return found
    answered: set[int] = set()
    for kind in {a.kind for a in found.values()}:
        values = kinds.get(kind).answered_values
        if not values:
            continue
        marks = ",".join("?" * len(values))
        for table in ("labels", "adjudications"):
            answered.update(
                int(item_id)
                for (item_id,) in study.conn.execute(
                    f"SELECT DISTINCT u.item_id FROM {table} x JOIN units u ON u.id = x.unit_id "
                    f"JOIN items i ON i.id = u.item_id WHERE i.kind = ? AND x.value IN ({marks})",
                    (kind, *values),
                )
            )
    return {i: a for i, a in found.items() if i not in answered}


def declining_items(study: Study) -> set[int]:
    """Ids of the statements and match items that are abstentions (:func:`abstentions`)."""
    return set(abstentions(study))
