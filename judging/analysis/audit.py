"""Judge audit: the models' figures corrected by a random physician sample.

For each pairwise criterion, each answer source's win, tie and loss share three ways (the
kinds with one answer per item, per answer: K-QA comprehensiveness and hallucinations
(:mod:`.audit_kqa`), a rating scale's mean rating, a match item's match score and a rubric
item's rubric score (:mod:`.audit_answers`); the kind's audit form says which,
:mod:`.audit_forms`):

- **judge only**: the criterion's headline judge's verdicts on every unit of the population
  (Wilson interval);
- **physicians only**: the reference label — the latest adjudication, else the reviewers'
  strict majority (one reviewer: their label) — on the sampled units (Wilson interval);
- **corrected**: PPI++ at small samples (:mod:`medjudge.judging.stats.ppi_bounded`): the reference labels on the
  sampled units, the judge's verdicts on those units and on the rest of the population.

plus each pair of sources' difference in win share on the units where both answered (paired:
PPI++ on the per-unit difference; per answer: of independent estimates, since two sources
answer different items), and for every corrected figure the further randomly sampled
reference labels needed to bring its half-width to the target (``report --target-halfwidth``).

The population is the sampled frame: the items the recorded samples (``assign --sample``,
:mod:`medjudge.store.samples`) were drawn from, restricted to the criterion's items. The
corrected figure assumes the reference labels come from a uniform random sample of it, so it is
withheld, with the reason, when the samples do not form one (a later sample drawn from a
different item set), and reference labels on units outside the samples are not used (they are
counted). Units without a verdict of the judge, and items whose two answers come from the same
source, are left out (and counted). Sampled units without a reference label yet are counted
with the judge's verdict only; the figure then assumes which ones are missing has nothing to do
with their labels. Without any recorded sample there is no section at all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from medjudge import kinds
from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.audit_figures import means_three_ways, shares_three_ways
from medjudge.judging.analysis.headline import headline_judge
from medjudge.judging.analysis.metrics import outcomes
from medjudge.judging.analysis.records_audit import (
    AuditCriterion,
    AuditDifference,
    AuditMeanDifference,
    AuditMeanRow,
    AuditSection,
    AuditSource,
    SampleInfo,
)
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.ppi import Floats
from medjudge.store import reads
from medjudge.store.json_types import JsonObject
from medjudge.store.samples import Sample, recorded_samples
from medjudge.store.study import Study

OUTCOMES = ("win", "tie", "loss")

DEFINITION = (
    "Corrected figures: the judge's verdict on every unit of the sampled frame, corrected by "
    "the physicians' reference labels (adjudicated, else the reviewers' majority) on a uniform "
    "random sample of it (assign --sample), by PPI++ mean estimation with power tuning "
    "(Angelopoulos, Duchi & Zrnic 2023). Judge only and physicians only have Wilson intervals "
    "for shares, normal intervals for means (figures per answer: K-QA, rubric score, match "
    "score, mean rating) and differences (between two sources' answers: independent, "
    "se = √(se_A² + se_B²)); "
    "corrected figures the PPI++ normal interval, not clipped to [0, 1]. Labels needed: "
    "further randomly sampled reference labels (units or answers) to bring the corrected "
    "interval's half-width to the target, from the variances the data show. Valid when the "
    "sample is uniform and the judge and the physicians labelled the same units; 'neither' "
    "verdicts are counted apart (not shown)."
)

NOT_RANDOM = (
    "withheld: the reference labels are not a random sample (the recorded samples were drawn "
    "from different item sets, e.g. items imported or other filters between draws)"
)


@dataclass(frozen=True)
class _Units:
    """One criterion's population: per unit, its sources and both labels as outcome maps."""

    sources: list[tuple[str, str]]
    judge: list[dict[str, str]]
    reference: list[dict[str, str] | None]
    labelled: list[bool]


def samples_info(samples: Sequence[Sample]) -> list[SampleInfo]:
    """The recorded samples, as the report lists them."""
    return [
        SampleInfo(
            sample=s.id,
            seed=s.seed,
            frame_size=len(s.frame),
            size=s.size,
            inclusion_probability=s.inclusion_probability,
            batch=s.batch,
            filters=s.filters,
            drawn_by=s.drawn_by,
            at=s.at,
        )
        for s in samples
    ]


def sampled_frame(samples: Sequence[Sample], items: set[int]) -> tuple[set[int], set[int]] | None:
    """The frame and the sampled items of ``samples`` restricted to ``items``, or None when
    together they are not one uniform random sample of their frame.

    Each sample is uniform over its frame; several are one uniform sample of the union of the
    frames when each was drawn from that union minus the items sampled before it (which is what
    drawing again with the same filters, and no import between, gives).
    """
    parts = [(set(s.frame) & items, set(s.items) & items) for s in samples]
    parts = [(frame, drawn) for frame, drawn in parts if frame]
    frame_all: set[int] = set().union(*(frame for frame, _ in parts))
    before: set[int] = set()
    for frame, drawn in parts:
        if frame != frame_all - before:
            return None
        before |= drawn
    return frame_all, before


def _population(
    data: StudyData, criterion: str, judge: str, frame: set[int], sampled: set[int], risk: bool
) -> tuple[_Units, list[str], int]:
    """The criterion's units in the frame with a judge verdict, with notes and the number of
    reference labels outside the sample."""
    units = [
        u for u in data.units_by_criterion.get(criterion, ()) if data.units[u].item_id in frame
    ]
    everything = data.units_by_criterion.get(criterion, ())
    judge_col = data.column(criterion, judge, units)
    ref_col = _reference(data, criterion, units)
    all_ref = _reference(data, criterion, everything)
    outside = sum(
        v is not None and data.units[u].item_id not in sampled
        for u, v in zip(everything, all_ref, strict=True)
    )
    pop = _Units([], [], [], [])
    no_verdict = same_source = unlabelled_sampled = 0
    for u, jv, rv in zip(units, judge_col, ref_col, strict=True):
        info = data.units[u]
        sa, sb = (info.sources + ("", ""))[:2]
        if sa == sb:
            same_source += 1
            continue
        judged = outcomes(jv, sa, sb, risk)
        if judged is None:
            no_verdict += 1
            continue
        ref = outcomes(rv, sa, sb, risk) if info.item_id in sampled else None
        if info.item_id in sampled and ref is None:
            unlabelled_sampled += 1
        pop.sources.append((sa, sb))
        pop.judge.append(judged)
        pop.reference.append(ref)
        pop.labelled.append(ref is not None)
    notes = []
    if no_verdict:
        notes.append(f"{no_verdict:,} unit(s) without a verdict of {judge} left out")
    if same_source:
        notes.append(f"{same_source:,} unit(s) whose answers share a source left out")
    if unlabelled_sampled:
        notes.append(
            f"{unlabelled_sampled:,} sampled unit(s) without a reference label yet (no label, or "
            "no majority): counted with the judge's verdict only"
        )
    if outside:
        notes.append(
            f"{outside:,} reference label(s) outside the random sample not used (not random)"
        )
    return pop, notes, outside


def _reference(data: StudyData, criterion: str, units: Sequence[int]) -> list[Hashable | None]:
    """The reference label per unit: the latest adjudication, else the reviewers' majority."""
    majority = data.column(criterion, MAJORITY, units)
    return [data.adjudications.get(u, m) for u, m in zip(units, majority, strict=True)]


def _split(
    pop: _Units, rows: Sequence[int], of: Callable[[dict[str, str]], float]
) -> tuple[Floats, Floats, Floats]:
    """``of`` (a per-unit quantity of an outcome map) over ``rows``: the reference's on the
    labelled units, the judge's on them, and the judge's on the other units."""
    labelled = [i for i in rows if pop.labelled[i]]
    rest = [i for i in rows if not pop.labelled[i]]
    y = [of(ref) for i in labelled if (ref := pop.reference[i]) is not None]
    return (
        np.asarray(y, dtype=np.float64),
        np.asarray([of(pop.judge[i]) for i in labelled], dtype=np.float64),
        np.asarray([of(pop.judge[i]) for i in rest], dtype=np.float64),
    )


def _is(source: str, outcome: str) -> Callable[[dict[str, str]], float]:
    """1 where ``source``'s outcome is ``outcome``, else 0."""

    def of(m: dict[str, str]) -> float:
        return float(m[source] == outcome)

    return of


def _sources(
    pop: _Units, *, confidence: float, target: float
) -> tuple[list[AuditSource], list[AuditDifference]]:
    """Each source's win / tie / loss figures, and each pair's win-share difference."""
    names = sorted({s for pair in pop.sources for s in pair})
    out = []
    for source in names:
        rows = [i for i, pair in enumerate(pop.sources) if source in pair]
        figures = {
            o: shares_three_ways(
                *_split(pop, rows, _is(source, o)), confidence=confidence, target=target
            )
            for o in OUTCOMES
        }
        out.append(AuditSource(source=source, units=len(rows), **figures))
    diffs = []
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            rows = [i for i, pair in enumerate(pop.sources) if set(pair) == {a, b}]
            if not rows:
                continue

            def win_difference(m: dict[str, str], a: str = a, b: str = b) -> float:
                return float(m[a] == "win") - float(m[b] == "win")

            diffs.append(
                AuditDifference(
                    source_a=a,
                    source_b=b,
                    units=len(rows),
                    win_difference=means_three_ways(
                        *_split(pop, rows, win_difference),
                        confidence=confidence,
                        target=target,
                        bounds=(-1.0, 1.0),
                    ),
                )
            )
    return out, diffs


def audit_criterion(
    data: StudyData,
    criterion: str,
    samples: Sequence[Sample],
    *,
    confidence: float = 0.95,
    target: float = 0.05,
    entries: Mapping[int, JsonObject] | None = None,
) -> AuditCriterion:
    """The corrected figures of one criterion (or why they are withheld).

    Args:
        entries: unit id → its listed entry's data (a rubric criterion's points), for the
            forms that read them (:attr:`.audit_forms.AuditForm.listed_entries`).
    """
    crit = data.criterion(criterion)
    kind = kinds.get(data.kind_of(criterion))
    form = audit_forms.of_kind(kind.name)

    def make(
        withheld: str | None,
        judge: str | None = None,
        counts: tuple[int, int, int, int] = (0, 0, 0, 0),
        notes: Sequence[str] = (),
        sources: Sequence[AuditSource] = (),
        differences: Sequence[AuditDifference] = (),
        means: Sequence[AuditMeanRow] = (),
        mean_differences: Sequence[AuditMeanDifference] = (),
    ) -> AuditCriterion:
        population, sampled, labelled, outside = counts
        return AuditCriterion(
            criterion=criterion,
            polarity=crit.polarity if crit else None,
            judge=judge,
            unit=form.unit,
            population=population,
            sampled=sampled,
            labelled=labelled,
            reference_outside_sample=outside,
            withheld=withheld,
            notes=list(notes),
            sources=list(sources),
            differences=list(differences),
            means=list(means),
            mean_differences=list(mean_differences),
        )

    if not form.audited:
        return make(f"not computed for {kind.name} criteria")
    m = data.labels.get(criterion)
    judges = data.raters(criterion, "judge")
    judge = headline_judge(
        {j: m.count(j) for j in judges} if m is not None else {}, data.settings.headline_judge
    )
    if judge is None:
        return make("withheld: no judge verdicts")
    items = {data.units[u].item_id for u in data.units_by_criterion.get(criterion, ())}
    found = sampled_frame(samples, items)
    if not any(set(s.frame) & items for s in samples):
        return make("withheld: no recorded random sample covers these items", judge)
    if found is None:
        return make(NOT_RANDOM, judge)
    frame, sampled = found
    if form.per_answer is not None:
        got = form.per_answer(
            audit_forms.AnswerInputs(
                data, criterion, judge, frame, sampled, entries or {}, confidence, target
            )
        )
        if isinstance(got, str):
            return make(got, judge)
        counts = (got.population, got.sampled, got.labelled, got.outside)
        if not got.labelled:
            why = "withheld: no sampled answer has a reference label yet"
            return make(why, judge, counts, got.notes)
        return make(
            None, judge, counts, got.notes, means=got.rows, mean_differences=got.differences
        )
    risk = crit is not None and crit.polarity == "risk"
    pop, notes, outside = _population(data, criterion, judge, frame, sampled, risk)
    sampled_units = sum(
        1 for u in data.units_by_criterion.get(criterion, ()) if data.units[u].item_id in sampled
    )
    counts = (len(pop.sources), sampled_units, sum(pop.labelled), outside)
    if not any(pop.labelled):
        return make("withheld: no sampled unit has a reference label yet", judge, counts, notes)
    sources, diffs = _sources(pop, confidence=confidence, target=target)
    return make(None, judge, counts, notes, sources, diffs)


def audit_section(
    study: Study, data: StudyData, *, confidence: float = 0.95, target: float = 0.05
) -> AuditSection | None:
    """The report's corrected figures: None when the study has no recorded random sample."""
    samples = recorded_samples(study)
    if not samples:
        return None
    entries: dict[int, JsonObject] = {}
    for kind in kinds.KINDS.values():
        if audit_forms.of_kind(kind.name).listed_entries and kind.listed_field:
            entries.update(reads.listed_entries(study, kind.name, kind.listed_field))
    criteria = [
        audit_criterion(data, c, samples, confidence=confidence, target=target, entries=entries)
        for c in data.criteria()
    ]
    return AuditSection(
        definition=DEFINITION,
        target_halfwidth=target,
        confidence=confidence,
        samples=samples_info(samples),
        criteria=criteria,
    )
