"""``match`` (MedRGB): a (RAG) model's prediction scored against the ground truth: 1 / 0.5 / 0,
and each sub-answer against its reference.

Import fields: id, question, prediction (the model's answer), source, ground_truth; optional
options ({letter: text}), documents (a list of {text, kind} with kind ``signal``, ``noise`` or
``counterfactual``; plain texts are ``signal``), subquestions (a list of {question, reference,
prediction}), batch, labels; extra fields such as ``test`` and ``p`` are metadata (slices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, votes
from ..base import COMMON_FIELDS, CriterionLike, Kind, keyed
from ..judged import (
    Ask,
    ItemLike,
    JudgePlan,
    Prompt,
    Samples,
    UnitLike,
    Verdict,
    context_block,
    first_reason,
)

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

SCORES = ("0", "0.5", "1")
"""MedRGB's scores of a prediction against the ground truth: wrong or irrelevant, partly
matching and relevant, matching (in order)."""
SPELLINGS = {"1": "1", "1.0": "1", "0.5": "0.5", ".5": "0.5", "0": "0", "0.0": "0"}
"""Accepted spellings of match scores → the canonical score."""
CRITERION = "match"
"""The criterion of a match item's prediction against its ground truth."""
SUB_CRITERION = "submatch"
"""The criterion of a match item's sub-questions; its units are the sub-questions."""
DOCUMENT_KINDS = ("signal", "noise", "counterfactual")
_SCORE_TEXT = {1.0: "1", 0.5: "0.5", 0.0: "0"}
REPLY_SCHEMA = {
    "name": "match",
    "schema": {
        "type": "object",
        "properties": {"score": {"enum": [1, 0.5, 0]}, "reason": {"type": "string"}},
        "required": ["score", "reason"],
    },
}
"""JSON schema of a match reply."""


@dataclass(frozen=True)
class Match(Kind):
    """A prediction, its ground truth, retrieval documents and sub-questions."""

    def default_level(self, criterion: CriterionLike) -> str:
        """0 < 0.5 < 1: ordered."""
        return "ordinal"

    def check_criterion(self, criterion: CriterionLike) -> str | None:
        """0, 0.5 and 1 are numbers: an interval level is meaningful too."""
        if criterion.measurement == "interval":
            return None
        return super().check_criterion(criterion)

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """The prediction against the ground truth (task ``match``), then each sub-answer
        against its reference (``match/<statement id>``); the same template, the same rubric."""
        options: dict[str, str] = item.data.get("options", {})
        shown_options = (
            "<options>\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) + "\n</options>"
            if options
            else ""
        )
        values = {
            "question": item.question,
            "options": shown_options,
            "context": context_block(item),
            "ground_truth": str(item.data.get("ground_truth", "")),
            "prediction": item.answers["answer"].text,
        }
        reply = {"form": "score"}
        asks = [Ask("match", "match", values, REPLY_SCHEMA, reply)]
        subs: list[dict[str, str]] = item.data.get("subquestions", [])
        for st, sub in zip(item.statements, subs, strict=False):
            sub_values = {
                "question": st.text,
                "options": "",
                "context": context_block(item),
                "ground_truth": sub.get("reference", ""),
                "prediction": sub.get("prediction", ""),
            }
            asks.append(Ask(f"match/{st.id}", "match", sub_values, REPLY_SCHEMA, reply))
        return asks

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """The prediction's score and each sub-answer's: the median of the samples' scores
        (the lower median for an even count, as for ratings)."""
        units: list[tuple[Any, str, int | None]] = [(item.unit_for(CRITERION), "match", None)]
        units += [
            (item.unit_for(SUB_CRITERION, st.id), f"match/{st.id}", st.position)
            for st in item.statements
        ]
        out = []
        for unit, task, position in units:
            got = samples.get(task, Samples())
            scores = [s.parsed["score"] for s in got.valid]
            reasons = [s.parsed["reason"] for s in got.valid]
            med = votes.rating_median([float(x) for x in scores])
            value = None if med is None else _SCORE_TEXT[med]
            trail = {
                "protocol": "match",
                "criterion": unit.criterion,
                "subquestion": position,
                "calls": got.keys,
                "failed": got.failed,
                "votes": scores,
                "reasons": reasons,
                "verdict": value,
                "rule": "median of samples (lower median when even)"
                if value is not None
                else "missing",
                "samples_disagreed": len(set(scores)) > 1,
            }
            out.append(Verdict(unit.id, value, first_reason(scores, reasons, value), trail))
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """The lowest score the judges gave: a split panel credits no more than its most
        critical member."""
        return min(values, key=float)

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One MedRGB-style record: a prediction to score against the ground truth."""
        texts, kinds = _documents(rec)
        subs: list[dict[str, str]] = []
        for i, sq in enumerate(fields.json_list(rec, "subquestions")):
            where = f"subquestions[{i}]"
            if not isinstance(sq, dict):
                raise rec.problem(
                    'expected {"question": ..., "reference": ..., "prediction": ...}', where
                )
            entry = {}
            for key in ("question", "reference", "prediction"):
                value = sq.get(key)
                if not isinstance(value, str) or not value.strip():
                    raise rec.problem("needs a text", f"{where}.{key}")
                entry[key] = value.strip()
            subs.append(entry)
        data: dict[str, Any] = {"ground_truth": rec.text("ground_truth") or ""}
        options = fields.options(rec, required=False)
        if options:
            data["options"] = options
        if texts:
            data["document_kinds"] = kinds
        if subs:
            data["subquestions"] = [
                {"reference": s["reference"], "prediction": s["prediction"]} for s in subs
            ]
        return fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("answer", "prediction", "source")],
            statements=[(s["question"], "subquestion") for s in subs],
            data=data,
            documents=texts,
        )


def _documents(rec: Record) -> tuple[list[str], list[str]]:
    """The context documents' texts and kinds (``documents``, or ``context``: all signal)."""
    raw = fields.json_list(rec, "documents")
    if not raw:
        texts = fields.context(rec)
        return texts, ["signal"] * len(texts)
    texts, kinds = [], []
    for i, doc in enumerate(raw):
        where = f"documents[{i}]"
        if isinstance(doc, str) and doc.strip():
            texts.append(doc)
            kinds.append("signal")
            continue
        if (
            not isinstance(doc, dict)
            or not isinstance(doc.get("text"), str)
            or not doc["text"].strip()
        ):
            raise rec.problem('expected {"text": ..., "kind": ...}', where)
        kind = str(doc.get("kind", "signal")).strip().lower()
        if kind not in DOCUMENT_KINDS:
            raise rec.problem(
                f"kind must be one of {', '.join(DOCUMENT_KINDS)}, not {kind!r}", f"{where}.kind"
            )
        texts.append(doc["text"])
        kinds.append(kind)
    return texts, kinds


KIND = Match(
    name="match",
    doc="A (RAG) answer scored against the ground truth: 1 / 0.5 / 0 (MedRGB).",
    fields=COMMON_FIELDS
    | {"options", "prediction", "source", "ground_truth", "documents", "subquestions"},
    values=SCORES,
    spellings=SPELLINGS,
    value_words="a match score (1, 0.5 or 0)",
    keys=keyed(
        [
            ("1", "1", "Match", "the prediction (or sub-answer) matches the ground truth"),
            ("h", "0.5", "Half", "half: it matches part of it and is relevant (0.5)"),
            ("0", "0", "Wrong", "wrong or irrelevant"),
        ]
    ),
    help_title="Match items (a prediction against the ground truth, MedRGB)",
    help_extra=(
        ("w", "mark a context document the answer wrongly relied on (again: unmark)"),
        ("", "documents' kinds (signal, noise, counterfactual) show after your labels"),
    ),
    default_slices=("test", "p"),
    abstains=True,
    answered_values=("0.5", "1"),
    marks_documents=True,
    fields_hidden_until_labelled=True,
    listed_criterion=SUB_CRITERION,
    listed_name="sub-question",
    listed_title="Sub-questions",
    default_criteria=(
        {
            "name": CRITERION,
            "kind": "match",
            "question": "Does the prediction match the ground truth? 1 = it matches, 0.5 = it "
            "matches part of it and is relevant, 0 = wrong or irrelevant",
        },
        {
            "name": SUB_CRITERION,
            "kind": "match",
            "question": "Does the sub-answer match the reference sub-answer? (1 / 0.5 / 0)",
        },
    ),
    judge=JudgePlan(
        prompts=(
            Prompt(
                "match",
                "match_v1",
                frozenset({"question", "ground_truth", "prediction"}),
                frozenset({"context", "options"}),
                reply_before_forms={"form": "score"},
            ),
        )
    ),
)
