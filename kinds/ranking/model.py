"""``ranking``: two to five answers to one question, ranked from best to worst.

Import fields: id, question, answers (a list of two to five ``{"text", "source"}`` objects, in
slots A, B, C, … in the file's order); optional context, batch, labels (a label's value is a
ranking, ``"B>A>C"``: the file's letters, best first).

A ranking is a strict order of every answer of the item: no ties (a reviewer who finds two
answers equally good still puts one first; the agreement figures count how often two raters
order each pair alike). Each item shows its answers in a seeded random order; a reviewer presses
the shown answers' numbers from best to worst (``2 1 3``), the last one implied, and the ranking
is stored in the file's letters. A judge ranks every rotation of the answers (each answer shown
first once); the rotations' rankings, mapped back to the file's letters, are combined by
:func:`resolve`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, orders
from ..base import COMMON_FIELDS, CriterionLike, Kind, ValueKey
from ..judged import (
    Ask,
    ItemLike,
    JudgePlan,
    Prompt,
    Samples,
    UnitLike,
    Verdict,
    context_block,
)

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

MIN_ANSWERS, MAX_ANSWERS = 2, 5
"""How many answers a ranking item holds."""
CRITERION = "ranking"
"""The default criterion: the answers ranked from best to worst."""
SEP = ">"
"""Between the letters of a stored ranking: ``B>A>C``."""


def letters(value: str) -> list[str]:
    """A stored ranking's letters, best first (``"B>A>C"`` → ``["B", "A", "C"]``)."""
    return [p.strip() for p in value.split(SEP)] if value.strip() else []


def joined(ranked: Sequence[str]) -> str:
    """Letters, best first, as a stored ranking."""
    return SEP.join(ranked)


def parse_ranking(raw: str) -> str:
    """A ranking as written (``b > a > c``, ``BAC``, ``B,A,C``) → canonical ``B>A>C``.

    Raises:
        ValueError: not a ranking of distinct answer letters.
    """
    text = raw.strip().upper()
    for sep in (",", " ", ";"):
        text = text.replace(sep, SEP if sep != " " else "")
    parts = [p for p in text.split(SEP) if p] if SEP in text else list(text)
    known = orders.slots(MAX_ANSWERS)
    if len(parts) < MIN_ANSWERS or any(len(p) != 1 or p not in known for p in parts):
        raise ValueError(
            f"{raw!r} is not a ranking: give the answers' letters best first, e.g. B>A>C"
        )
    if len(set(parts)) != len(parts):
        raise ValueError(f"{raw!r} ranks an answer twice")
    return joined(parts)


def fits(value: str, slots: str) -> str | None:
    """Why a ranking does not rank exactly the item's answers ``slots``, or None."""
    got = letters(value)
    if sorted(got) != sorted(slots):
        return f"{value!r} must rank each of the item's answers {', '.join(slots)} once"
    return None


def ranks(value: str) -> dict[str, int]:
    """Each answer's rank in a stored ranking (1 = best)."""
    return {letter: n for n, letter in enumerate(letters(value), start=1)}


def resolve(rankings: Sequence[str]) -> tuple[str | None, str]:
    """One ranking from several (a judge's samples, its rotations, a panel's members), and the
    rule that gave it: a strict majority of identical rankings wins; otherwise the Borda
    ranking (answers by their mean rank) when no two answers tie on it; otherwise none."""
    if not rankings:
        return None, "missing"
    top, count = Counter(rankings).most_common(1)[0]
    if count * 2 > len(rankings):
        return top, "majority"
    totals: Counter[str] = Counter()
    for value in rankings:
        for letter, rank in ranks(value).items():
            totals[letter] += rank
    scored = sorted(totals.items(), key=lambda kv: (kv[1], kv[0]))
    if len({total for _, total in scored}) < len(scored):
        return None, "no majority and a tie in mean rank"
    return joined([letter for letter, _ in scored]), "no majority → mean rank (Borda)"


def reply_schema(n: int) -> dict[str, Any]:
    """JSON schema of a ranking reply of ``n`` responses: their numbers, best first."""
    places = {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": n},
        "minItems": n,
        "maxItems": n,
        "uniqueItems": True,
    }
    return {
        "name": "ranking",
        "schema": {
            "type": "object",
            "properties": {"ranking": places, "reason": {"type": "string"}},
            "required": ["ranking", "reason"],
        },
    }


@dataclass(frozen=True)
class Ranking(Kind):
    """Two to five answers ranked best to worst."""

    def key_hint(self, criterion: CriterionLike) -> str:
        """The keys, in a few characters."""
        return "1–5 best first"

    def item_values(self, criterion: CriterionLike, slots: str) -> tuple[str, ...]:
        """Every ranking of the item's answers (120 for five)."""
        return tuple(joined(p) for p in itertools.permutations(slots))

    def check_criterion(self, criterion: CriterionLike) -> str | None:
        """A ranking criterion has no scale, options or polarity."""
        if criterion.scale is not None or criterion.options or criterion.polarity is not None:
            return f"ranking criterion {criterion.name!r} takes no scale, options or polarity"
        return None

    def free_value(self, criterion: CriterionLike, value: str) -> str:
        """A ranking as written → its canonical form (``b>a>c`` → ``B>A>C``)."""
        return parse_ranking(value)

    def fits_item(self, value: str, slots: str) -> str | None:
        """Why a ranking does not rank exactly the item's answers."""
        return fits(value, slots)

    # -- keys that build a ranking ----------------------------------------------------------
    def compose(self, partial: str, key_value: str, n_answers: int) -> tuple[str, bool]:
        """The places pressed so far (``"21"``) and one more → the new partial ranking and
        whether it is complete (the last answer is implied). A place already ranked or beyond
        the item's answers changes nothing."""
        if not key_value.isdigit() or not 1 <= int(key_value) <= n_answers or key_value in partial:
            return partial, False
        partial += key_value
        if len(partial) == n_answers - 1:
            rest = next(str(n) for n in range(1, n_answers + 1) if str(n) not in partial)
            return partial + rest, True
        return partial, False

    def partial_text(self, partial: str, n_answers: int) -> str:
        """A ranking being built, as shown: ``2 > 1 > …``."""
        return " > ".join([*partial, "…"] if len(partial) < n_answers else partial)

    def to_file_frame(self, value: str, order: str | None) -> str:
        """A ranking given as shown places (``"213"``: the answer shown second is best) or as
        display letters → the file's letters (``B>A>C``)."""
        shown = list(value) if value.isdigit() else letters(value)
        slots = [orders.SLOTS[int(p) - 1] if p.isdigit() else p for p in shown]
        return joined([orders.to_file(s, order) for s in slots])

    def to_display_frame(self, value: str, order: str | None) -> str:
        """A stored ranking as the reviewer sees it: the shown places, ``2 > 1 > 3``."""
        places = [orders.SLOTS.find(orders.to_display(s, order)) + 1 for s in letters(value)]
        return " > ".join(str(p) for p in places)

    # -- judges ----------------------------------------------------------------------------
    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """Each criterion, in every rotation of the answers (each answer shown first once)."""
        slots = orders.slots_of(item.answers)
        asks = []
        for crit in criteria:
            for order in orders.rotations(slots):
                responses = "\n\n".join(
                    f"<response_{n}>\n{item.answers[slot].text}\n</response_{n}>"
                    for n, slot in enumerate(order, start=1)
                )
                values = {
                    "question": item.question,
                    "context": context_block(item),
                    "responses": responses,
                    "n": str(len(order)),
                    "criterion": crit.question,
                }
                reply = {"form": "kind", "kind": self.name, "n": len(order)}
                asks.append(
                    Ask(
                        f"ranking/{crit.name}/{order}",
                        "ranking",
                        values,
                        reply_schema(len(order)),
                        reply,
                    )
                )
        return asks

    def read_reply(self, obj: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, Any]:
        """``{"ranking": [2, 1, 3], "reason": …}`` → the ranking in the order's places.

        Raises:
            ValueError: not a ranking of every response once.
        """
        raw = obj.get("ranking")
        n = int(reply["n"])
        if not isinstance(raw, list) or sorted(str(x) for x in raw) != [
            str(i) for i in range(1, n + 1)
        ]:
            raise ValueError(
                f"'ranking' must list the response numbers 1–{n} once each, best first"
            )
        reason = obj.get("reason")
        return {
            "places": "".join(str(x) for x in raw),
            "reason": reason if isinstance(reason, str) else "",
        }

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """Per criterion: each rotation's samples resolved (:func:`resolve`), mapped back to
        the file's letters; then the rotations' rankings resolved the same way. Rotations that
        disagree are position-inconsistent."""
        slots = orders.slots_of(item.answers)
        out = []
        for crit in criteria:
            trail: dict[str, Any] = {
                "protocol": "ranking rotations",
                "criterion": crit.name,
                "orders": {},
            }
            per_order: list[str] = []
            reasons: list[tuple[str, str, str]] = []
            for order in orders.rotations(slots):
                got = samples.get(f"ranking/{crit.name}/{order}", Samples())
                shown = [s.parsed["places"] for s in got.valid]
                cast = [self.to_file_frame(p, order) for p in shown]
                verdict, rule = resolve(cast)
                trail["orders"][order] = {
                    "calls": got.keys,
                    "votes": cast,
                    "shown_votes": shown,
                    "reasons": [s.parsed["reason"] for s in got.valid],
                    "failed": got.failed,
                    "verdict": verdict,
                    "rule": rule,
                    "samples_disagreed": len(set(cast)) > 1,
                }
                if verdict is not None:
                    per_order.append(verdict)
                reasons += [
                    (order, v, s.parsed["reason"]) for v, s in zip(cast, got.valid, strict=True)
                ]
            asked = len(orders.rotations(slots))
            value, rule = (
                resolve(per_order)
                if len(per_order) == asked
                else (None, "missing: a rotation had no ranking")
            )
            trail.update(
                verdict=value,
                rule=rule,
                position_inconsistent=len(set(per_order)) > 1,
            )
            reason = next((f"[{o}] {r}" for o, v, r in reasons if v == value and r), "")
            out.append(Verdict(item.unit_for(crit.name).id, value, reason, trail))
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """A split panel: the members' mean-rank ranking, else the first member's."""
        ranked, _ = resolve(values)
        return ranked if ranked is not None else values[0]

    # -- import ----------------------------------------------------------------------------
    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One ranking record: a question and two to five answers."""
        raw = fields.json_list(rec, "answers")
        if not MIN_ANSWERS <= len(raw) <= MAX_ANSWERS:
            raise rec.problem(
                f"expected {MIN_ANSWERS} to {MAX_ANSWERS} answers, got {len(raw)}", "answers"
            )
        answers = []
        for i, entry in enumerate(raw):
            where = f"answers[{i}]"
            if not isinstance(entry, dict):
                raise rec.problem('expected {"text": ..., "source": ...}', where)
            text, source = entry.get("text"), entry.get("source")
            if not isinstance(text, str):  # an empty text is an answer (shown as empty)
                raise rec.problem("missing answer text", f"{where}.text")
            if not isinstance(source, str) or not source.strip():
                raise rec.problem("missing source (the model that wrote it)", f"{where}.source")
            answers.append((orders.SLOTS[i], text if text.strip() else "", source.strip()))
        out = fields.item(rec, self, settings, batch, answers=[])
        out.answers = answers
        slots = orders.slots(len(answers))
        for n, label in enumerate(out.labels):
            problem = fits(label.value, slots)
            if problem is not None:
                raise rec.problem(problem, f"labels[{n}].value")
        return out


KIND = Ranking(
    name="ranking",
    doc="Two to five answers ranked from best to worst.",
    fields=COMMON_FIELDS | {"answers"},
    value_words="a ranking of the answers' letters, best first (B>A>C)",
    keys=tuple(
        ValueKey(str(n), str(n), str(n), f"answer {n} (the one shown in place {n}) is next best")
        for n in range(1, MAX_ANSWERS + 1)
    ),
    key_group="Rank",
    help_title="Ranking items (press the answers' numbers from best to worst)",
    help_keys=(
        ("1–5", "the answer shown in that place is the next best; the last one is implied"),
        ("escape", "start the ranking again (nothing is saved until it is complete)"),
    ),
    source_positions=tuple(orders.slots(MAX_ANSWERS)),
    letters="A, B, C … = the answers in the file's order",
    shuffles_answers=True,
    composes=True,
    default_criteria=(
        {
            "name": CRITERION,
            "kind": "ranking",
            "question": "Rank the answers from best to worst for the person asking.",
        },
    ),
    judge=JudgePlan(
        prompts=(
            Prompt(
                "ranking",
                "ranking_v1",
                frozenset({"question", "responses", "n", "criterion"}),
                keyed=False,
            ),
        ),
        orders=orders.rotations("ABC"),
    ),
)
