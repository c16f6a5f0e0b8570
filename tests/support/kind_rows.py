"""One valid import row per item kind, and the JSONL file that carries rows to an import.

A kind added to ``medjudge.kinds`` without a row here fails ``test_every_kind_has_a_row``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write rows as JSONL and return the path."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def pairwise_row(i: int, **extra: object) -> dict[str, Any]:
    """A valid pairwise record."""
    row: dict[str, Any] = {
        "id": f"p{i}",
        "question": f"Question {i}?",
        "answer_a": f"Answer A {i}.",
        "answer_b": f"Answer B {i}.",
        "source_a": "model-x",
        "source_b": "model-y",
    }
    row.update(extra)
    return row


def statements_row(i: int, **extra: object) -> dict[str, Any]:
    """A valid statements record with two must-have and one nice-to-have statement."""
    row: dict[str, Any] = {
        "id": f"s{i}",
        "question": f"Question {i}?",
        "answer": f"Answer {i}.",
        "source": "model-x",
        "must_have": [f"Must {i}.1", f"Must {i}.2"],
        "nice_to_have": [f"Nice {i}.1"],
    }
    row.update(extra)
    return row


def rating_row(i: int) -> dict[str, Any]:
    """A valid rating record with four options."""
    return {
        "id": f"r{i}",
        "question": f"Case {i}: which next step?",
        "options": {"A": "Treat now", "B": "Test first", "C": "Wait", "D": "Refer"},
        "correct": "A",
        "explanation": f"Explanation {i}: A because it is urgent.",
        "source": "model-x",
    }


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


def ranking_row(i: int) -> dict[str, Any]:
    """Three answers to rank, from three models."""
    return {
        "id": f"k{i}",
        "question": f"Question {i}: my toddler swallowed a button battery, what now?",
        "answers": [
            {"text": f"First answer {i}: go to the emergency department now.", "source": "model-x"},
            {"text": f"Second answer {i}: give honey and go to the ED.", "source": "model-y"},
            {"text": f"Third answer {i}: wait and watch for symptoms.", "source": "model-z"},
        ],
    }


MODELS = ("model-x", "model-y", "model-z")


def pairwise_of_three(i: int) -> dict[str, Any]:
    """A pairwise record whose two answers come from two of three models, each pair in turn
    (with three models the report ranks them: its model ranking section is there)."""
    return pairwise_row(i, source_a=MODELS[i % 3], source_b=MODELS[(i + 1) % 3])


ROWS: dict[str, Callable[[int], dict[str, Any]]] = {
    "pairwise": pairwise_of_three,
    "statements": statements_row,
    "rating": rating_row,
    "match": match_row,
    "rubric": rubric_row,
    "ranking": ranking_row,
}
"""Kind name → a builder of its i-th valid row."""
