"""Typed records of the report's later sections: judge versions, K-QA, MedRGB, win rates,
ratings and the per-item effort. The figures they hold are :mod:`.records`' models."""

from __future__ import annotations

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from .records import (
    Figure,
    KeyedFigure,
    KeyedShare,
    LabelScore,
    MeanFigure,
    Record,
    Share,
    SourceMean,
)


class VersionScore(LabelScore):
    """A judge version as a classifier of one verdict (precision, recall, F1), with the
    verdict's stored value."""

    value: int | str


class VersionVsMajority(Record):
    """A judge version against the reviewers' majority on one criterion."""

    criterion: str
    n: int
    kappa: Figure
    ac1: Figure
    accuracy: Figure
    macro_f1: Figure
    per_value: list[VersionScore]


class PositionBias(Record):
    """How often the orders AB and BA disagree, and how often the first-shown answer wins."""

    units: int
    ab_ne_ba: Share
    first_shown_wins: Share


class ReviewerPosition(Record):
    """How often the answer a reviewer saw first won their decisive labels (A or B)."""

    reviewer: str
    """A reviewer's name, or ``all reviewers`` (pooled)."""
    first_shown_wins: Share


class JudgeVersion(Record):
    """One judge version (configuration) with its spend and its agreement with reviewers."""

    name: str
    key: str | None
    short: str
    spec: str | None
    panel: bool
    members: list[str]
    params: dict[str, int | float | str]
    templates: dict[str, str]
    verdicts: int
    items: int
    missing: Share
    failed_samples: int | None
    not_judged: int
    """Items without a verdict of this version because a call ended in an error."""
    not_judged_why: dict[str, int]
    """Those items per reason (the error's first line)."""
    samples_disagreed: Share
    position: PositionBias | None
    calls: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    cost_per_item: float | None
    latency_s: float | None
    wall_s: float | None
    vs_majority: list[VersionVsMajority]


class VersionPair(Record):
    """Two judge versions against each other on one criterion."""

    a: str
    b: str
    criterion: str
    n: int
    kappa: Figure
    ac1: Figure
    percent: Figure


class JudgeBias(Record):
    """One bias figure of one judge version on one pairwise criterion, beside the physicians'
    value on the same units (:mod:`medjudge.judging.analysis.judge_biases`).

    Attributes:
        bias: ``longer_answer_wins`` (among decisive verdicts with answers of different
            lengths, the share won by the longer answer), ``per_100_words`` (the change in
            answer A's chance to win per 100 words more in A than in B, among decisive verdicts)
            or ``self_preference`` (the win share of ``family``, the source whose model family
            the judge belongs to).
        family: the judge's own source (``self_preference`` only).
        units: units compared: with a verdict of the judge and a reference label (all the
            judge's units when no unit has a reference label).
        judge: the judge's figure on those units.
        physicians: the reference labels' figure on the same units (None without any).
        flagged: the interval of judge − physicians (MOVER, from both intervals) excludes 0,
            on at least 20 units (self-preference: only above the physicians').
        direction: what a flagged judge does ("favours the longer answer more than the
            physicians"); None when not flagged.
        note: units left out, why a figure is not flagged, and why.
    """

    judge_version: str
    criterion: str
    bias: str
    family: str | None
    units: int
    judge: Figure
    physicians: Figure | None
    flagged: bool
    direction: str | None
    note: str | None


class JudgesSection(Record):
    """Every judge version side by side, each pair of versions, and the judges' biases."""

    definitions: list[str]
    versions: list[JudgeVersion]
    pairs: list[VersionPair]
    biases: list[JudgeBias]
    reviewer_position: list[ReviewerPosition] | None = Field(
        default=None, exclude_if=lambda v: v is None
    )
    """The reviewers' own position bias beside the judges' (``settings --order``): only when
    the orders reviewers saw vary; None (left out) otherwise."""


class KqaSource(Record):
    """K-QA figures of one rater for one answer source."""

    answers: int
    declined: int
    declined_share: Share
    answers_with_labels: int
    statements: int
    statements_labelled: int
    questions_all: int
    comprehensiveness_answered: Figure
    hallucinations_answered: Figure
    comprehensiveness_all: Figure | None  # None without a count of all questions
    hallucinations_all: Figure | None
    contradiction_share: Share


class KqaRater(Record):
    """K-QA figures of one rater, by answer source."""

    rater: str
    rater_kind: str
    by_source: dict[str, KqaSource]


@pydantic_dataclass(frozen=True, slots=True, config=ConfigDict(extra="forbid"))
class KqaAnswer:
    """One answer's K-QA counts under one rater (a slotted record: a study has one per
    answer and rater, 30,000 for 10,000 answers, so each is kept small)."""

    item: str
    source: str
    rater: str
    statements: int
    labelled: int
    must_have: int
    must_labelled: int
    must_entailed: int
    contradicted: int
    comprehensiveness: float | None
    hallucinations: int | None
    declined: bool


class KqaSection(Record):
    """K-QA comprehensiveness and hallucination rates (statements items)."""

    questions_all: int | None
    raters: list[KqaRater]
    answers: list[KqaAnswer]


class ChartLine(Record):
    """One line of a chart: a source's figures by the x field."""

    source: str
    points: list[KeyedFigure]


class MatchRater(Record):
    """MedRGB mean match score of one rater, overall and sliced."""

    rater: str
    n: int
    overall: KeyedFigure
    by_source: list[KeyedFigure]
    by_test: list[KeyedFigure]
    by_p: list[KeyedFigure]
    chart: list[ChartLine]


class Exclusion(Record):
    """One answer left out of the K-QA or MedRGB figures, and the rule that left it out."""

    section: str
    """``kqa`` (a statements item) or ``medrgb`` (a match item)."""
    item: str
    source: str
    rule: str


class ExclusionsSection(Record):
    """Every answer excluded from the figures as an abstention, out of how many."""

    answers: int
    """Answers of the kinds that can abstain (statements and match items): the N of "n of N"."""
    excluded: list[Exclusion]
    rule: str
    """The abstention rule in general (``store.abstentions``)."""


class RetiredItem(Record):
    """One retired item (``medjudge retire``): in no queue and no figure, listed with why."""

    item: str
    """The item's id in the import file."""
    kind: str
    reason: str
    by: str
    """The login that retired it."""
    at: str
    """When (UTC, ISO 8601)."""


class RetiredSection(Record):
    """Every item retired from the study: kept (labels, verdicts, calls) but in no figure."""

    items: list[RetiredItem]
    rule: str


class MedrgbSection(Record):
    """MedRGB ``match`` items: predictions, abstentions by p, and each rater's scores."""

    predictions: int
    abstentions: int
    abstention_by_p: list[KeyedShare]
    raters: list[MatchRater]


class RubricRater(Record):
    """Rubric scores of one rater (a physician, the reviewers' majority, the reference or a
    judge): the mean answer score overall, per source model and per tag."""

    rater: str
    role: str
    """``physician``, ``majority``, ``reference`` (adjudicated, else majority) or ``judge``."""
    scored: int
    """Answers with a score from this rater (every rubric criterion marked)."""
    answers: int
    """Rubric answers in the study."""
    overall: KeyedFigure
    by_source: list[KeyedFigure]
    by_tag: list[KeyedFigure]


class PairF1(Record):
    """Macro F1 (met / not met) of ``rater_b`` against ``rater_a`` on the same criteria."""

    rater_a: str
    rater_b: str
    macro_f1: Figure


class RubricGrader(Record):
    """HealthBench's grader meta-evaluation of one judge on the criteria of one tag (``all``:
    every criterion): its macro F1 against the reference, beside each physician pair's."""

    judge: str
    tag: str
    macro_f1: Figure
    physician_pairs: list[PairF1]


class RubricSection(Record):
    """Rubric items (HealthBench): each rater's scores side by side, and each judge's grading
    against the physicians'."""

    answers: int
    criteria: int
    raters: list[RubricRater]
    graders: list[RubricGrader]


class WinCounts(Record):
    """Verdict counts of one source against the others."""

    win: int
    tie: int
    loss: int
    neither: int


class SourceWins(Record):
    """Win, tie, loss and neither shares of one answer source."""

    source: str
    n: int
    counts: WinCounts
    win: Share
    tie: Share
    loss: Share
    neither: Share


class WinRateRow(Record):
    """Win rates of the answer sources on one pairwise criterion, by one rater."""

    criterion: str
    polarity: str
    note: str
    rater: str
    rater_kind: str
    same_source_skipped: int
    sources: list[SourceWins]


class RatingRow(Record):
    """Mean rating on one criterion by one rater, overall and per source."""

    criterion: str
    scale: list[int]
    rater: str
    rater_kind: str
    overall: MeanFigure
    sources: list[SourceMean]


class ReviewerPace(Record):
    """A reviewer's time per item and the projection for more items."""

    reviewer: str
    items: int
    median_s: float
    q1_s: float
    q3_s: float
    projected_s: float
    projected_range_s: list[float]


class JudgeSpend(Record):
    """A judge's cost and calls per item and the projection for more items."""

    judge: str
    items: int
    cost_per_item_usd: float
    calls_per_item: float
    projected_cost_usd: float


class PerItemEffort(Record):
    """Per-item reviewer time and judge cost, projected to ``n_more`` items."""

    n_more: int
    idle_cap_s: float
    reviewers: list[ReviewerPace]
    judges: list[JudgeSpend]
