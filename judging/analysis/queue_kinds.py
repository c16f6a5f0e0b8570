"""The kinds of disagreement the adjudication queue lists (a light module: the command line
builds its --kind choice from it without loading the statistics)."""

from __future__ import annotations

from enum import StrEnum


class DisagreementKind(StrEnum):
    """Why a unit is in the adjudication queue."""

    reviewer_vs_reviewer = "reviewer_vs_reviewer"
    reviewer_vs_judge = "reviewer_vs_judge"
    judge_vs_judge = "judge_vs_judge"
    position_inconsistency = "position_inconsistency"
    samples_disagreed = "samples_disagreed"
    failed_samples = "failed_samples"


KINDS: tuple[str, ...] = tuple(k.value for k in DisagreementKind)
