"""The report as one long-format CSV: one row per figure.

Columns: ``section, criterion, slice, rater_a, rater_b, metric, value, text, ci_low, ci_high,
n, reason, method`` (the interval's method). ``value`` holds numbers only; a figure that is
text (a judge's key, the counted categories, a flag) is in ``text``. ``section`` is the view (``human_human``,
``majority_judge``, ``ab_ba``, …; for
pairwise criteria the without-ties variant is ``human_human/without_ties``), or
``reference``, ``unresolved``, ``consistency``, ``judge_version``, ``judge_vs_judge``,
``judge_bias`` (length bias and self-preference, see :func:`_biases`), ``alt_test`` (the
alternative annotator test per judge version and criterion, see :func:`_alt_test`),
``reviewer_position``
(the reviewers' own position bias beside the judges': metric ``first_shown_wins`` per
reviewer as rater_a, and pooled as ``all reviewers``; only when the orders they saw vary),
``win_rate``, ``categories`` (per criterion: the counted categories joined by ``|`` as the
text, q as n, metric ``declared`` or ``default``, the sentence as reason), ``audit`` (corrected figures, see :func:`_audit`), ``kqa``, ``kqa_answer``, ``excluded`` (the answers left out as abstentions: one row
``excluded_answers`` with n of N as value and n, then one row per answer with its item as the
slice, its model as rater_a and the rule as reason), ``retired`` (the items retired with
``medjudge retire``: one row ``retired_items`` with their count, then one row per item with its
kind as criterion, its id as the slice, who retired it as rater_a, when as rater_b, value 1 and
the reason as reason), ``rating_mean``, ``classification`` (a judge against the
reviewers' majority: accuracy, macro_f1, ``precision:<verdict>`` …), ``confusion/<view>``
(metric ``row / column``, value = count) and
``effort``. Undefined figures have an empty value and a ``reason`` (a column added to the
minimal list so that "undefined" is never silent).

Spreadsheet safety: a text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage
return gets a leading apostrophe so spreadsheet programs do not run it as a formula (the one
rule of every CSV medjudge writes, :func:`~medjudge.store.literal.spreadsheet_text`); numbers
are written as numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from itertools import chain

from medjudge.judging.analysis.records import GroupComparison, PairComparison
from medjudge.judging.analysis.records_audit import AuditMeans, AuditShares
from medjudge.judging.report import kind_sections
from medjudge.judging.report.model import Report

from .csv_rows import COLUMNS, figure_row, plain_line, with_reason
from .csv_sections import _effort, _exclusions, _retired


def _comparisons(report: Report) -> Iterator[list[str]]:
    for c in report.criteria:
        cats = c.categories
        yield plain_line(
            "categories",
            c.name,
            "all",
            None,
            None,
            "declared" if c.categories_declared else "default",
            "|".join(map(str, cats)) if cats is not None else None,
            None,
            None,
            len(cats) if cats is not None else None,
            c.categories_note,
            None,
        )
        for r in c.comparisons:
            section = r.view + ("/without_ties" if r.ties == "without" else "")
            for name, est in r.metrics.items():
                yield figure_row(section, c.name, r.slice, r.rater_a, r.rater_b, name, est)
            if isinstance(r, GroupComparison):
                for v in r.fleiss_per_category:
                    name = f"fleiss:{v.category}"
                    yield figure_row(section, c.name, r.slice, r.rater_a, r.rater_b, name, v)
            cl = r.classification if isinstance(r, PairComparison) else None
            if cl:
                for name, fig in (
                    ("accuracy", cl.accuracy),
                    ("macro_f1", cl.macro_f1),
                    ("macro_precision", cl.macro_precision),
                    ("macro_recall", cl.macro_recall),
                ):
                    yield figure_row(
                        "classification",
                        c.name,
                        r.slice,
                        r.rater_a,
                        r.rater_b,
                        name,
                        fig,
                    )
                for lab in cl.labels:
                    for name, fig in (
                        ("precision", lab.precision),
                        ("recall", lab.recall),
                        ("f1", lab.f1),
                    ):
                        yield figure_row(
                            "classification",
                            c.name,
                            r.slice,
                            r.rater_a,
                            r.rater_b,
                            f"{name}:{lab.label}",
                            fig,
                        )
            for vm in r.vs_majority if isinstance(r, GroupComparison) else []:
                yield figure_row(
                    section,
                    c.name,
                    r.slice,
                    vm.rater,
                    "majority of the others",
                    "percent",
                    vm,
                )
            for vm in r.vs_majority_own if isinstance(r, GroupComparison) else []:
                yield figure_row(
                    section,
                    c.name,
                    r.slice,
                    vm.rater,
                    "majority including its own vote",
                    "percent",
                    vm,
                )
            conf = r.confusion
            if conf and r.slice == "all" and r.ties != "without":
                cats = conf.categories
                k = len(cats)
                cells = (
                    conf.cells  # past 200 categories: the non-empty cells only
                    if conf.matrix is None
                    else [[i, j, conf.matrix[i][j]] for i in range(k) for j in range(k)]
                )
                for i, j, count in cells:
                    yield figure_row(
                        f"confusion/{r.view}",
                        c.name,
                        "all",
                        r.rater_a,
                        r.rater_b,
                        f"{cats[i]} / {cats[j]}",
                        value=count,
                        n=r.n,
                    )


def _reviewer_position(report: Report) -> Iterator[list[str]]:
    """Section ``reviewer_position``: per reviewer (and pooled) the share of decisive labels won
    by the answer shown first (only when the orders reviewers saw vary)."""
    for r in report.judges.reviewer_position or ():
        yield figure_row(
            "reviewer_position",
            rater_a=r.reviewer,
            metric="first_shown_wins",
            est=r.first_shown_wins,
        )


def _judges(report: Report) -> Iterator[list[str]]:
    """Section ``judge_version`` (one judge version's figures; ``rater_a`` is the version, the
    criterion empty for whole-version figures) and ``judge_vs_judge``."""
    judges = report.judges
    for v in judges.versions:
        name = v.name
        yield figure_row("judge_version", rater_a=name, metric="key", value=v.key)
        yield figure_row("judge_version", rater_a=name, metric="missing", est=v.missing)
        yield figure_row(
            "judge_version", rater_a=name, metric="samples_disagreed", est=v.samples_disagreed
        )
        if v.position is not None:
            for key, share in (
                ("ab_ne_ba", v.position.ab_ne_ba),
                ("first_shown_wins", v.position.first_shown_wins),
            ):
                yield figure_row("judge_version", rater_a=name, metric=f"position_{key}", est=share)
        for key, value in (
            ("verdicts", v.verdicts),
            ("items", v.items),
            ("failed_samples", v.failed_samples),
            ("not_judged", v.not_judged),
            ("calls", v.calls),
            ("input_tokens", v.input_tokens),
            ("output_tokens", v.output_tokens),
            ("cost_usd", v.cost_usd),
            ("cost_per_item", v.cost_per_item),
            ("latency_s", v.latency_s),
            ("wall_s", v.wall_s),
        ):
            yield figure_row("judge_version", rater_a=name, metric=key, value=value)
        for rec in v.vs_majority:
            c = rec.criterion
            for key, fig in (("kappa", rec.kappa), ("ac1", rec.ac1), ("accuracy", rec.accuracy)):
                yield figure_row(
                    "judge_version",
                    c,
                    rater_a=name,
                    rater_b="majority of reviewers",
                    metric=key,
                    est=fig,
                )
            yield figure_row(
                "judge_version",
                c,
                rater_a=name,
                rater_b="majority of reviewers",
                metric="macro_f1",
                est=rec.macro_f1,
            )
            for p in rec.per_value:
                for key, fig in (("precision", p.precision), ("recall", p.recall), ("f1", p.f1)):
                    yield figure_row(
                        "judge_version",
                        c,
                        f"verdict={p.value}",
                        name,
                        "majority of reviewers",
                        key,
                        est=fig,
                    )
    for pair in judges.pairs:
        for key, fig in (("kappa", pair.kappa), ("ac1", pair.ac1), ("percent", pair.percent)):
            yield figure_row(
                "judge_vs_judge",
                pair.criterion,
                rater_a=pair.a,
                rater_b=pair.b,
                metric=key,
                est=fig,
            )
    yield from _biases(report)


def _biases(report: Report) -> Iterator[list[str]]:
    """Section ``judge_bias``: per judge version (``rater_a``) and criterion, metric
    ``longer_answer_wins``, ``per_100_words`` or ``self_preference`` (slice ``family=SOURCE``),
    once for the judge and once for ``physicians`` (``rater_b``: ``judge`` or ``physicians``,
    on the same units), then ``flagged`` (value 1 when the judge is biased, else 0; the
    direction and the note as reason)."""
    for b in report.judges.biases:
        where = f"family={b.family}" if b.family is not None else "all"
        for who, fig in (("judge", b.judge), ("physicians", b.physicians)):
            if fig is not None:
                yield figure_row(
                    "judge_bias", b.criterion, where, b.judge_version, who, b.bias, fig
                )
        row = figure_row(
            "judge_bias",
            b.criterion,
            where,
            b.judge_version,
            metric=f"{b.bias}:flagged",
            value=int(b.flagged),
            n=b.units,
        )
        yield with_reason(row, "; ".join(x for x in (b.direction, b.note) if x) or None)


def _alt_test(report: Report) -> Iterator[list[str]]:
    """Section ``alt_test``: per criterion and judge version (``rater_a``; ``rater_b``
    ``physicians``, or the physician left out): ``winning_rate`` (n: physicians tested),
    ``advantage_probability``, each physician's ``p`` (n: the physician's items; an excluded
    physician's or an undefined t's note as reason), then ``passed`` (1 may stand in, 0 may
    not; empty with the reason when not computed). The slice names the scoring, ε and q. The
    plan beside it: ``pass_probability:items=N`` per simulated size (n: N) and
    ``items_needed`` (the fewest items with an 80% chance; empty with the reason)."""
    for r in report.alt_test:
        where = f"scoring={r.scoring};epsilon={r.epsilon:g};q={r.q:g}"
        tested = sum(p.excluded is None for p in r.physicians)
        for metric, value in (
            ("winning_rate", r.winning_rate),
            ("advantage_probability", r.advantage_probability),
        ):
            row = figure_row(
                "alt_test", r.criterion, where, r.judge, "physicians", metric, value=value, n=tested
            )
            yield with_reason(row, r.reason)
        for p in r.physicians:
            row = figure_row(
                "alt_test", r.criterion, where, r.judge, p.name, "p", value=p.p, n=p.n_items
            )
            yield with_reason(row, p.excluded or p.note)
        passed = None if r.passed is None else int(r.passed)
        row = figure_row(
            "alt_test", r.criterion, where, r.judge, "physicians", "passed", value=passed, n=tested
        )
        yield with_reason(row, r.reason)
        for point in r.plan:
            metric = f"pass_probability:items={point.n_items}"
            yield figure_row(
                "alt_test", r.criterion, where, r.judge, "plan", metric,
                value=point.pass_probability, n=point.n_items,
            )  # fmt: skip
        row = figure_row(
            "alt_test", r.criterion, where, r.judge, "plan", "items_needed", value=r.items_needed
        )
        yield with_reason(row, r.plan_note)


def _adjudication(report: Report) -> Iterator[list[str]]:
    for c in report.adjudication.criteria:
        yield figure_row(
            "unresolved", c.criterion, metric="unresolved_disagreements", value=c.unresolved
        )
        yield figure_row("unresolved", c.criterion, metric="adjudicated", value=c.adjudicated)
        for r in c.comparisons:
            for metric, key in (("accuracy", "percent"), ("cohen", "cohen")):
                yield figure_row(
                    "reference",
                    c.criterion,
                    "all",
                    r.rater_a,
                    r.rater_b,
                    metric,
                    r.metrics[key],
                )


def _consistency(report: Report) -> Iterator[list[str]]:
    for k in report.consistency:
        for key, share in (
            ("samples_disagreed", k.samples_disagreed),
            ("position_inconsistent", k.position_inconsistent),
            ("judges_disagreed", k.judges_disagreed),
        ):
            if share is not None:
                yield figure_row("consistency", k.criterion, rater_a=k.judge, metric=key, est=share)
        for key, count in (
            ("n_verdicts", k.n_verdicts),
            ("missing", k.missing),
            ("failed_samples", k.failed_samples),
        ):
            yield figure_row("consistency", k.criterion, rater_a=k.judge, metric=key, value=count)


def _audit(report: Report) -> Iterator[list[str]]:
    """Section ``audit`` (corrected figures): per criterion and source (``rater_b``), metric
    ``win``/``tie``/``loss`` (or ``win_difference`` with ``rater_b`` = ``A − B``) for each of
    ``judge_only``, ``physicians_only`` and ``corrected`` (``rater_a``; ``slice`` names the
    judge; per answer: metric ``comprehensiveness`` / ``hallucinations`` / ``rubric_score`` /
    ``mean_score``, and ``<metric>_difference`` with ``rater_b`` = ``A − B``), then
    ``labels_needed`` (value: further labels; n: the labels there are) per corrected figure; a
    withheld criterion is one row with its reason."""
    au = report.audit
    if au is None:
        return
    for c in au.criteria:
        if c.withheld:
            yield with_reason(figure_row("audit", c.criterion, metric="withheld"), c.withheld)
            continue
        judge = f"judge={c.judge}"
        figures: list[tuple[str, str, AuditShares | AuditMeans]] = [
            (s.source, o, getattr(s, o)) for s in c.sources for o in ("win", "tie", "loss")
        ]
        figures += [
            (f"{d.source_a} − {d.source_b}", "win_difference", d.win_difference)
            for d in c.differences
        ]
        figures += [(r.source, r.metric, r.figures) for r in c.means]
        figures += [
            (f"{d.source_a} − {d.source_b}", f"{d.metric}_difference", d.figures)
            for d in c.mean_differences
        ]
        for who, metric, f in figures:
            for how, est in (
                ("judge_only", f.judge_only),
                ("physicians_only", f.physicians_only),
                ("corrected", f.corrected),
            ):
                yield figure_row("audit", c.criterion, judge, how, who, metric, est)
            k = f.corrected
            row = figure_row(
                "audit",
                c.criterion,
                judge,
                "labels_needed",
                who,
                f"{metric}:halfwidth<={au.target_halfwidth:g}",
                value=k.labels_needed,
                n=k.n_labelled,
            )
            yield with_reason(row, k.labels_needed_note)


def _other(report: Report) -> Iterator[list[str]]:
    yield from _adjudication(report)
    yield from _consistency(report)
    yield from _judges(report)
    yield from _alt_test(report)
    yield from _reviewer_position(report)
    yield from _audit(report)
    for section, record in kind_sections.present(report):
        yield from section.csv_rows(record)
    yield from _exclusions(report)
    yield from _retired(report)
    yield from _effort(report)


CHUNK_ROWS = 1000
"""Rows per piece of :func:`csv_chunks`."""


def csv_chunks(report: Report) -> Iterator[str]:
    """The CSV text in pieces of :data:`CHUNK_ROWS` rows (``report -f csv -o FILE`` writes them
    as they come: the whole text is never held)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for i, row in enumerate(chain([COLUMNS], _comparisons(report), _other(report)), start=1):
        writer.writerow(row)
        if i % CHUNK_ROWS == 0:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    yield buf.getvalue()


def render_csv(report: Report) -> str:
    """Every figure of the report as rows of one CSV table (header first)."""
    return "".join(csv_chunks(report))
