"""Too-fast labels: a reviewer's items done much faster than their own and the team's typical
time (``settings --fast-rule FRACTION``), and the human–human agreement with and without them.

From the ledger's active seconds per (reviewer, item) (:mod:`medjudge.store.ledger`; pauses
over its idle limit not counted). An item is too fast for a reviewer when their seconds on it
are under FRACTION × the smaller of the reviewer's own median and the team's median (every
reviewer's timed items) on items of its kind. A reviewer is judged on a kind only with at least
:data:`MIN_TIMED` timed items of it (else the median says little; the report lists them as not
judged). Only items the reviewer holds current labels on are flagged (retired items are not):
the rule is about labels; the medians count every timed item.

Nothing is dropped from the report's other figures: the section puts each reviewer pair's
percent agreement and Cohen's κ with and without the flagged labels side by side, each with
its n; ``medjudge requeue --fast`` sends the flagged items back to their reviewers.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from itertools import combinations

from medjudge.judging.analysis.records import Figure, Record
from medjudge.judging.analysis.study_data import StudyData
from medjudge.judging.analysis.view_inputs import criterion_categories
from medjudge.judging.analysis.views import two_stats
from medjudge.store.ledger import IDLE_GAP_S, ledger_rows
from medjudge.store.requeue import label_counts
from medjudge.store.study import Study

MIN_TIMED = 5
"""Timed items of a kind a reviewer needs before their items of that kind are judged."""


class FastLabel(Record):
    """One reviewer's item done too fast under the rule (a row of the report's section too)."""

    reviewer: str
    item: str
    kind: str
    seconds: float
    reviewer_median_s: float
    team_median_s: float
    labels: int
    """The reviewer's current labels on the item."""


@dataclass(frozen=True)
class NotJudged:
    """A reviewer not judged on a kind: fewer than :data:`MIN_TIMED` timed items of it."""

    reviewer: str
    kind: str
    timed_items: int


@dataclass(frozen=True)
class FastFlags:
    """What the rule flags in a study."""

    fraction: float
    flagged: list[FastLabel]
    not_judged: list[NotJudged]

    @property
    def labels(self) -> int:
        """The labels on the flagged items."""
        return sum(f.labels for f in self.flagged)

    def pairs(self) -> set[tuple[str, str]]:
        """(reviewer, item id) of every flagged item."""
        return {(f.reviewer, f.item) for f in self.flagged}


def rule_text(fraction: float) -> str:
    """The rule in words."""
    return (
        f"An item is too fast for a reviewer when their active seconds on it are under "
        f"{fraction:g} × the smaller of their own median and the team's median on items of its "
        f"kind (settings --fast-rule {fraction:g}). A reviewer is judged on a kind only with at "
        f"least {MIN_TIMED} timed items of it; active time leaves out pauses over "
        f"{IDLE_GAP_S:g} s. Only items the reviewer holds labels on are flagged."
    )


def fast_flags(study: Study, fraction: float) -> FastFlags:
    """The (reviewer, item) pairs the rule flags, by reviewer then item id."""
    own: dict[tuple[str, str], dict[str, float]] = {}
    for row in ledger_rows(study):
        if row.rater_kind != "human" or row.active_seconds is None or row.item is None:
            continue
        own.setdefault((row.rater, row.kind or ""), {})[row.item] = float(row.active_seconds)
    team: dict[str, list[float]] = {}
    for (_, kind), times in own.items():
        team.setdefault(kind, []).extend(times.values())
    labelled = label_counts(study)
    flagged: list[FastLabel] = []
    not_judged: list[NotJudged] = []
    for (reviewer, kind), times in sorted(own.items()):
        if len(times) < MIN_TIMED:
            not_judged.append(NotJudged(reviewer, kind, len(times)))
            continue
        mine, all_ = statistics.median(times.values()), statistics.median(team[kind])
        limit = fraction * min(mine, all_)
        for item, seconds in sorted(times.items()):
            n = labelled.get((reviewer, item), 0)
            if seconds < limit and n:
                flagged.append(
                    FastLabel(
                        reviewer=reviewer,
                        item=item,
                        kind=kind,
                        seconds=seconds,
                        reviewer_median_s=mine,
                        team_median_s=all_,
                        labels=n,
                    )
                )
    return FastFlags(fraction, flagged, not_judged)


# ---------------------------------------------------------------------------- report records


class NotJudgedRow(Record):
    """A reviewer not judged on a kind, with their timed items of it."""

    reviewer: str
    kind: str
    timed_items: int


class FastAgreementRow(Record):
    """One reviewer pair on one criterion: agreement with all labels and without the flagged
    ones (each figure with its n)."""

    criterion: str
    rater_a: str
    rater_b: str
    percent_all: Figure
    cohen_all: Figure
    percent_kept: Figure
    cohen_kept: Figure


class FastLabelsSection(Record):
    """The report's "Too-fast labels": the rule, the flagged items, the figures both ways."""

    fraction: float
    rule: str
    min_timed: int
    labels: int
    flagged: list[FastLabel]
    not_judged: list[NotJudgedRow]
    agreement: list[FastAgreementRow]


@dataclass(frozen=True)
class FigureOptions:
    """The report's interval options."""

    confidence: float = 0.95
    n_boot: int = 1000
    seed: int = 0


def _without(
    column: list[Hashable | None], rater: str, items: list[str], gone: set[tuple[str, str]]
) -> list[Hashable | None]:
    return [None if (rater, item) in gone else v for v, item in zip(column, items, strict=True)]


def fast_agreement(
    data: StudyData, flags: FastFlags, opts: FigureOptions | None = None
) -> list[FastAgreementRow]:
    """Each criterion's reviewer pairs: percent agreement and Cohen's κ over every label, and
    with the flagged items' labels left out (a unit either reviewer labelled too fast)."""
    o = opts or FigureOptions()
    gone = flags.pairs()
    rows: list[FastAgreementRow] = []
    for criterion in data.criteria():
        crit = data.criterion(criterion)
        level = crit.level if crit is not None else "nominal"
        cats = criterion_categories(data, criterion).values
        units = data.labelled_units(criterion)
        items = [(f.ext_id if (f := data.units.item_of(u)) is not None else "") for u in units]

        two = partial(
            two_stats, cats=cats, level=level, confidence=o.confidence, n_boot=o.n_boot, seed=o.seed
        )
        for a, b in combinations(data.raters(criterion, "human"), 2):
            ca, cb = data.column(criterion, a, units), data.column(criterion, b, units)
            every = two(ca, cb)
            if every.n == 0:
                continue
            kept = two(_without(ca, a, items, gone), _without(cb, b, items, gone))
            rows.append(
                FastAgreementRow(
                    criterion=criterion,
                    rater_a=a,
                    rater_b=b,
                    percent_all=Figure.of(every.percent),
                    cohen_all=Figure.of(every.cohen),
                    percent_kept=Figure.of(kept.percent),
                    cohen_kept=Figure.of(kept.cohen),
                )
            )
    return rows


def fast_section(
    study: Study, data: StudyData, opts: FigureOptions | None = None
) -> FastLabelsSection | None:
    """The report's section (None: the study sets no rule)."""
    fraction = data.settings.fast_rule
    if fraction is None:
        return None
    flags = fast_flags(study, fraction)
    return FastLabelsSection(
        fraction=fraction,
        rule=rule_text(fraction),
        min_timed=MIN_TIMED,
        labels=flags.labels,
        flagged=list(flags.flagged),
        not_judged=[NotJudgedRow(**vars(n)) for n in flags.not_judged],
        agreement=fast_agreement(data, flags, opts),
    )
