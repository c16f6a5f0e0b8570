"""How the judge audit (:mod:`.audit`) treats a kind's criteria: one :class:`AuditForm` per
way, declared by each kind's report facet (``kinds/<name>/report.py``: ``AUDIT =
audit_forms.SHARES``) and found by :func:`of_kind`, so that the audit asks the form instead of
comparing a kind's name or a string standing for it.

- :data:`SHARES`: each source's win / tie / loss share per unit (pairwise);
- :data:`ANSWERS`: K-QA comprehensiveness and hallucinations per answer (:mod:`.audit_kqa`);
- :data:`SCORES`: each per-item criterion's numeric label (a rating scale, a match score)
  averaged per source (:func:`.audit_answers.score_answers`);
- :data:`RUBRIC_SCORES`: each answer's rubric score per source, from its listed entries'
  points (:func:`.audit_answers.rubric_answers`);
- :data:`NONE`: the kind's criteria are not audited (said in the report).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from medjudge import kinds
from medjudge.judging.analysis.audit_answers import (
    AnswersAudit,
    answers_audit,
    rubric_answers,
    score_answers,
)
from medjudge.judging.analysis.audit_figures import Bounds
from medjudge.judging.analysis.audit_kqa import kqa_audit
from medjudge.judging.analysis.study_data import StudyData
from medjudge.store.json_types import JsonObject


@dataclass(frozen=True)
class AnswerInputs:
    """What a per-answer audit of one criterion is computed from."""

    data: StudyData
    criterion: str
    judge: str
    """The criterion's headline judge."""
    frame: set[int]
    """The sampled frame's items (restricted to the criterion's)."""
    sampled: set[int]
    """The sampled items."""
    entries: Mapping[int, JsonObject]
    """Unit id → its listed entry's data (a rubric criterion's points), when the form asks
    for them (:attr:`AuditForm.listed_entries`)."""
    confidence: float
    target: float


PerAnswer = Callable[[AnswerInputs], AnswersAudit | str]
"""A criterion's per-answer figures, or why there are none."""


@dataclass(frozen=True)
class AuditForm:
    """One way the judge audit treats a kind's criteria."""

    name: str
    """What the form is called (for messages and tests)."""
    audited: bool = True
    """Whether the kind's criteria are audited at all."""
    per_answer: PerAnswer | None = None
    """The figures per answer; None: per unit, each source's win / tie / loss share."""
    listed_entries: bool = False
    """Whether the audit reads the kind's listed entries' data (``store.reads.listed_entries``
    by the kind's ``listed_field``)."""
    unit: str = "answers"
    """What the audit's population counts."""


def _kqa(i: AnswerInputs) -> AnswersAudit | str:
    return kqa_audit(i.data, i.judge, i.frame, i.sampled, confidence=i.confidence, target=i.target)


def _scores(i: AnswerInputs) -> AnswersAudit | str:
    if kinds.get(i.data.kind_of(i.criterion)).listed_criterion == i.criterion:
        return (
            "not computed: its units are an item's listed entries (sub-questions), which "
            "cluster within the sampled items"
        )
    found = score_answers(i.data, i.criterion, i.judge)
    if found is None:
        return "not computed: its labels are not numbers (an option set)"
    # a scale's range is the labels seen
    metric: dict[str, Bounds] = {"mean_score": (None, None)}
    return answers_audit(
        found, metric, i.judge, i.frame, i.sampled, confidence=i.confidence, target=i.target
    )


def _rubric_scores(i: AnswerInputs) -> AnswersAudit | str:
    answers = rubric_answers(i.data, i.criterion, i.judge, i.entries)
    # a rubric score is a share of points (0 to 1)
    metric: dict[str, Bounds] = {"rubric_score": (0.0, 1.0)}
    return answers_audit(
        answers, metric, i.judge, i.frame, i.sampled, confidence=i.confidence, target=i.target
    )


SHARES = AuditForm("shares", unit="units")
ANSWERS = AuditForm("answers", per_answer=_kqa)
SCORES = AuditForm("scores", per_answer=_scores)
RUBRIC_SCORES = AuditForm("rubric_scores", per_answer=_rubric_scores, listed_entries=True)
NONE = AuditForm("none", audited=False)


@cache
def of_kind(name: str) -> AuditForm:
    """The audit form of the kind called ``name`` (its report facet's ``AUDIT``).

    Raises:
        LookupError: the kind's report facet declares none.
    """
    module = importlib.import_module(f"medjudge.kinds.{kinds.get(name).name}.report")
    form = getattr(module, "AUDIT", None)
    if not isinstance(form, AuditForm):
        raise LookupError(
            f"the {name} kind's report facet declares no audit form (AUDIT = audit_forms.NONE "
            "if it is not audited)"
        )
    return form
