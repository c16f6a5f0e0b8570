"""Ranking the candidate models from the pairwise verdicts: a Bradley–Terry strength per
model and criterion, for the physicians and for each judge version, with 95% BCa intervals
over questions, and Kendall's τ between each judge's ranking and the physicians'
(:mod:`medjudge.judging.stats.bradley_terry`).

A verdict compares the item's two sources (``source_a``, ``source_b``): ``A`` is a win of the
first, ``B`` of the second, ``tie`` and ``neither`` half a win each. On a risk criterion
(harmfulness, bias: "which is worse?") the answer chosen loses, so every ranking reads "better
first". The physicians' ranking pools every physician's verdict (each one a comparison); a
judge version's has one verdict per unit. Verdicts are resampled by question: the item's
``question_id`` field when it has one (several items on one question), else the item.
Computed only with three or more candidates on the criterion (with two, the win rates say
it all); an item whose two answers come from the same source is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from medjudge import kinds
from medjudge.judging.analysis.records import Figure, Record
from medjudge.judging.analysis.study_data import StudyData
from medjudge.judging.stats import bradley_terry as bt
from medjudge.judging.stats.bradley_terry import Comparison

PHYSICIANS = "physicians"
"""The pooled physicians' ranking, by this name in every format."""

MIN_CANDIDATES = 3

SCORES = {"A": 1.0, "B": 0.0, "tie": 0.5, "neither": 0.5}
"""A pairwise verdict's score for the first source (benefit criteria)."""

NOTE = (
    "Bradley–Terry strengths (ties and 'neither' as half a win each; risk criteria: the answer "
    "chosen as worse loses), on the log-odds scale and centred to mean 0: the difference of "
    "two strengths is the log-odds that the first is preferred. 95% BCa intervals over "
    "questions; the physicians' ranking pools every physician's verdict. Kendall's τ compares "
    "each judge's ranking with the physicians', with its interval from the same resamples."
)


class CandidateStrength(Record):
    """One model's strength and rank in one ranking."""

    candidate: str
    rank: int | None
    strength: Figure
    wins: float
    comparisons: int


class RaterRanking(Record):
    """One rater's ranking of the models on one criterion."""

    criterion: str
    rater: str
    rater_kind: str
    comparisons: int
    questions: int
    reason: str | None
    candidates: list[CandidateStrength]
    tau_vs_physicians: Figure | None
    """Kendall's τ-b with the physicians' ranking (None: this is the physicians' ranking, or
    there is none)."""


def _comparisons(
    data: StudyData, criterion: str, rater: str, units: Sequence[int], risk: bool
) -> list[Comparison]:
    out = []
    for u, value in zip(units, data.column(criterion, rater, units), strict=True):
        score = SCORES.get(str(value)) if value is not None else None
        info = data.units[u]
        first, second = (info.sources + ("", ""))[:2]
        if score is None or not first or not second or first == second:
            continue
        question = str(info.meta.get("question_id") or info.item)
        out.append(Comparison(question, first, second, 1.0 - score if risk else score))
    return out


def _record(
    criterion: str,
    rater: str,
    kind: str,
    ranking: bt.Ranking,
    tau: Figure | None,
) -> RaterRanking:
    return RaterRanking(
        criterion=criterion,
        rater=rater,
        rater_kind=kind,
        comparisons=ranking.comparisons,
        questions=ranking.questions,
        reason=ranking.reason,
        candidates=[
            CandidateStrength(
                candidate=s.candidate,
                rank=s.rank,
                strength=Figure.of(s.strength),
                wins=s.wins,
                comparisons=s.comparisons,
            )
            for s in ranking.strengths
        ],
        tau_vs_physicians=tau,
    )


def model_rankings(
    data: StudyData, *, n_boot: int, seed: int, confidence: float
) -> list[RaterRanking]:
    """Every pairwise criterion's rankings with three or more candidates: the physicians'
    first, then each judge version's (empty: no such criterion)."""
    out: list[RaterRanking] = []
    for criterion in data.criteria():
        if not kinds.get(data.kind_of(criterion)).win_rates:
            continue
        crit = data.criterion(criterion)
        risk = crit is not None and crit.polarity == "risk"
        units = data.labelled_units(criterion)
        names = sorted({s for u in units for s in data.units[u].sources[:2] if s})
        if len(names) < MIN_CANDIDATES:
            continue

        def rank(cs: list[Comparison], names: list[str] = names) -> bt.Ranking:
            return bt.rank(cs, candidates=names, n_boot=n_boot, seed=seed, confidence=confidence)

        humans = [
            c
            for h in data.raters(criterion, "human")
            for c in _comparisons(data, criterion, h, units, risk)
        ]
        if humans:
            out.append(_record(criterion, PHYSICIANS, "human", rank(humans), None))
        for judge in data.raters(criterion, "judge"):
            mine = _comparisons(data, criterion, judge, units, risk)
            if not mine:
                continue
            tau = None
            if humans:
                tau = Figure.of(
                    bt.rank_correlation(
                        humans,
                        mine,
                        candidates=names,
                        n_boot=n_boot,
                        seed=seed,
                        confidence=confidence,
                    )
                )
            out.append(_record(criterion, judge, "judge", rank(mine), tau))
    return out
