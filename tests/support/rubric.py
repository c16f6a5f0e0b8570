"""A rubric study's rows: three criteria, two reviewers' and an imported judge's marks."""

from __future__ import annotations

from typing import Any

RUBRIC: list[dict[str, Any]] = [
    {"criterion": "Advises epinephrine.", "points": 8, "tags": ["accuracy"]},
    {"criterion": "Says to call emergency services.", "points": 4, "tags": ["completeness"]},
    {"criterion": "Recommends antihistamines alone.", "points": -6, "tags": ["accuracy"]},
]


MARKS = {
    # item → (reviewer marks, judge marks) per rubric criterion
    "r0": (["met", "met", "not_met"], ["met", "not_met", "not_met"]),
    "r1": (["met", "not_met", "met"], ["met", "not_met", "not_met"]),
    "r2": (["not_met", "met", "not_met"], ["met", "met", "not_met"]),
    "r3": (["met", "met", "met"], ["met", "met", "met"]),
}


SOURCES = {"r0": "model-x", "r1": "model-x", "r2": "model-y", "r3": "model-y"}


def rubric_item(ext: str) -> dict[str, Any]:
    humans, judge = MARKS[ext]
    labels = []
    for rater, marks in (("drA", humans), ("drB", humans), ("ext-judge", judge)):
        for pos, mark in enumerate(marks):
            label = {"rater": rater, "rubric": pos, "value": mark}
            if rater == "ext-judge":
                label["type"] = "judge"
            labels.append(label)
    row: dict[str, Any] = {
        "id": ext,
        "answer": f"Answer {ext}.",
        "source": SOURCES[ext],
        "rubric": RUBRIC,
        "labels": labels,
    }
    if ext == "r0":
        row["conversation"] = [
            {"role": "user", "content": "I was stung by a bee and my throat feels tight."},
            {"role": "assistant", "content": "Do you carry an auto-injector?"},
            {"role": "user", "content": "Yes. What now?"},
        ]
    else:
        row["question"] = f"Question {ext}: what to do after a sting with throat swelling?"
    return row
