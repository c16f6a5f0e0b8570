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
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from medjudge.judging.stats.agreement import LabelMatrix
from medjudge.store import reads
from medjudge.store.abstentions import declining_items
from medjudge.store.kinds import ItemKind
from medjudge.store.settings import Criterion, StudySettings
from medjudge.store.study import Study

MAJORITY = "majority of reviewers"
"""Pseudo-rater name for the per-unit strict majority of the reviewers' labels."""

REFERENCE = "adjudicated reference"
"""Pseudo-rater name for the latest adjudication per unit."""

KIND_ORDER = ("pairwise", "statements", "rating", "match")
_V = TypeVar("_V")


def categories_for(criterion: Criterion | None) -> list[Hashable] | None:
    """The ordered label set of a criterion (``None`` for option sets: use what is observed)."""
    if criterion is None:
        return None
    if criterion.scale is not None:
        return list(range(criterion.scale[0], criterion.scale[1] + 1))
    labels = criterion.labels()
    return list(labels) if labels is not None else None


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


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """One labelled thing with the item metadata used for slices."""

    id: int
    item_id: int
    item: str
    """The item's id from the import file."""
    kind: str
    criterion: str
    batch: str | None
    sources: tuple[str, ...]
    """Pairwise: (source of answer A, source of answer B); otherwise (the answer's source,)."""
    category: str | None = None
    """Statements only: ``must_have`` or ``nice_to_have``."""
    statement_id: int | None = None
    meta: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    """The item's metadata (extra fields of its import row), as text, for ``--by`` slices."""

    @property
    def source_label(self) -> str:
        """One text naming the unit's answer source(s): ``x`` or ``x vs y`` (sorted)."""
        if len(self.sources) == 2:
            a, b = sorted(self.sources)
            return f"{a} vs {b}"
        return self.sources[0] if self.sources else ""


@dataclass(frozen=True, slots=True)
class VerdictInfo:
    """A judge's latest verdict on a unit."""

    value: Hashable | None
    status: str
    trail: dict[str, Any]


@dataclass
class StudyData:
    """A study's labels and metadata, ready for the agreement views."""

    name: str
    settings: StudySettings
    units: dict[int, UnitInfo]
    rater_kinds: dict[str, str]
    labels: dict[str, LabelMatrix]
    adjudications: dict[int, Hashable]
    verdicts: dict[str, dict[int, VerdictInfo]] = field(default_factory=dict)
    kqa_questions: int | None = None
    declined: set[int] = field(default_factory=set)
    """Statements items whose answer declines to answer (``store.abstentions``)."""
    items_by_kind: dict[str, int] = field(default_factory=dict)
    units_by_criterion: dict[str, list[int]] = field(default_factory=dict)

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
        return self.units[units[0]].kind if units else "pairwise"

    def criteria(self) -> list[str]:
        """Criteria that have at least one label or adjudication, in the study's order."""
        used = {c for c, m in self.labels.items() if len(m)}
        used |= {self.units[u].criterion for u in self.adjudications if u in self.units}
        order = [c.name for c in self.settings.criteria]
        return [c for c in order if c in used] + sorted(used - set(order))

    def raters(self, criterion: str, kind: str) -> list[str]:
        """Raters of one kind (``human`` or ``judge``) with labels on a criterion, by name."""
        m = self.labels.get(criterion)
        if m is None:
            return []
        return sorted(str(r) for r in m.raters() if self.rater_kinds.get(str(r)) == kind)

    def labelled_units(self, criterion: str) -> list[int]:
        """Units of a criterion with any label or an adjudication, in unit order."""
        m = self.labels.get(criterion)
        ids = set(m.units()) if m is not None else set()
        ids |= {
            u
            for u in self.adjudications
            if u in self.units and self.units[u].criterion == criterion
        }
        return sorted(int(u) for u in ids)  # type: ignore[call-overload]

    def column(self, criterion: str, rater: str, units: Sequence[int]) -> list[Hashable | None]:
        """One rater's labels over ``units`` (``MAJORITY``/``REFERENCE`` are pseudo-raters)."""
        if rater == REFERENCE and rater not in self.rater_kinds:
            return [self.adjudications.get(u) for u in units]
        m = self.labels.get(criterion)
        if m is None:
            return [None] * len(units)
        if rater == MAJORITY and rater not in self.rater_kinds:
            humans = self.raters(criterion, "human")
            return [strict_majority(m.get(u, h) for h in humans) for u in units]
        return [m.get(u, rater) for u in units]


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
    units: dict[int, UnitInfo] = {}
    by_criterion: dict[str, list[int]] = {}
    no_meta: dict[str, str] = {}  # shared by every unit without metadata (never written to)
    item_sources: dict[int, tuple[str, ...]] = {}  # one tuple per item, shared by its units
    for r in reads.unit_rows(study):
        srcs = item_sources.get(r.item_id)
        if srcs is None:
            answers = sources.get(r.item_id, {})
            if r.kind == ItemKind.pairwise:
                srcs = (answers.get("A", ""), answers.get("B", ""))
            else:
                srcs = tuple(v for k, v in answers.items() if k in ("answer", "explanation"))
            item_sources[r.item_id] = srcs
        # The same few texts repeat on every unit (kind, criterion, category, an item's id
        # on each of its units): one string object each keeps 100k units small.
        units[r.id] = UnitInfo(
            r.id,
            r.item_id,
            _shared(r.ext_id),
            _shared(r.kind),
            _shared(r.criterion),
            _shared(r.batch),
            srcs,
            _shared(r.category),
            r.statement_id,
            metas.get(r.item_id, no_meta),
        )
        by_criterion.setdefault(r.criterion, []).append(r.id)

    rater_kinds = reads.rater_kinds(study)
    labels: dict[str, LabelMatrix] = {}
    for label in reads.current_labels(study):
        m = labels.get(label.criterion)
        if m is None:
            m = labels[label.criterion] = LabelMatrix()
        value = to_value(crits.get(label.criterion), label.value)
        m.set(label.unit_id, _shared(label.rater), _shared(value))

    adjudications: dict[int, Hashable] = {}
    for unit_id, value in reads.current_adjudications(study):
        info = units.get(unit_id)
        v = to_value(crits.get(info.criterion) if info else None, value)
        if v is not None:
            adjudications[unit_id] = v

    latest: dict[str, dict[int, VerdictInfo]] = {}
    if verdicts:
        for row in reads.current_verdicts(study):
            info = units.get(row.unit_id)
            crit = crits.get(info.criterion) if info else None
            latest.setdefault(row.rater, {})[row.unit_id] = VerdictInfo(
                to_value(crit, row.value), row.status, row.trail
            )

    stored = reads.study_value(study, "kqa_questions")
    try:
        kqa_questions = int(stored) if isinstance(stored, (int, float, str)) else None
    except (TypeError, ValueError):
        kqa_questions = None
    items_by_kind = reads.item_kind_counts(study)
    return StudyData(
        name=settings.name,
        settings=settings,
        units=units,
        rater_kinds=rater_kinds,
        labels=labels,
        adjudications=adjudications,
        verdicts=latest,
        kqa_questions=kqa_questions,
        declined=declining_items(study),
        items_by_kind=items_by_kind,
        units_by_criterion=by_criterion,
    )
