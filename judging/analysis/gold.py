"""Each rater's accuracy on gold units (units with an expected value from the import file).

Per rater (reviewers first, then judges) and criterion: ``n`` gold units the rater labelled,
``correct`` of them, and the accuracy with a Wilson interval. A rater's current label is
compared (a reviewer's label, a judge's latest verdict); a missing verdict is not counted.
"""

from __future__ import annotations

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import GoldRow
from medjudge.judging.analysis.study_data import StudyData, to_value
from medjudge.store.gold import gold_values
from medjudge.store.study import Study


def gold_accuracy(study: Study, data: StudyData, confidence: float = 0.95) -> list[GoldRow]:
    """One record per (rater, criterion) with at least one labelled gold unit."""
    gold = gold_values(study)
    out: list[GoldRow] = []
    for criterion in data.criteria():
        crit = data.criterion(criterion)
        units = [u for u in data.labelled_units(criterion) if u in gold]
        if not units:
            continue
        expected = [to_value(crit, gold[u]) for u in units]
        for kind in ("human", "judge"):
            for rater in data.raters(criterion, kind):
                pairs = [
                    (v, e)
                    for v, e in zip(data.column(criterion, rater, units), expected, strict=True)
                    if v is not None
                ]
                if not pairs:
                    continue
                correct = sum(v == e for v, e in pairs)
                out.append(
                    GoldRow(
                        rater=rater,
                        rater_kind=kind,
                        criterion=criterion,
                        n=len(pairs),
                        correct=int(correct),
                        accuracy=share(correct, len(pairs), confidence),
                    )
                )
    return out
