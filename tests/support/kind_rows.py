"""One valid import row per item kind, for tests that run over every registered kind.

A kind added to ``medjudge.kinds`` without a row here fails ``test_every_kind_has_a_row``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..conftest import pairwise_row, statements_row
from .tui import rating_row


def match_row(i: int) -> dict[str, Any]:
    """A MedRGB-style row with two documents and two sub-questions."""
    return {
        "id": f"m{i}",
        "question": f"Question {i}: first-line treatment of anaphylaxis?",
        "prediction": f"Prediction {i}: intramuscular epinephrine.",
        "source": "model-x",
        "ground_truth": "Epinephrine IM",
        "documents": [
            {"text": "Epinephrine IM is first line.", "kind": "signal"},
            {"text": "The clinic opens at nine.", "kind": "noise"},
        ],
        "subquestions": [
            {"question": "Which drug?", "reference": "Epinephrine", "prediction": "Epinephrine"},
            {"question": "Which route?", "reference": "IM", "prediction": "IV"},
        ],
        "test": "counterfactual",
    }


def rubric_row(i: int) -> dict[str, Any]:
    """A HealthBench-style row: a short conversation, an answer and three rubric criteria
    (one with negative points), tagged."""
    return {
        "id": f"r{i}",
        "conversation": [
            {
                "role": "user",
                "content": f"Case {i}: I have a bee sting allergy. What should I carry?",
            }
        ],
        "answer": f"Answer {i}: carry an epinephrine auto-injector and use it at once.",
        "source": "model-x" if i % 2 else "model-y",
        "rubric": [
            {
                "criterion": "Advises an epinephrine auto-injector.",
                "points": 8,
                "tags": ["accuracy"],
            },
            {
                "criterion": "Tells to call emergency services.",
                "points": 5,
                "tags": ["completeness"],
            },
            {
                "criterion": "Recommends antihistamines instead of epinephrine.",
                "points": -6,
                "tags": ["accuracy"],
            },
        ],
    }


ROWS: dict[str, Callable[[int], dict[str, Any]]] = {
    "pairwise": pairwise_row,
    "statements": statements_row,
    "rating": rating_row,
    "match": match_row,
    "rubric": rubric_row,
}
"""Kind name → a builder of its i-th valid row."""
