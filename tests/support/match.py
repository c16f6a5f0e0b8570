"""A MedRGB ``match`` study: conditions × p, an abstention, documents and sub-questions."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .kind_rows import write_jsonl


def medrgb_rows() -> list[dict[str, object]]:
    """Conditions × p, an abstention, counterfactual documents and sub-questions."""
    rows: list[dict[str, object]] = []
    for test, p in (("standard", 0), ("sufficiency", 40), ("robustness", 40), ("robustness", 80)):
        for m, model in enumerate(("model-x", "model-y")):
            rows.append(
                {
                    "id": f"{test}-{p}-{model}",
                    "question": f"Which drug first for anaphylaxis? ({test}, p={p})",
                    "options": {"A": "Epinephrine", "B": "Antihistamine"},
                    "prediction": "Insufficient information to answer."
                    if (test, p, m) == ("sufficiency", 40, 1)
                    else ("A. Epinephrine IM" if m == 0 else "B. Antihistamine, PARTLY"),
                    "source": model,
                    "ground_truth": "A. Epinephrine",
                    "documents": [
                        {"text": "Epinephrine IM is first line.", "kind": "signal"},
                        {"text": "Antihistamines are first line.", "kind": "counterfactual"},
                        {"text": "The clinic opens at nine.", "kind": "noise"},
                    ],
                    "test": test,
                    "p": p,
                }
            )
    rows[0]["subquestions"] = [
        {"question": "Route?", "reference": "intramuscular", "prediction": "intramuscular"},
        {"question": "Site?", "reference": "outer thigh", "prediction": "the arm WRONG"},
    ]
    return rows


def match_study(tmp_path: Path) -> Study:
    s = Study.create(tmp_path / "m.db", actor="lead")
    import_file(s, write_jsonl(tmp_path / "m.jsonl", medrgb_rows()), "match", actor="lead")
    return s
