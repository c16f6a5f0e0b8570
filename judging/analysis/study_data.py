"""Everything the agreement views read from a study, loaded once into plain Python.

Read-only: nothing here writes to the study. :func:`load_study_data` reads units with their
item metadata (batch, answer sources, statement category), every rater's *current* label
(``labels``: reviewers and judges alike), each judge's latest verdict with its trail, and the
latest adjudication per unit. Values of ordinal (scaled) criteria become ``int``; all other
values stay the stored strings, so a label set never mixes types.

The *majority of reviewers* on a unit is the value held by a strict majority (more than half)
of the reviewers who labelled it; without one the unit has no majority label.
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from medjudge import kinds
from medjudge.judging.analysis.label_columns import CriterionLabels
from medjudge.judging.analysis.trail_facts import trail_facts
from medjudge.judging.analysis.unit_table import ItemFacts, UnitTable
from medjudge.judging.analysis.verdict_table import VerdictInfo, VerdictTable
from medjudge.judging.stats.agreement.sets import OPTION_CATEGORIES
from medjudge.store import reads
from medjudge.store.abstentions import Abstention, abstentions
from medjudge.store.retirements import Retirement
from medjudge.store.settings import Criterion, StudySettings
from medjudge.store.study import Study

MAJORITY = "majority of reviewers"
"""Pseudo-rater name for the per-unit strict majority of the reviewers' labels."""

REFERENCE = "adjudicated reference"
"""Pseudo-rater name for the latest adjudication per unit."""

_V = TypeVar("_V")


def categories_for(criterion: Criterion | None) -> list[Hashable] | None:
    """The ordered categories a criterion's figures count: the study's declared ones
    (``settings --categories``), else the kind's default — for a pairwise benefit criterion
    A, B, tie — (an option set's: each option ticked or not). Labels outside them that
    raters did give are added by :func:`.views.criterion_categories`, and the output says so."""
    if criterion is None:
        return None
    if criterion.options:
        return list(OPTION_CATEGORIES)
    labels = criterion.counted_categories()
    if labels is None:
        return None
    if criterion.scale is not None:
        return [int(v) for v in labels]
    return list(labels)


def to_value(criterion: Criterion | None, raw: str | None) -> Hashable | None:
    """A stored label value as the statistics use it (an ``int`` on a rating scale)."""
    if raw is None:
        return None
    if criterion is not None and criterion.scale is not None:
        try:
            return int(raw)
        except ValueError:
            return None
    return raw


def strict_majority(values: Iterable[Hashable | None]) -> Hashable | None:
    """The value held by more than half of the non-missing values, else ``None``."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    value, count = Counter(present).most_common(1)[0]
    return value if count * 2 > len(present) else None


@dataclass
class StudyData:
    """A study's labels and metadata, ready for the agreement views."""

    name: str
    settings: StudySettings
    units: UnitTable
    rater_kinds: dict[str, str]
    labels: dict[str, CriterionLabels]
    adjudications: dict[int, Hashable]
    verdicts: dict[str, VerdictTable] = field(default_factory=dict)
    kqa_questions: int | None = None
    declined: set[int] = field(default_factory=set)
    """Statements and match items whose answer is an abstention (``store.abstentions``)."""
    abstentions: dict[int, Abstention] = field(default_factory=dict)
    """The same items with the rule that made each one an abstention (listed in the report)."""
    items_by_kind: dict[str, int] = field(default_factory=dict)
    units_by_criterion: dict[str, Sequence[int]] = field(default_factory=dict)
    """Each criterion's unit ids, increasing (compact arrays)."""
    item_options: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """item id → the option letters it declares (the binary units of a multi-select label)."""
    retired: list[Retirement] = field(default_factory=list)
    """Items retired (``medjudge retire``): in none of the above, listed in the report."""

    def declared_options(self, units: Sequence[int]) -> list[tuple[str, ...]]:
        """The options each unit's item declares (none for an item without options)."""
        out = []
        for u in units:
            facts = self.units.item_of(u)
            out.append(self.item_options.get(facts.item_id, ()) if facts is not None else ())
        return out

    def verdicts_of(self, judge: str) -> VerdictTable:
        """A judge's latest verdicts by unit (empty for a rater without verdicts)."""
        return self.verdicts.get(judge) or VerdictTable()

    def criterion(self, name: str) -> Criterion | None:
        """The criterion's definition, or None when the settings no longer name it."""
        try:
            return self.settings.criterion(name)
        except KeyError:
            return None

    def kind_of(self, criterion: str) -> str:
        """The item kind a criterion belongs to."""
        crit = self.criterion(criterion)
        if crit is not None:
            return crit.kind
        units = self.units_by_criterion.get(criterion)
        facts = self.units.item_of(units[0]) if units else None
        return facts.kind if facts is not None else "pairwise"

    def criteria(self) -> list[str]:
        """Criteria that have at least one label or adjudication, in the study's order."""
        used = {c for c, m in self.labels.items() if len(m)}
        used |= {c for u in self.adjudications if (c := self.units.criterion_of(u)) is not None}
        order = [c.name for c in self.settings.criteria]
        return [c for c in order if c in used] + sorted(used - set(order))

    def raters(self, criterion: str, kind: str) -> list[str]:
        """Raters of one kind (``human`` or ``judge``) with labels on a criterion, by name."""
        m = self.labels.get(criterion)
        if m is None:
            return []
        return sorted(r for r in m.raters() if self.rater_kinds.get(r) == kind)

    def labelled_units(self, criterion: str) -> Sequence[int]:
        """Units of a criterion with any label or an adjudication, in unit order."""
        m = self.labels.get(criterion)
        ids = m.units() if m is not None else array("q")
        extra = {u for u in self.adjudications if self.units.criterion_of(u) == criterion}
        extra.difference_update(ids)
        return array("q", sorted([*ids, *extra])) if extra else ids

    def column(self, criterion: str, rater: str, units: Sequence[int]) -> list[Hashable | None]:
        """One rater's labels over ``units`` (``MAJORITY``/``REFERENCE`` are pseudo-raters)."""
        if rater == REFERENCE and rater not in self.rater_kinds:
            return [self.adjudications.get(u) for u in units]
        m = self.labels.get(criterion)
        if m is None:
            return [None] * len(units)
        if rater == MAJORITY and rater not in self.rater_kinds:
            return m.majority(self.raters(criterion, "human"), units)
        return m.column(rater, units)


def _meta_text(value: object) -> str:
    """A metadata value as slice text (20.0 → "20")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _shared(value: _V) -> _V:
    """One object per distinct text (``sys.intern``); other values as they are."""
    return sys.intern(value) if isinstance(value, str) else value  # type: ignore[return-value]


def load_study_data(study: Study, *, verdicts: bool = True) -> StudyData:
    """Read a study's units, current labels, verdicts and adjudications.

    Args:
        study: the open study.
        verdicts: also read each judge's latest verdict with its trail (needed for the
            AB/BA view and judge consistency; skip it for label-only figures).

    Returns:
        The loaded data.
    """
    settings = study.settings
    crits = {c.name: c for c in settings.criteria}
    sources = reads.answer_sources(study)
    metas = {
        item_id: {str(k): _meta_text(v) for k, v in meta.items()}
        for item_id, meta in reads.item_metadata(study).items()
    }
    units = UnitTable()
    no_meta: dict[str, str] = {}  # shared by every item without metadata (never written to)
    first_entry: dict[int, int] = {}
    """Each item's first listed position: entries are numbered on from there, without gaps."""
    for r in reads.unit_rows(study):
        item = units.item_index(r.item_id)
        if item is None:
            answers = sources.get(r.item_id, {})
            srcs = tuple(answers.get(p, "") for p in kinds.get(r.kind).source_positions)
            # the same few texts repeat on every item (kind, batch): one string object each
            facts = ItemFacts(
                r.item_id,
                r.ext_id,
                _shared(r.kind),
                _shared(r.batch),
                tuple(_shared(x) for x in srcs),
                metas.get(r.item_id, no_meta),
            )
            item = units.add_item(facts)
        entry = None
        if r.statement_position is not None:
            first = first_entry.setdefault(r.item_id, r.statement_position)
            entry = r.statement_position - first + 1
        units.add(r.id, item, r.criterion, r.category, r.statement_id, entry)
    by_criterion = units.criterion_units()

    def criterion_for(unit_id: int) -> Criterion | None:
        name = units.criterion_of(unit_id)
        return None if name is None else crits.get(name)

    # a retired item's units are not in ``units`` (reads.unit_rows): its labels, verdicts and
    # adjudications stay in the study but count in no figure
    gone = reads.retired_units(study)
    rater_kinds = reads.rater_kinds(study)
    labels: dict[str, CriterionLabels] = {}
    for label in reads.current_labels(study):
        if gone and label.unit_id in gone:
            continue
        m = labels.get(label.criterion)
        if m is None:
            m = labels[label.criterion] = CriterionLabels(by_criterion.get(label.criterion, ()))
        value = to_value(crits.get(label.criterion), label.value)
        m.set(label.unit_id, _shared(label.rater), value)

    adjudications: dict[int, Hashable] = {}
    for unit_id, value in reads.current_adjudications(study):
        if gone and unit_id in gone:
            continue
        v = to_value(criterion_for(unit_id), value)
        if v is not None:
            adjudications[unit_id] = v

    latest: dict[str, VerdictTable] = {}
    if verdicts:
        # a judged study of 100,000 units holds two array entries per verdict, not a trail;
        # verdicts come by judge, then unit
        for row in reads.current_verdicts(study):
            if gone and row.unit_id in gone:
                continue
            value = to_value(criterion_for(row.unit_id), row.value)
            table = latest.get(row.rater)
            if table is None:
                table = latest[_shared(row.rater)] = VerdictTable()
            table.add(row.unit_id, VerdictInfo(value, row.status, trail_facts(row.trail)))

    stored = reads.study_value(study, "kqa_questions")
    try:
        kqa_questions = int(stored) if isinstance(stored, (int, float, str)) else None
    except (TypeError, ValueError):
        kqa_questions = None
    items_by_kind = reads.item_kind_counts(study)
    retired = reads.retired_items(study)
    out_of_figures = {r.item_id for r in retired}
    abstained = {i: a for i, a in abstentions(study).items() if i not in out_of_figures}
    return StudyData(
        name=settings.name,
        settings=settings,
        units=units,
        rater_kinds=rater_kinds,
        labels=labels,
        adjudications=adjudications,
        verdicts=latest,
        kqa_questions=kqa_questions,
        declined=set(abstained),
        abstentions=abstained,
        items_by_kind=items_by_kind,
        units_by_criterion=by_criterion,
        item_options=reads.item_options(study),
        retired=retired,
    )
