"""K-QA metrics (Manes et al., 2024) per answer and per source model, from any rater.

For one rater's labels on a statements item (one model answer and its reference statements):

- comprehensiveness = entailed Must_have statements / Must_have statements;
- hallucinations = number of contradicted statements (Must_have and Nice_to_have).

A statement the rater has not labelled is left out of both (the figures are over labelled
statements only) and shows in the coverage counts. An answer with no labelled Must_have
statement has no comprehensiveness; one with no labelled statement at all has neither figure.

Per source model the report gives macro averages over the answered questions (answers with a
figure from this rater) with percentile-bootstrap intervals over answers, and over *all*
questions as the K-QA paper does: the number of reference questions recorded by a K-QA import
(study setting ``kqa_questions``) or else the number of statements items of that source, with
questions that have no figure counting as comprehensiveness 0 and hallucinations 0. Its
interval is the answered one scaled by answered / all (exact for a fixed answered count).
Also the share of answers with at least one contradicted statement (Wilson interval).

Abstentions: an answer that declines to answer (one of the study's ``decline_phrases`` near its
start *and* no rater labelled any of its statements entailed or contradicted,
:mod:`medjudge.store.abstentions`; a disclaimer before a real answer is no abstention) gets
neither figure — it is not an answer that missed every statement — and is counted apart
(``declined``, with its share) and listed with its rule in the report's exclusions
(:mod:`.exclusions`); in the "all questions" figures it counts as 0, like a question left
unanswered.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records_sections import KqaAnswer, KqaRater, KqaSection, KqaSource
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.bootstrap import mean_bca
from medjudge.judging.stats.estimates import Estimate
from medjudge.kinds.statements import CRITERION as STATEMENT_CRITERION


def mean_estimate(
    values: list[float],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
    empty: str = "no answers with a figure",
) -> Estimate:
    """The mean of ``values`` with a BCa bootstrap interval (resampling the answers)."""
    return mean_bca(values, n_boot=n_boot, seed=seed, confidence=confidence, empty=empty)


def _scaled(est: Estimate, factor: float, n: int) -> Figure:
    """An estimate multiplied by ``factor`` (for the over-all-questions macro), of ``n``."""
    if est.value is None:
        return Figure.of(Estimate.undefined(est.reason or "undefined", n))
    low = None if est.ci_low is None else est.ci_low * factor
    high = None if est.ci_high is None else est.ci_high * factor
    return Figure.of(
        Estimate(est.value * factor, low, high, n, reason=est.reason, method=est.method)
    )


@dataclass(frozen=True)
class StatementAnswers:
    """Statements items as columns: per statement unit its answer's position and whether it
    is Must_have; per answer its item name, source and abstention."""

    units: Sequence[int]
    answer: npt.NDArray[np.intp]
    must: npt.NDArray[np.bool_]
    items: list[str]
    sources: list[str]
    declined: list[bool]
    item_ids: list[int]


def statement_answers(data: StudyData) -> StatementAnswers:
    """The statements items of a study, answer by answer (in the order of their units)."""
    units = data.units_by_criterion.get(STATEMENT_CRITERION, ())
    position: dict[int, int] = {}
    answer = np.empty(len(units), dtype=np.intp)
    must = np.empty(len(units), dtype=bool)
    items: list[str] = []
    sources: list[str] = []
    declined: list[bool] = []
    item_ids: list[int] = []
    for i, u in enumerate(units):
        info = data.units[u]
        k = position.get(info.item_id)
        if k is None:
            k = position[info.item_id] = len(items)
            items.append(info.item)
            sources.append(info.source_label)
            declined.append(info.item_id in data.declined)
            item_ids.append(info.item_id)
        answer[i] = k
        must[i] = info.category == "must_have"
    return StatementAnswers(units, answer, must, items, sources, declined, item_ids)


def _answer_figures(data: StudyData, rater: str, answers: StatementAnswers) -> list[KqaAnswer]:
    """K-QA figures of every statements answer from one rater (or :data:`MAJORITY`)."""
    return answer_figures(data.column(STATEMENT_CRITERION, rater, answers.units), rater, answers)


def answer_figures(
    labels: Sequence[Hashable | None], rater: str, answers: StatementAnswers
) -> list[KqaAnswer]:
    """K-QA figures of every statements answer from one column of statement labels (one per
    unit of ``answers``, None where unlabelled), named ``rater``."""
    labelled = np.fromiter((v is not None for v in labels), dtype=bool, count=len(labels))
    entailed = np.fromiter((v == "entailed" for v in labels), dtype=bool, count=len(labels))
    contra = np.fromiter((v == "contradicted" for v in labels), dtype=bool, count=len(labels))
    n = len(answers.items)

    def per_answer(mask: npt.NDArray[np.bool_]) -> list[int]:
        return [int(x) for x in np.bincount(answers.answer[mask], minlength=n)]

    statements = per_answer(np.ones(len(labels), dtype=bool))
    n_labelled = per_answer(labelled)
    must = per_answer(answers.must)
    must_labelled = per_answer(answers.must & labelled)
    must_entailed = per_answer(answers.must & entailed)
    contradicted = per_answer(contra)
    out = []
    for k in range(n):
        declined = answers.declined[k]
        ml = 0 if declined else must_labelled[k]  # an abstention: counted apart, never scored
        lab = 0 if declined else n_labelled[k]
        out.append(
            KqaAnswer(
                item=answers.items[k],
                source=answers.sources[k],
                rater=rater,
                statements=statements[k],
                labelled=lab,
                must_have=must[k],
                must_labelled=ml,
                must_entailed=must_entailed[k],
                contradicted=contradicted[k],
                comprehensiveness=must_entailed[k] / ml if ml else None,
                hallucinations=contradicted[k] if lab else None,
                declined=declined,
            )
        )
    return out


def _source_figures(
    answers: list[KqaAnswer], n_all: int, *, n_boot: int, seed: int, confidence: float
) -> KqaSource:
    """Macro K-QA figures over the answers of one source (see the module docstring)."""
    comp = [a.comprehensiveness for a in answers if a.comprehensiveness is not None]
    hall = [float(a.hallucinations) for a in answers if a.hallucinations is not None]
    comp_est = mean_estimate(comp, n_boot=n_boot, seed=seed, confidence=confidence)
    hall_est = mean_estimate(hall, n_boot=n_boot, seed=seed, confidence=confidence)
    n_all = max(n_all, len(answers))
    declined = sum(a.declined for a in answers)
    return KqaSource(
        answers=len(answers),
        declined=declined,
        declined_share=share(declined, len(answers), confidence),
        answers_with_labels=sum(a.labelled > 0 for a in answers),
        statements=sum(a.statements for a in answers),
        statements_labelled=sum(a.labelled for a in answers),
        questions_all=n_all,
        comprehensiveness_answered=Figure.of(comp_est),
        hallucinations_answered=Figure.of(hall_est),
        comprehensiveness_all=_scaled(comp_est, len(comp) / n_all, n_all) if n_all else None,
        hallucinations_all=_scaled(hall_est, len(hall) / n_all, n_all) if n_all else None,
        contradiction_share=share(
            sum(h > 0 for h in hall), len(hall), confidence, empty="no answers with labels"
        ),
    )


def kqa_raters(data: StudyData) -> list[str]:
    """Raters with statement labels: the reviewers' majority (2+ reviewers), reviewers, judges."""
    humans = data.raters(STATEMENT_CRITERION, "human")
    return (
        ([MAJORITY] if len(humans) >= 2 else [])
        + humans
        + data.raters(STATEMENT_CRITERION, "judge")
    )


def kqa_metrics(
    data: StudyData, *, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95
) -> KqaSection | None:
    """K-QA figures per answer and per source model, for every rater with statement labels.

    Args:
        data: the loaded study.
        n_boot: bootstrap resamples for the macro intervals.
        seed: bootstrap seed.
        confidence: interval level.

    Returns:
        None without statements items; else ``questions_all`` (the K-QA question count or
        None), ``raters`` (one record per rater with ``by_source``: source → figures from
        :func:`_source_figures`) and ``answers`` (per-answer figures of every rater).
    """
    if STATEMENT_CRITERION not in data.units_by_criterion:
        return None
    raters = kqa_raters(data)
    items = statement_answers(data)
    per_answer: list[KqaAnswer] = []
    records: list[KqaRater] = []
    for rater in raters:
        answers = _answer_figures(data, rater, items)
        per_answer += answers
        by_source: dict[str, list[KqaAnswer]] = {}
        for a in answers:
            by_source.setdefault(a.source, []).append(a)
        records.append(
            KqaRater(
                rater=rater,
                rater_kind="majority" if rater == MAJORITY else data.rater_kinds[rater],
                by_source={
                    src: _source_figures(
                        rows,
                        data.kqa_questions or len(rows),
                        n_boot=n_boot,
                        seed=seed,
                        confidence=confidence,
                    )
                    for src, rows in sorted(by_source.items())
                },
            )
        )
    return KqaSection(questions_all=data.kqa_questions, raters=records, answers=per_answer)
