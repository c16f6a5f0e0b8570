"""``statements``: one answer checked against physician statements (entailed / neutral /
contradicted) — K-QA's comprehensiveness and hallucination figures come from these labels.

Import fields: id, question, answer, source, and either ``statements`` (a list of {text,
category}) or ``must_have`` / ``nice_to_have`` lists; optional context, batch, labels (a label
names its statement by number: ``{"rater": ..., "statement": 0, "value": "entailed"}``). K-QA's
own files are read by ``store.importing.kqa`` into the same items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import fields
from .base import COMMON_FIELDS, JudgePlan, Kind, Pane, keyed

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

LABELS = ("entailed", "neutral", "contradicted")
SPELLINGS = {
    "entailed": "entailed", "entailment": "entailed", "entails": "entailed",
    "neutral": "neutral",
    "contradicted": "contradicted", "contradiction": "contradicted", "contradicts": "contradicted",
}  # fmt: skip
"""Accepted spellings of statement labels (lower case) → the canonical label."""
CRITERION = "entailment"
"""The one criterion of a statements item; its units are the item's statements."""
CATEGORIES = ("must_have", "nice_to_have")


@dataclass(frozen=True)
class Statements(Kind):
    """An answer and its statements."""

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One generic statements record."""
        statements: list[tuple[str, str]] = []
        raw = rec.data.get("statements")
        if raw not in (None, "", []):
            if isinstance(raw, str) and raw.strip().startswith("["):
                raw = rec.json_cell("statements", raw, "a JSON list")
            if not isinstance(raw, list):
                raise rec.problem("expected a list of {text, category}", "statements")
            for i, s in enumerate(raw):
                where = f"statements[{i}]"
                if (
                    not isinstance(s, dict)
                    or not isinstance(s.get("text"), str)
                    or not s["text"].strip()
                ):
                    raise rec.problem('expected {"text": ..., "category": ...}', where)
                cat = str(s.get("category", "")).strip().lower().replace("-", "_")
                if cat not in CATEGORIES:
                    raise rec.problem(
                        "category must be must_have or nice_to_have", f"{where}.category"
                    )
                statements.append((s["text"].strip(), cat))
        else:
            statements += [(t, "must_have") for t in rec.text_list("must_have")]
            statements += [(t, "nice_to_have") for t in rec.text_list("nice_to_have")]
        if not statements:
            raise rec.problem(
                "an item needs at least one statement (statements, or must_have/nice_to_have)",
                "statements",
            )
        return fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("answer", "answer", "source")],
            statements=statements,
        )


KIND = Statements(
    name="statements",
    doc="One answer checked against physician statements (entailed / neutral / contradicted).",
    fields=COMMON_FIELDS | {"answer", "source", "statements", "must_have", "nice_to_have"},
    values=LABELS,
    spellings=SPELLINGS,
    value_words="entailed, neutral or contradicted",
    keys=keyed(
        [
            ("e", "entailed", "Entailed"),
            ("n", "neutral", "Neutral"),
            ("c", "contradicted", "Contradicted"),
        ]
    ),
    abstains=True,
    listed_criterion=CRITERION,
    listed_field="statement",
    item_criteria=False,
    panes=(Pane("question", "Question"), Pane("answer", "Answer")),
    lists_entries=True,
    default_criteria=(
        {
            "name": CRITERION,
            "kind": "statements",
            "question": "Does the answer entail, contradict, or not address the statement?",
        },
    ),
    judge=JudgePlan(template="nli"),
)
