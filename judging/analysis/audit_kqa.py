"""Judge audit of statements items: K-QA comprehensiveness and hallucinations per answer
source, three ways (judge only, physicians only, corrected by PPI++).

The unit is the answer (a statements item): its comprehensiveness (entailed / labelled
Must_have statements) and hallucinations (contradicted statements), from the judge's verdicts
and from the reference labels (per statement: the latest adjudication, else the reviewers'
majority), as :mod:`.kqa` defines them. The corrected figure is the mean per answered question
(K-QA's "answered" macro) with the reference figures of the sampled answers, the judge's on
those and on the rest of the sampled frame. Answers that decline to answer have neither figure
and are left out (counted), as are answers the judge gave no figure.
"""

from __future__ import annotations

from medjudge.judging.analysis.audit_answers import (
    Answer,
    AnswersAudit,
    Wording,
    answers_audit,
    reference_column,
)
from medjudge.judging.analysis.audit_figures import Bounds
from medjudge.judging.analysis.kqa import answer_figures, statement_answers
from medjudge.judging.analysis.records_sections import KqaAnswer
from medjudge.judging.analysis.study_data import StudyData
from medjudge.kinds.statements import CRITERION as STATEMENT_CRITERION

METRICS: dict[str, Bounds] = {"comprehensiveness": (0.0, 1.0), "hallucinations": (0.0, None)}
"""Each figure per answer and its range (hallucinations: a count of statements, from 0 up to
the most seen)."""

WORDING = Wording(
    no_judge="without a judged Must_have statement ({judge})",
    no_reference="without a reference label on a Must_have statement yet",
)


def kqa_audit(
    data: StudyData,
    judge: str,
    frame: set[int],
    sampled: set[int],
    *,
    confidence: float,
    target: float,
) -> AnswersAudit:
    """Comprehensiveness and hallucinations per source over the answers of ``frame``, and each
    pair of sources' difference (:func:`.audit_answers.answers_audit`)."""
    answers = statement_answers(data)
    units = answers.units
    judged = answer_figures(data.column(STATEMENT_CRITERION, judge, units), judge, answers)
    ref = answer_figures(reference_column(data, STATEMENT_CRITERION, units), "reference", answers)

    def figures(f: KqaAnswer) -> tuple[float, ...] | None:
        if f.comprehensiveness is None or f.hallucinations is None:
            return None
        return (float(f.comprehensiveness), float(f.hallucinations))

    rows = [
        Answer(item, answers.sources[k], figures(judged[k]), figures(ref[k]), answers.declined[k])
        for k, item in enumerate(answers.item_ids)
    ]
    return answers_audit(
        rows, METRICS, judge, frame, sampled, confidence=confidence, target=target, wording=WORDING
    )
