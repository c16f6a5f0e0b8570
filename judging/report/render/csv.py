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

from medjudge.judging.analysis.records import Figure, GroupComparison, PairComparison
from medjudge.judging.analysis.records_audit import AuditMeans, AuditShares
from medjudge.judging.report.model import Report
from medjudge.store.literal import printable, spreadsheet_text

COLUMNS = (
    "section",
    "criterion",
    "slice",
    "rater_a",
    "rater_b",
    "metric",
    "value",
    "text",
    "ci_low",
    "ci_high",
    "n",
    "reason",
    "method",
)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    return spreadsheet_text(printable(str(value)))


def _line(*cells: object) -> list[str]:
    """One CSV row from the 12 fields of :data:`COLUMNS` but ``text``: a number (or
    nothing) stays in ``value``, anything else — a key, categories, a flag — goes to ``text``,
    so ``value`` holds numbers only (a spreadsheet sums it)."""
    head, (value, *tail) = cells[:6], cells[6:]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    shown = (value, None) if value is None or number else (None, value)
    return [_text(x) for x in (*head, *shown, *tail)]


def _row(
    section: str,
    criterion: object = None,
    slice_: object = "all",
    rater_a: object = None,
    rater_b: object = None,
    metric: str = "",
    est: Figure | None = None,
    value: object = None,
    n: object = None,
) -> list[str]:
    cells: list[object]
    if est is not None:
        cells = [
            est.value,
            est.ci_low,
            est.ci_high,
            est.n,
            est.reason,
            est.method if est.ci_low is not None else None,
        ]
    else:
        cells = [value, None, None, n, None, None]
    return _line(section, criterion, slice_, rater_a, rater_b, metric, *cells)


def _comparisons(report: Report) -> Iterator[list[str]]:
    for c in report.criteria:
        cats = c.categories
        yield _line(
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
                yield _row(section, c.name, r.slice, r.rater_a, r.rater_b, name, est)
            if isinstance(r, GroupComparison):
                for v in r.fleiss_per_category:
                    name = f"fleiss:{v.category}"
                    yield _row(section, c.name, r.slice, r.rater_a, r.rater_b, name, v)
            cl = r.classification if isinstance(r, PairComparison) else None
            if cl:
                for name, fig in (
                    ("accuracy", cl.accuracy),
                    ("macro_f1", cl.macro_f1),
                    ("macro_precision", cl.macro_precision),
                    ("macro_recall", cl.macro_recall),
                ):
                    yield _row(
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
                        yield _row(
                            "classification",
                            c.name,
                            r.slice,
                            r.rater_a,
                            r.rater_b,
                            f"{name}:{lab.label}",
                            fig,
                        )
            for vm in r.vs_majority if isinstance(r, GroupComparison) else []:
                yield _row(
                    section,
                    c.name,
                    r.slice,
                    vm.rater,
                    "majority of the others",
                    "percent",
                    vm,
                )
            for vm in r.vs_majority_own if isinstance(r, GroupComparison) else []:
                yield _row(
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
                    yield _row(
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
        yield _row(
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
        yield _row("judge_version", rater_a=name, metric="key", value=v.key)
        yield _row("judge_version", rater_a=name, metric="missing", est=v.missing)
        yield _row(
            "judge_version", rater_a=name, metric="samples_disagreed", est=v.samples_disagreed
        )
        if v.position is not None:
            for key, share in (
                ("ab_ne_ba", v.position.ab_ne_ba),
                ("first_shown_wins", v.position.first_shown_wins),
            ):
                yield _row("judge_version", rater_a=name, metric=f"position_{key}", est=share)
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
            yield _row("judge_version", rater_a=name, metric=key, value=value)
        for rec in v.vs_majority:
            c = rec.criterion
            for key, fig in (("kappa", rec.kappa), ("ac1", rec.ac1), ("accuracy", rec.accuracy)):
                yield _row(
                    "judge_version",
                    c,
                    rater_a=name,
                    rater_b="majority of reviewers",
                    metric=key,
                    est=fig,
                )
            yield _row(
                "judge_version",
                c,
                rater_a=name,
                rater_b="majority of reviewers",
                metric="macro_f1",
                est=rec.macro_f1,
            )
            for p in rec.per_value:
                for key, fig in (("precision", p.precision), ("recall", p.recall), ("f1", p.f1)):
                    yield _row(
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
            yield _row(
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
                yield _row("judge_bias", b.criterion, where, b.judge_version, who, b.bias, fig)
        row = _row(
            "judge_bias",
            b.criterion,
            where,
            b.judge_version,
            metric=f"{b.bias}:flagged",
            value=int(b.flagged),
            n=b.units,
        )
        yield _with_reason(row, "; ".join(x for x in (b.direction, b.note) if x) or None)


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
            row = _row(
                "alt_test", r.criterion, where, r.judge, "physicians", metric, value=value, n=tested
            )
            yield _with_reason(row, r.reason)
        for p in r.physicians:
            row = _row("alt_test", r.criterion, where, r.judge, p.name, "p", value=p.p, n=p.n_items)
            yield _with_reason(row, p.excluded or p.note)
        passed = None if r.passed is None else int(r.passed)
        row = _row(
            "alt_test", r.criterion, where, r.judge, "physicians", "passed", value=passed, n=tested
        )
        yield _with_reason(row, r.reason)
        for point in r.plan:
            metric = f"pass_probability:items={point.n_items}"
            yield _row(
                "alt_test", r.criterion, where, r.judge, "plan", metric,
                value=point.pass_probability, n=point.n_items,
            )  # fmt: skip
        row = _row(
            "alt_test", r.criterion, where, r.judge, "plan", "items_needed", value=r.items_needed
        )
        yield _with_reason(row, r.plan_note)


def _adjudication(report: Report) -> Iterator[list[str]]:
    for c in report.adjudication.criteria:
        yield _row("unresolved", c.criterion, metric="unresolved_disagreements", value=c.unresolved)
        yield _row("unresolved", c.criterion, metric="adjudicated", value=c.adjudicated)
        for r in c.comparisons:
            for metric, key in (("accuracy", "percent"), ("cohen", "cohen")):
                yield _row(
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
                yield _row("consistency", k.criterion, rater_a=k.judge, metric=key, est=share)
        for key, count in (
            ("n_verdicts", k.n_verdicts),
            ("missing", k.missing),
            ("failed_samples", k.failed_samples),
        ):
            yield _row("consistency", k.criterion, rater_a=k.judge, metric=key, value=count)


def _win_rates(report: Report) -> Iterator[list[str]]:
    for w in report.win_rates:
        for s in w.sources:
            for o, share in (
                ("win", s.win),
                ("tie", s.tie),
                ("loss", s.loss),
                ("neither", s.neither),
            ):
                yield _row(
                    "win_rate",
                    w.criterion,
                    f"source={s.source}",
                    w.rater,
                    s.source,
                    o,
                    share,
                )


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
            yield _with_reason(_row("audit", c.criterion, metric="withheld"), c.withheld)
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
                yield _row("audit", c.criterion, judge, how, who, metric, est)
            k = f.corrected
            row = _row(
                "audit",
                c.criterion,
                judge,
                "labels_needed",
                who,
                f"{metric}:halfwidth<={au.target_halfwidth:g}",
                value=k.labels_needed,
                n=k.n_labelled,
            )
            yield _with_reason(row, k.labels_needed_note)


def _with_reason(row: list[str], reason: str | None) -> list[str]:
    """``row`` with its ``reason`` cell set."""
    row[COLUMNS.index("reason")] = _text(reason)
    return row


def _medrgb(report: Report) -> Iterator[list[str]]:
    m = report.medrgb
    if m:
        for mr in m.raters:
            for dim, recs in (("source", mr.by_source), ("test", mr.by_test), ("p", mr.by_p)):
                for rec in recs:
                    yield _row(
                        "medrgb",
                        "match",
                        f"{dim}={rec.key}",
                        mr.rater,
                        None,
                        "mean_score",
                        rec,
                    )
            yield _row("medrgb", "match", "all", mr.rater, None, "mean_score", mr.overall)
        for a in m.abstention_by_p:
            yield _row("medrgb", "match", f"p={a.key}", None, None, "abstention_share", a)


def _rubric(report: Report) -> Iterator[list[str]]:
    r = report.rubric
    if r:
        for rr in r.raters:
            yield _row("rubric", "rubric", "all", rr.rater, None, "mean_score", rr.overall)
            for dim, recs in (("source", rr.by_source), ("tag", rr.by_tag)):
                for rec in recs:
                    yield _row(
                        "rubric", "rubric", f"{dim}={rec.key}", rr.rater, None, "mean_score", rec
                    )
        for g in r.graders:
            where = f"tag={g.tag}" if g.tag != "all" else "all"
            yield _row(
                "rubric_grading", "rubric", where, g.judge, "reference", "macro_f1", g.macro_f1
            )
            for p in g.physician_pairs:
                yield _row(
                    "rubric_grading", "rubric", where, p.rater_b, p.rater_a, "macro_f1", p.macro_f1
                )


def _exclusions(report: Report) -> Iterator[list[str]]:
    ex = report.exclusions
    if ex is None:
        return
    yield _line("excluded", None, "all", None, None, "excluded_answers", len(ex.excluded),
                None, None, ex.answers, ex.rule, None)  # fmt: skip
    for e in ex.excluded:
        yield _line("excluded", e.section, e.item, e.source, None, "abstention", 1, None, None,
                    None, e.rule, None)  # fmt: skip


def _retired(report: Report) -> Iterator[list[str]]:
    rr = report.retired
    if rr is None:
        return
    yield _line("retired", None, "all", None, None, "retired_items", len(rr.items), None,
                None, len(rr.items), rr.rule, None)  # fmt: skip
    for r in rr.items:
        yield _line("retired", r.kind, r.item, r.by, r.at, "retired", 1, None, None, None,
                    r.reason, None)  # fmt: skip


def _kqa(report: Report) -> Iterator[list[str]]:
    kqa = report.kqa
    if kqa:
        for kr in kqa.raters:
            for src, f in kr.by_source.items():
                for key, fig in (
                    ("comprehensiveness_answered", f.comprehensiveness_answered),
                    ("comprehensiveness_all", f.comprehensiveness_all),
                    ("hallucinations_answered", f.hallucinations_answered),
                    ("hallucinations_all", f.hallucinations_all),
                    ("contradiction_share", f.contradiction_share),
                ):
                    if fig is not None:
                        yield _row("kqa", "entailment", f"source={src}", kr.rater, src, key, fig)
        for ans in kqa.answers:
            for key, number in (
                ("comprehensiveness", ans.comprehensiveness),
                ("hallucinations", ans.hallucinations),
            ):
                yield _row(
                    "kqa_answer",
                    "entailment",
                    f"item={ans.item}",
                    ans.rater,
                    ans.source,
                    key,
                    value=number,
                    n=ans.labelled,
                )


def _ratings(report: Report) -> Iterator[list[str]]:
    for rr in report.ratings:
        yield _row("rating_mean", rr.criterion, "all", rr.rater, None, "mean", rr.overall)
        for sm in rr.sources:
            yield _row(
                "rating_mean",
                rr.criterion,
                f"source={sm.source}",
                rr.rater,
                sm.source,
                "mean",
                sm,
            )


def _effort(report: Report) -> Iterator[list[str]]:
    e = report.effort
    for key, value in e.judge_calls:  # every field, in order
        yield _row("effort", metric=f"judge_{key}", value=value)
    for j in e.per_judge:
        for key, value in (
            ("calls", j.calls),
            ("failed", j.failed),
            ("errors", j.errors),
            ("input_tokens", j.input_tokens),
            ("output_tokens", j.output_tokens),
            ("cost_usd", j.cost_usd),
            ("latency_s", j.latency_s),
        ):
            yield _row("effort", rater_a=j.judge, metric=f"judge_{key}", value=value)
    for rt in e.reviewers:
        yield _row(
            "effort",
            rater_a=rt.reviewer,
            metric="review_seconds",
            value=rt.seconds,
            n=rt.items,
        )


def _other(report: Report) -> Iterator[list[str]]:
    yield from _adjudication(report)
    yield from _consistency(report)
    yield from _judges(report)
    yield from _alt_test(report)
    yield from _reviewer_position(report)
    yield from _win_rates(report)
    yield from _audit(report)
    yield from _medrgb(report)
    yield from _rubric(report)
    yield from _kqa(report)
    yield from _exclusions(report)
    yield from _retired(report)
    yield from _ratings(report)
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
