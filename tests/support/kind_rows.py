"""One valid import row per item kind, for tests that run over every registered kind.

A kind added to ``medjudge.kinds`` without a row here fails ``test_every_kind_has_a_row``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..conftest import pairwise_row, statements_row
from ..test_tui_support import rating_row


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


ROWS: dict[str, Callable[[int], dict[str, Any]]] = {
    "pairwise": pairwise_row,
    "statements": statements_row,
    "rating": rating_row,
    "match": match_row,
}
"""Kind name → a builder of its i-th valid row."""
