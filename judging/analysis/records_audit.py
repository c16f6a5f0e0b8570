"""Typed records of the report's judge-audit section (corrected figures); built by
:mod:`.audit`, held by :class:`medjudge.judging.report.model.Report` as ``audit``."""

from __future__ import annotations

from .records import Figure, Record, Share


class SampleInfo(Record):
    """A recorded random sample (``assign --sample``)."""

    sample: int
    seed: int
    frame_size: int
    size: int
    inclusion_probability: float
    batch: str | None
    filters: dict[str, int | str]
    drawn_by: str
    at: str


class CorrectedFigure(Figure):
    """A PPI++ estimate (``method`` ``ppi_plus_plus``; ``n`` = every unit it rests on), with the
    labels it rests on and the further reference labels needed for the target half-width.

    Attributes:
        n_labelled: sampled units with a reference label (and a judge verdict).
        n_judge_only: units with the judge's verdict only.
        lam: the power-tuning weight λ (0: the physicians' mean; 1: plain PPI).
        labels_needed: further randomly sampled reference labels for the target half-width
            (0: reached); None when it cannot be reached or there is no estimate.
        halfwidth_then: the projected half-width with those labels.
        labels_needed_note: why ``labels_needed`` is None.
    """

    n_labelled: int
    n_judge_only: int
    lam: float | None
    labels_needed: int | None
    halfwidth_then: float | None
    labels_needed_note: str | None


class AuditShares(Record):
    """One share three ways: the judge alone (every unit), the physicians alone (the sampled
    units' reference labels), each with a Wilson interval, and corrected (PPI++: both)."""

    judge_only: Share
    physicians_only: Share
    corrected: CorrectedFigure


class AuditMeans(Record):
    """One mean three ways (as :class:`AuditShares`; normal intervals for the first two)."""

    judge_only: Figure
    physicians_only: Figure
    corrected: CorrectedFigure


class AuditSource(Record):
    """One answer source's win, tie and loss shares on a criterion."""

    source: str
    units: int
    win: AuditShares
    tie: AuditShares
    loss: AuditShares


class AuditDifference(Record):
    """Source A's win share minus source B's on the units where both answered (paired)."""

    source_a: str
    source_b: str
    units: int
    win_difference: AuditMeans


class AuditMeanRow(Record):
    """One answer source's mean figure per answer three ways: K-QA's ``comprehensiveness``
    (entailed / labelled Must_have statements) and ``hallucinations`` (contradicted
    statements), a rubric's ``rubric_score``, or ``mean_score``: a numeric criterion's label
    (a match score 1 / 0.5 / 0, a rating)."""

    source: str
    metric: str
    answers: int
    figures: AuditMeans


class AuditMeanDifference(Record):
    """Source A's mean figure minus source B's (``metric`` as in :class:`AuditMeanRow`),
    each over its own answers: different answers, so independent estimates (not paired)."""

    source_a: str
    source_b: str
    metric: str
    answers_a: int
    answers_b: int
    figures: AuditMeans


class AuditCriterion(Record):
    """The corrected figures of one criterion, or why they are withheld.

    Attributes:
        judge: the judge whose verdicts are corrected (the criterion's headline judge).
        unit: what the counts count: ``units`` (pairwise: an item's criterion) or ``answers``
            (statements, rating, match, rubric: an answer with its labels).
        population: units of the sampled frame with a verdict of that judge.
        sampled: of those, units of sampled items.
        labelled: of those, units with a reference label (adjudicated, else the reviewers'
            majority): the physicians' units.
        reference_outside_sample: reference labels on units outside the sample (not used:
            they are not a random sample).
        withheld: why the corrected figures are not given (None: they are).
        notes: what else a reader should know (units left out and why).
    """

    criterion: str
    polarity: str | None
    judge: str | None
    unit: str
    population: int
    sampled: int
    labelled: int
    reference_outside_sample: int
    withheld: str | None
    notes: list[str]
    sources: list[AuditSource]
    differences: list[AuditDifference]
    means: list[AuditMeanRow]
    mean_differences: list[AuditMeanDifference]


class AuditSection(Record):
    """Corrected figures from a random physician sample (present once a sample is recorded)."""

    definition: str
    target_halfwidth: float
    confidence: float
    samples: list[SampleInfo]
    criteria: list[AuditCriterion]
