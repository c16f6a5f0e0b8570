"""Judge audit of statements items (#28): K-QA comprehensiveness and hallucinations per answer
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

from dataclasses import dataclass, field

import numpy as np

from medjudge.judging.analysis.audit_figures import means_three_ways
from medjudge.judging.analysis.kqa import answer_figures, statement_answers
from medjudge.judging.analysis.records_audit import AuditMeanRow
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.kinds.statements import CRITERION as STATEMENT_CRITERION

METRICS = ("comprehensiveness", "hallucinations")


@dataclass
class KqaAudit:
    """The corrected K-QA figures of a sampled frame, with what they rest on."""

    rows: list[AuditMeanRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    population: int = 0
    sampled: int = 0
    labelled: int = 0
    outside: int = 0


def kqa_audit(
    data: StudyData,
    judge: str,
    frame: set[int],
    sampled: set[int],
    *,
    confidence: float,
    target: float,
) -> KqaAudit:
    """Comprehensiveness and hallucinations per source over the answers of ``frame``."""
    answers = statement_answers(data)
    units = answers.units
    judged = answer_figures(data.column(STATEMENT_CRITERION, judge, units), judge, answers)
    majority = data.column(STATEMENT_CRITERION, MAJORITY, units)
    reference = [data.adjudications.get(u, m) for u, m in zip(units, majority, strict=True)]
    ref = answer_figures(reference, "reference", answers)
    out = KqaAudit()
    declined = no_figure = unlabelled = 0
    rows: dict[str, list[int]] = {}
    for k, item in enumerate(answers.item_ids):
        has_reference = ref[k].comprehensiveness is not None
        if item not in frame:
            out.outside += has_reference
            continue
        out.sampled += item in sampled
        if answers.declined[k]:
            declined += 1
            continue
        if judged[k].comprehensiveness is None:
            no_figure += 1
            continue
        out.population += 1
        if item in sampled:
            out.labelled += has_reference
            unlabelled += not has_reference
        elif has_reference:
            out.outside += 1
        rows.setdefault(answers.sources[k], []).append(k)
    for source, ks in sorted(rows.items()):
        labelled = [
            k for k in ks if answers.item_ids[k] in sampled and ref[k].comprehensiveness is not None
        ]
        rest = [k for k in ks if k not in set(labelled)]
        for metric in METRICS:
            y = np.array([float(getattr(ref[k], metric)) for k in labelled], dtype=np.float64)
            mine = np.array([float(getattr(judged[k], metric)) for k in labelled], dtype=np.float64)
            other = np.array([float(getattr(judged[k], metric)) for k in rest], dtype=np.float64)
            out.rows.append(
                AuditMeanRow(
                    source=source,
                    metric=metric,
                    answers=len(ks),
                    figures=means_three_ways(y, mine, other, confidence=confidence, target=target),
                )
            )
    if declined:
        out.notes.append(f"{declined:,} answer(s) declining to answer left out (abstentions)")
    if no_figure:
        out.notes.append(
            f"{no_figure:,} answer(s) without a judged Must_have statement ({judge}) left out"
        )
    if unlabelled:
        out.notes.append(
            f"{unlabelled:,} sampled answer(s) without a reference label on a Must_have "
            "statement yet: counted with the judge's figures only"
        )
    if out.outside:
        out.notes.append(
            f"{out.outside:,} answer(s) with reference labels outside the random sample not "
            "used (not random)"
        )
    return out
