"""Live agreement for the review app: one row of figures per criterion, kept current cheaply.

Contract:

- :class:`LiveAgreement` reads every current label once (reviewers' labels and judges'
  mirrored verdicts alike), then follows ``label_history`` with
  :func:`medjudge.store.labels.changes_since`. :meth:`LiveAgreement.refresh` applies only the
  rows written since the last one it saw — by this process or any other (another reviewer's
  app, a judge run) — and marks the touched criteria; :meth:`LiveAgreement.rows` recomputes
  just those. A history row repeats the label's current value, so applying one twice is
  harmless: the object reads the last history id *before* the labels and never misses a write.
- Rows are point estimates (fast); :meth:`LiveAgreement.pair` gives the figures with the
  intervals the report shows and the confusion table, for a detail screen, and
  :meth:`LiveAgreement.alt_test` a judge's alternative annotator test, as the report's.
- Methods are safe to call from a worker thread: state is guarded by a lock. The object only
  reads the study; it never writes.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import dataclass, replace

from medjudge import kinds
from medjudge.judging.analysis.alt_tests import (
    AltTestOptions,
    judge_alt_test,
    plan_beside,
)
from medjudge.judging.analysis.headline import headline_judge
from medjudge.judging.analysis.study_data import (
    MAJORITY,
    categories_for,
    strict_majority,
    to_value,
)
from medjudge.judging.analysis.views import two_stats
from medjudge.judging.stats.agreement.core import (
    Estimate,
    LabelMatrix,
    TwoRaterStats,
)
from medjudge.judging.stats.agreement.sets import OptionUnits
from medjudge.judging.stats.alt_test import AltTestResult
from medjudge.judging.stats.code_matrix import (
    CodeMatrix,
    multi_point,
    pair_point,
    strict_majority_codes,
)
from medjudge.store import reads
from medjudge.store.labels import changes_since
from medjudge.store.retirements import changes as retirement_changes
from medjudge.store.review_queries import last_history_id
from medjudge.store.settings import Criterion
from medjudge.store.study import Study

__all__ = ["MAJORITY", "AgreementRow", "LiveAgreement"]

FEWER_THAN_TWO = "fewer than two reviewers have labels"
NO_JUDGE = "no judge verdicts"
NO_MAJORITY = "no unit where the reviewers have a strict majority and the judge a verdict"


@dataclass(frozen=True)
class AgreementRow:
    """Headline agreement figures of one criterion (point estimates, no intervals).

    Attributes:
        criterion: The criterion's name.
        kind: ``pairwise``, ``statements`` or ``rating``.
        n_units: Units with at least one label (any rater).
        human_human: Percent agreement among reviewers (the pair's, or the mean over pairs
            with three or more); undefined with a reason when fewer than two reviewers overlap.
        human_kappa: Cohen's κ (two reviewers) or Fleiss' κ (three or more).
        judge_human: Percent agreement of the reviewers' majority with :attr:`judge`.
        judge_kappa: Cohen's κ of the reviewers' majority with :attr:`judge`.
        judge: The headline judge (:func:`.headline.headline_judge`: the most complete, then
            by name), or None.
    """

    criterion: str
    kind: str
    n_units: int
    human_human: Estimate
    human_kappa: Estimate
    judge_human: Estimate
    judge_kappa: Estimate
    judge: str | None


class LiveAgreement:
    """Agreement per criterion over a study's current labels, refreshed incrementally.

    Example:
        >>> live = LiveAgreement(study)           # doctest: +SKIP
        >>> live.refresh()                        # after labels were written elsewhere
        True
        >>> [r.human_kappa.value for r in live.rows()]
        [0.61, 0.4]
    """

    def __init__(self, study: Study) -> None:
        """Load every current label of the study (one query) and remember where history ends."""
        self._study = study
        self._lock = threading.RLock()
        self._matrices: dict[str, LabelMatrix] = {}
        self._codes: dict[str, CodeMatrix] = {}
        """The same labels as category codes, for the row figures (numpy, fast)."""
        self._rater_kinds: dict[str, str] = {}
        self._criterion_kinds: dict[str, str] = {}
        self._rows: dict[str, AgreementRow] = {}
        self._dirty: set[str] = set()
        self._last_id = 0
        self._unit_options: dict[int, tuple[str, ...]] = {}
        """Multi-select units → their item's options (read when first needed)."""
        self._retired_mark = (0, 0)
        self._gone: set[int] = set()
        """The units of retired items (``medjudge retire``): in no figure."""
        self._load()

    # -- loading and refreshing ------------------------------------------------------------
    def _criterion(self, name: str) -> Criterion | None:
        try:
            return self._study.settings.criterion(name)
        except KeyError:
            return None

    def _load_kinds(self) -> None:
        self._criterion_kinds = reads.criterion_kinds(self._study)

    def _load(self) -> None:
        # History id first: a write that lands between the two reads is applied again by the
        # next refresh, which is harmless (it sets the value the label already has).
        self._last_id = last_history_id(self._study)
        self._retired_mark = retirement_changes(self._study)
        self._gone = reads.retired_units(self._study)
        self._load_kinds()
        crits: dict[str, Criterion | None] = {}
        for label in reads.current_labels(self._study):
            if label.unit_id in self._gone:
                continue
            if label.criterion not in crits:
                crits[label.criterion] = self._criterion(label.criterion)
            value = to_value(crits[label.criterion], label.value)
            self._set(label.criterion, label.unit_id, label.rater, label.rater_kind, value)
        self._dirty = set(self._matrices)

    def _options_of(self, criterion: str, unit: int) -> tuple[str, ...] | None:
        """The options of a multi-select unit's item (None: not a multi-select criterion)."""
        crit = self._criterion(criterion)
        if crit is None or not crit.options:
            return None
        if unit not in self._unit_options:  # a unit imported since: read them again
            multi = [c.name for c in self._study.settings.criteria if c.options]
            self._unit_options = reads.unit_options(self._study, multi)
            self._unit_options.setdefault(unit, ())  # an item without options: no units
        return self._unit_options[unit]

    def _set(
        self, criterion: str, unit: int, rater: str, kind: str, value: Hashable | None
    ) -> None:
        options = self._options_of(criterion, unit)
        if options is not None:  # each declared option is a binary unit (as the report)
            expand = OptionUnits.of([options])
            for (_, letter), binary in zip(expand.units, expand.column([value]), strict=True):
                self._set_one(criterion, (unit, letter), rater, kind, binary)
            return
        self._set_one(criterion, unit, rater, kind, value)

    def _set_one(
        self, criterion: str, unit: Hashable, rater: str, kind: str, value: Hashable | None
    ) -> None:
        m = self._matrices.get(criterion)
        if m is None:
            m = self._matrices[criterion] = LabelMatrix()
            self._codes[criterion] = CodeMatrix(categories_for(self._criterion(criterion)))
        self._rater_kinds[rater] = kind
        m.set(unit, rater, value)
        self._codes[criterion].set(unit, rater, value)

    @property
    def last_history_id(self) -> int:
        """The newest ``label_history`` id applied so far."""
        return self._last_id

    def refresh(self) -> bool:
        """Apply label changes written since the last refresh (by any process).

        Returns:
            True when at least one label changed (the touched criteria will be recomputed
            by the next :meth:`rows`).
        """
        with self._lock:
            if retirement_changes(self._study) != self._retired_mark:
                # an item retired or brought back: read every label again
                for held in (self._matrices, self._codes, self._rows, self._rater_kinds):
                    held.clear()
                self._load()
                return True
            changes = changes_since(self._study, self._last_id)
            if not changes:
                return False
            crits: dict[str, Criterion | None] = {}
            for row in changes:
                self._last_id = max(self._last_id, int(row["id"]))
                if row["unit_id"] in self._gone:
                    continue
                criterion = row["criterion"]
                if criterion not in crits:
                    crits[criterion] = self._criterion(criterion)
                if criterion not in self._criterion_kinds:
                    self._load_kinds()
                self._set(
                    criterion,
                    row["unit_id"],
                    row["rater"],
                    row["rater_kind"],
                    to_value(crits[criterion], row["new_value"]),
                )
                self._dirty.add(criterion)
                self._last_id = max(self._last_id, int(row["id"]))
            return True

    # -- figures -----------------------------------------------------------------------------
    def rows(self) -> list[AgreementRow]:
        """One row per criterion that has labels, in the study's criterion order."""
        with self._lock:
            for criterion in sorted(self._dirty):
                m = self._matrices.get(criterion)
                if m is None or not len(m):
                    self._rows.pop(criterion, None)
                else:
                    self._rows[criterion] = self._compute(criterion, m)
            self._dirty.clear()
            return [self._rows[c] for c in self._order() if c in self._rows]

    def _order(self) -> list[str]:
        known = [c.name for c in self._study.settings.criteria]

        def key(c: str) -> tuple[int, str]:
            kind = self._kind(c)
            order = kinds.NAMES
            return (order.index(kind) if kind in order else len(order), c)

        return known + sorted(set(self._rows) - set(known), key=key)

    def _kind(self, criterion: str) -> str:
        crit = self._criterion(criterion)
        if crit is not None:
            return crit.kind
        return self._criterion_kinds.get(criterion, "pairwise")

    def raters(self, criterion: str | None = None) -> list[str]:
        """Raters with labels (on one criterion, or on any): reviewers first, then judges.

        Args:
            criterion: Limit to raters with labels on this criterion.

        Returns:
            Names, reviewers sorted by name followed by judges sorted by name.
        """
        with self._lock:
            if criterion is None:
                names = {str(r) for m in self._matrices.values() for r in m.raters()}
            else:
                m = self._matrices.get(criterion)
                names = {str(r) for r in m.raters()} if m is not None else set()
            return sorted(names, key=lambda r: (self._rater_kinds.get(r) != "human", r))

    def rater_kind(self, rater: str) -> str | None:
        """``human`` or ``judge`` (None for a rater without labels)."""
        return self._rater_kinds.get(rater)

    def _split(self, m: LabelMatrix) -> tuple[list[str], list[str]]:
        names = sorted(str(r) for r in m.raters())
        humans = [r for r in names if self._rater_kinds.get(r) == "human"]
        judges = [r for r in names if self._rater_kinds.get(r) == "judge"]
        return humans, judges

    def _compute(self, criterion: str, m: LabelMatrix) -> AgreementRow:
        """The row's point estimates, from the code matrix (same definitions as the report)."""
        humans, judges = self._split(m)
        codes = self._codes[criterion]
        q = len(codes.categories)
        table = codes.columns([*humans, *judges])
        human_codes = table[:, : len(humans)]
        if len(humans) < 2:
            hh = hk = Estimate.undefined(FEWER_THAN_TWO)
        elif len(humans) == 2:
            hh, hk = pair_point(human_codes[:, 0], human_codes[:, 1], q)
        else:
            hh, hk = multi_point(human_codes, q)
        judge = headline_judge({j: m.count(j) for j in judges}, self._study.settings.headline_judge)
        if judge is None:
            jh = jk = Estimate.undefined(NO_JUDGE)
        elif not humans:
            jh = jk = Estimate.undefined("no reviewer labels")
        else:
            majority = strict_majority_codes(human_codes, q)
            jh, jk = pair_point(majority, table[:, len(humans) + judges.index(judge)], q)
            if jh.n == 0:
                jh = jk = Estimate.undefined(NO_MAJORITY)
        return AgreementRow(criterion, self._kind(criterion), len(m.units()), hh, hk, jh, jk, judge)

    def pair(self, rater_a: str, rater_b: str, criterion: str) -> TwoRaterStats:
        """Agreement of two raters on a criterion, with intervals and the confusion table.

        The same figures and intervals as the study report's (:func:`.views.two_stats`).

        Either name may be :data:`MAJORITY` (the reviewers' per-unit strict majority), unless
        a real rater has that name. Ordinal criteria also get weighted κ, Spearman, Pearson.
        Call :meth:`refresh` first to include the newest labels.

        Args:
            rater_a: Rows of the confusion table.
            rater_b: Columns of the confusion table.
            criterion: The criterion.

        Returns:
            The two raters' figures over the units both labelled (n = 0 when none).
        """
        with self._lock:
            crit = self._criterion(criterion)
            m = self._matrices.get(criterion, LabelMatrix())
            humans, _ = self._split(m)
            units = m.units()

            def column(rater: str) -> list[Hashable | None]:
                if rater == MAJORITY and rater not in self._rater_kinds:
                    return [strict_majority(m.get(u, h) for h in humans) for u in units]
                return [m.get(u, rater) for u in units]

            a, b = column(rater_a), column(rater_b)
            codes = self._codes.get(criterion)
            # the criterion's categories and any label given outside them (as the report)
            cats = list(codes.categories) if codes is not None else categories_for(crit)
        level = crit.level if crit is not None else "nominal"
        seed = self._study.settings.seed  # the report's intervals, resample for resample
        return two_stats(a, b, cats, level, seed=seed)

    def _alt_table(
        self, judge: str, criterion: str
    ) -> tuple[list[list[Hashable]], list[str], str, list[Hashable] | None]:
        """The alt-test's table of a criterion: rows of the reviewers' and ``judge``'s labels,
        the raters, the criterion's level and its categories (as the report reads them)."""
        with self._lock:
            crit = self._criterion(criterion)
            m = self._matrices.get(criterion, LabelMatrix())
            humans, _ = self._split(m)
            raters = [*humans, judge]
            rows = [[m.get(u, r) for r in raters] for u in m.units()]
            codes = self._codes.get(criterion)
            cats = list(codes.categories) if codes is not None else categories_for(crit)
        level = crit.level if crit is not None else "nominal"
        return rows, raters, level, cats

    def alt_test(
        self, judge: str, criterion: str, options: AltTestOptions | None = None
    ) -> AltTestResult:
        """The alternative annotator test of ``judge`` against the reviewers on a criterion:
        the report's decision on the same labels (:func:`.alt_tests.judge_alt_test`; the
        report's default ε, q and items unless ``options`` say otherwise). Call
        :meth:`refresh` first to include the newest labels."""
        rows, raters, level, cats = self._alt_table(judge, criterion)
        return judge_alt_test(rows, raters, judge, level, cats, options)

    def alt_test_with_plan(
        self, judge: str, criterion: str, options: AltTestOptions | None = None
    ) -> tuple[AltTestResult, str]:
        """:meth:`alt_test` and the plan beside it in a few words (the report's plan on the
        same labels, :func:`.alt_tests.plan_beside`, with the study's seed)."""
        rows, raters, level, cats = self._alt_table(judge, criterion)
        result = judge_alt_test(rows, raters, judge, level, cats, options)
        opts = replace(options or AltTestOptions(), seed=self._study.settings.seed)
        plan = plan_beside(rows, raters, judge, result.scoring, cats, opts)
        return result, plan.line()
