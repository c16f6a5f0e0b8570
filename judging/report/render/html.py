"""What the HTML report shows beyond its tables: the cards, the charts and the sections.

The page itself — every element and attribute — is written by ``templates/report.html.j2``
and its macros; this module only picks and computes (which sections exist, the figures on
the cards, each chart's geometry through :mod:`.charts`) and supplies the template's filters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from medjudge.judging.analysis.records import Figure, PairComparison
from medjudge.judging.report import cells as rc
from medjudge.judging.report import kind_sections
from medjudge.judging.report import tables as tb
from medjudge.judging.report import text as rt
from medjudge.judging.report.chart_shapes import Chart
from medjudge.judging.report.charts import COLORS, ForestRow, bars, forest, heatmap
from medjudge.judging.report.model import CriterionSection, Report
from medjudge.store.literal import plural, printable

MAX_HEATMAPS = 8
"""Confusion heatmaps shown per criterion; the rest are in the JSON and CSV reports."""


def text(value: object) -> str:
    """Study text with control and bidi characters made visible (autoescaping does the rest)."""
    return printable("" if value is None else str(value))


def bound(x: float, pct: bool) -> str:
    """An interval bound as the HTML cells show it: ``61.2`` (percent) or ``0.61``."""
    return f"{100 * x:.1f}" if pct else f"{x:.2f}"


def est(e: Figure | None, pct: bool = False, ci: bool = True) -> str:
    """A figure as text (see :func:`.text.est`)."""
    return rt.est(e, pct=pct, ci=ci)


def kind(cell: rc.Cell) -> str:
    """A table cell's kind (``Text``, ``Est`` …), for the template to dispatch on."""
    return type(cell).__name__


def html_filters() -> dict[str, Callable[..., str]]:
    """The HTML template's own filters."""
    return {"text": text, "bound": bound, "est": est, "kind": kind, "plain": rc.plain}


def cards(report: Report) -> list[tuple[str, str]]:
    """The figures on the cards at the top: ``(figure, what it counts)``."""
    e = report.effort
    calls = e.judge_calls
    counted = (
        (sum(report.study.items.values()), "item"),
        (sum(c.n_labels for c in report.criteria), "label"),
        (len(e.reviewers), "reviewer"),
        (len(report.protocol.judges), "judge"),
    )
    out = [(f"{n:,}", plural(n, word).split(" ", 1)[1]) for n, word in counted]
    return out + [
        (rt.money(calls.cost_usd), "judge cost"),
        (f"{calls.input_tokens + calls.output_tokens:,}", "judge tokens"),
        (rt.duration(e.review_seconds), "reviewer time"),
        (f"{report.adjudication.unresolved_total:,}", "unresolved disagreements"),
    ]


def kappa_chart(report: Report) -> Chart | None:
    """Cohen's / Fleiss' κ per criterion: among reviewers, and reviewers vs each judge."""
    points = []
    for c in report.criteria:
        h = rt.headline(c)
        if c.reviewers:
            label = f"reviewers ({h.kappa_name})"
            points.append(ForestRow(c.name, label, h.reviewer_kappa, COLORS["reviewers"]))
        view = "majority_judge" if len(c.reviewers) >= 2 else "human_judge"
        for r in rt.whole(c):
            if r.view == view:
                who = "majority" if view == "majority_judge" else r.rater_a
                label = f"{who} vs {r.rater_b}"
                points.append(ForestRow(c.name, label, r.metrics["cohen"], COLORS["judge"]))
    if not points:
        return None
    title = (
        "Cohen's / Fleiss' κ per criterion with 95% intervals (blue: among reviewers; "
        "orange: reviewers vs each judge)"
    )
    return forest(points, title=title)


@dataclass(frozen=True)
class Heatmaps:
    """A criterion's confusion heatmaps, and how many more the page leaves out."""

    charts: list[Chart]
    more: int


def heatmaps(c: CriterionSection) -> Heatmaps:
    """The confusion heatmaps of a criterion (at most :data:`MAX_HEATMAPS`)."""
    maps: list[PairComparison] = tb.confusion_records(c)
    charts = [
        heatmap(r.confusion, r.rater_a, r.rater_b or "", title=rt.VIEW_NAMES[r.view])
        for r in maps[:MAX_HEATMAPS]
        if r.confusion and r.confusion.categories
    ]
    return Heatmaps(charts, max(0, len(maps) - MAX_HEATMAPS) if charts else 0)


_INCONSISTENCY = (
    ("samples disagreed", "samples"),
    ("AB ≠ BA", "position"),
    ("members disagreed", "panel"),
)


def consistency_chart(report: Report) -> Chart | None:
    """Each judge's share of inconsistent verdicts (samples, orders, panel members)."""
    points = [
        (r.judge, f"{r.criterion}: {label}", share, COLORS[color])
        for r in report.consistency
        for share, (label, color) in zip(
            (r.samples_disagreed, r.position_inconsistent, r.judges_disagreed),
            _INCONSISTENCY,
            strict=True,
        )
        if share is not None
    ]
    if not points:
        return None
    return bars(points, title="Judge inconsistency (share of verdicts, 95% Wilson intervals)")


def sections(report: Report) -> list[tuple[str, str]]:
    """The page's sections, ``(anchor, title)``, in order (empty ones left out)."""
    out = [
        ("summary", "Summary"),
        ("criteria", "Agreement by criterion"),
        ("reference", "Each rater vs the adjudicated reference"),
        ("consistency", "Judge self-consistency"),
        ("judges", "Judge versions"),
    ]
    if report.alt_test:
        out.append(("alt-test", "Alternative annotator test"))
    out.append(("anchoring", "Anchoring"))
    optional = (
        (bool(report.gold), "gold", "Gold items"),
        (bool(report.consensus), "consensus", "Consensus beyond the majority (Dawid–Skene)"),
        (report.audit is not None, "audit", "Corrected figures (judge audit)"),
        *((True, s.anchor, s.title) for s, _ in kind_sections.present(report)),
        (report.exclusions is not None, "excluded", "Excluded from the figures"),
        (report.retired is not None, "retired", "Retired items"),
    )
    out += [(sid, title) for present, sid, title in optional if present]
    return out + [("protocol", "Protocol"), ("effort", "Effort"), ("notes", "Notes")]
