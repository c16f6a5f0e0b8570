"""Answers excluded from the figures, each with the rule that excluded it: nothing is
left out silently.

Today the one exclusion is the abstention (:mod:`medjudge.store.abstentions`): a statements
answer gets no K-QA figure and a match prediction no MedRGB score when it opens with one of the
study's decline phrases *and* no rater labelled it as answering. The report lists every such
answer, with the phrase, out of all the answers that could abstain ("n of N").
"""

from __future__ import annotations

from collections.abc import Mapping

from medjudge import kinds
from medjudge.judging.analysis.records_sections import (
    Exclusion,
    ExclusionsSection,
    RetiredItem,
    RetiredSection,
)
from medjudge.judging.analysis.study_data import StudyData

RULE = (
    "An answer is an abstention — left out of the K-QA and MedRGB figures and counted apart — "
    "only when it opens with one of the study's decline phrases (settings --decline-phrase; "
    "within its first 200 characters) and no rater or adjudication says it answered (no "
    "statement labelled entailed or contradicted; no match score above 0). A phrase alone, "
    "such as a disclaimer before a real answer, excludes nothing."
)


RETIRED_RULE = (
    "A lead retired these items (medjudge retire, with a reason): they stay in the study — "
    "labels, verdicts, calls and adjudications are kept — but are in no queue and in none of "
    "the figures above (medjudge retire --undo brings an item back)."
)


def retired(data: StudyData) -> RetiredSection | None:
    """The items retired from the study, with who retired them, when and why (else None)."""
    if not data.retired:
        return None
    rows = [
        RetiredItem(item=r.ext_id, kind=r.kind, reason=r.reason, by=r.by, at=r.at)
        for r in data.retired
    ]
    return RetiredSection(items=rows, rule=RETIRED_RULE)


def exclusions(data: StudyData, sections: Mapping[str, str]) -> ExclusionsSection | None:
    """The excluded answers of a study with statements or match items (else None).

    Args:
        sections: kind name → the report section its figures are in (the kind's report
            facet: ``kqa``, ``medrgb``), which names each excluded answer's section; a kind
            without one is named itself.
    """
    abstaining = kinds.where("abstains")
    answers = sum(n for kind, n in data.items_by_kind.items() if kind in abstaining)
    if not answers:
        return None
    rows = [
        Exclusion(section=sections.get(a.kind, a.kind), item=a.item, source=a.source, rule=a.rule)
        for a in sorted(data.abstentions.values(), key=lambda a: (a.kind, a.item))
    ]
    return ExclusionsSection(answers=answers, excluded=rows, rule=RULE)
