"""The study report as one typed value: :class:`Report`, built once by :func:`.build.build_report`.

Every renderer reads this model: the Markdown and HTML templates (``templates/``), the CSV
writer and the JSON dump (:func:`.build.render`). Its fields are the report's JSON keys, in
order; the analyses' records it holds are in :mod:`medjudge.judging.analysis.records` and
:mod:`medjudge.judging.analysis.records_sections`. Text from the study (ids, names) is kept
raw here; each format escapes it.
"""

from __future__ import annotations

from functools import cache
from types import GenericAlias
from typing import Any

from pydantic import Field

from medjudge.judging.analysis.alt_tests import AltTestRow
from medjudge.judging.analysis.records import (
    AnchoringRow,
    Comparison,
    ConsensusRow,
    ConsistencyRow,
    GoldRow,
    PairComparison,
    Record,
)
from medjudge.judging.analysis.records_audit import AuditSection
from medjudge.judging.analysis.records_sections import (
    ExclusionsSection,
    JudgesSection,
    PerItemEffort,
    RetiredSection,
)


class StudyInfo(Record):
    """The study: its name, file, and items and units by kind."""

    name: str
    file: str
    items: dict[str, int]
    units: dict[str, int]
    kqa_questions: int | None


class TemplateUse(Record):
    """A prompt template a judge used, by its hash, and how many calls used it."""

    template: str
    hash: str
    calls: int


class ProtocolJudge(Record):
    """A judge as configured: provider, model, sampling, panel members, templates."""

    name: str
    panel: bool
    provider: str | None
    model: str | None
    samples: int | None
    temperature: float | None
    max_tokens: int | None
    statements_protocol: str | None
    members: list[str] | None
    panel_rule: str | None
    templates: list[TemplateUse]
    verdicts: int


class Intervals(Record):
    """How intervals are computed: the method of each statistic, and the bootstrap's settings."""

    methods: dict[str, str]
    n_boot: int
    seed: int
    confidence: float


class Protocol(Record):
    """The judges, orders, voting rules and statistics of the study."""

    judges: list[ProtocolJudge]
    orders: list[str]
    voting_rules: list[str]
    statistics: list[str]
    intervals: Intervals
    blind_review: bool


class CallTotals(Record):
    """Judge calls with their outcome, tokens, cost and summed latency."""

    calls: int
    ok: int
    failed: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float


class _Judge(Record):
    judge: str


class JudgeCallTotals(CallTotals, _Judge):
    """One judge's call totals (``judge`` first)."""


class ReviewerTime(Record):
    """A reviewer's time on the study."""

    reviewer: str
    seconds: float
    items: int
    visits: int
    labels: int
    seconds_per_item: float | None


class Effort(Record):
    """What the study cost: judge calls, tokens and money; reviewer time; per-item figures."""

    judge_calls: CallTotals
    per_judge: list[JudgeCallTotals]
    reviewers: list[ReviewerTime]
    review_seconds: float | int  # 0 (an int) when nobody has reviewed yet
    per_item: PerItemEffort


class CriterionSection(Record):
    """One criterion: its definition, raters, counts and every agreement view."""

    name: str
    kind: str
    question: str | None
    polarity: str | None
    ordinal: bool
    scale: str
    categories: list[int | str] | None
    """The categories every figure of the criterion counts, in order."""
    categories_declared: bool
    """Declared by the study (``settings --categories``), else the kind's default."""
    categories_extra: list[int | str]
    """Labels given outside the declared or default set (counted too)."""
    categories_note: str
    """The sentence every format prints about them."""
    n_units_total: int
    n_units: int
    n_labels: int
    reviewers: list[str]
    judges: list[str]
    headline_judge: str | None
    adjudicated: int
    unresolved: int
    comparisons: list[Comparison]


class AdjudicationRow(Record):
    """Each rater vs the adjudicated reference on one criterion."""

    criterion: str
    adjudicated: int
    unresolved: int
    comparisons: list[PairComparison]


class AdjudicationSection(Record):
    """Each rater vs the adjudicated reference, and the unresolved disagreements."""

    definition: str
    adjudicated_total: int
    unresolved_total: int
    criteria: list[AdjudicationRow]


class Notes(Record):
    """Definitions the report's readers need."""

    majority: str
    benefit: str
    risk: str
    undefined: str


class Report(Record):
    """Every figure of a study's report, each with its n and interval."""

    format: str
    version: int
    generated_at: str
    medjudge_version: str
    study: StudyInfo
    protocol: Protocol
    effort: Effort
    criteria: list[CriterionSection]
    adjudication: AdjudicationSection
    consistency: list[ConsistencyRow]
    judges: JudgesSection
    alt_test: list[AltTestRow]
    """The alternative annotator test of every judge version against the physicians, per
    criterion (:mod:`medjudge.judging.analysis.alt_tests`)."""
    anchoring: list[AnchoringRow]
    consensus: list[ConsensusRow]
    gold: list[GoldRow]
    exclusions: ExclusionsSection | None = Field(default=None, exclude_if=lambda v: v is None)
    """Answers left out as abstentions, each with its rule (only in a study with statements or
    match items)."""
    retired: RetiredSection | None = Field(default=None, exclude_if=lambda v: v is None)
    """Items retired from the study (``medjudge retire``), each with who, when and why (absent
    when none is)."""
    audit: AuditSection | None = Field(default=None, exclude_if=lambda v: v is None)
    """Corrected figures (judge audit): only in a study with a recorded random sample (so a
    study without one reports exactly as before)."""
    notes: Notes


@cache
def report_model() -> type[Report]:
    """:class:`Report` with one optional field per kind section (:mod:`.kind_sections`), named
    by its key: absent from the JSON of a study without such items (unless the section is
    ``always_in_json``: ``null``, a list section ``[]``). Made when first asked for:
    the kinds' sections import the report's cells and wording, which import this module."""
    from pydantic import create_model

    from .kind_sections import kind_sections

    fields: dict[str, Any] = {}
    for s in kind_sections():
        if s.many:
            hidden = None if s.always_in_json else (lambda v: not v)
            fields[s.key] = (
                GenericAlias(list, (s.record,)),
                Field(default_factory=list, exclude_if=hidden),
            )
        elif s.always_in_json:
            fields[s.key] = (s.record | None, Field(default=None))
        else:
            fields[s.key] = (s.record | None, Field(default=None, exclude_if=lambda v: v is None))
    model: type[Report] = create_model("Report", __base__=Report, **fields)
    return model
