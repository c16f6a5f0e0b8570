"""Shared wording and number formatting for the report renderers (md, html, csv).

Nothing here escapes: each renderer escapes study text for its own format. Helpers that pick
figures out of the report (:func:`headline`) read the typed :class:`.model.Report`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from medjudge import kinds
from medjudge.judging.analysis.records import (
    Comparison,
    ConsensusRow,
    Figure,
    GroupComparison,
)
from medjudge.judging.analysis.records_sections import (
    ExclusionsSection,
    PerItemEffort,
    RetiredSection,
)
from medjudge.judging.stats import figures
from medjudge.judging.stats.dawid_skene import ALPHA, MAX_ITER, RESTARTS, TOL

from .model import CriterionSection

METRIC_NAMES = figures.LABELS
PERCENT_METRICS = figures.PERCENT
UNSTABLE_MARK = "†"
UNSTABLE_NOTE = "† fewer than 20 units: unstable."

VIEW_NAMES = {
    "human_human": "Reviewer vs reviewer",
    "reviewers": "All reviewers",
    "human_judge": "Reviewer vs judge",
    "majority_judge": "Reviewers' majority vs judge",
    "judge_judge": "Judge vs judge",
    "ab_ba": "Judge AB vs BA order",
    "reference": "Rater vs adjudicated reference",
}


def est(e: Figure | None, *, pct: bool = False, digits: int = 2, ci: bool = True) -> str:
    """Format a figure for people.

    ``0.61 [0.52, 0.70]``, ``85.0% [80.1, 89.2]`` or ``undefined (reason)``; an absent
    estimate is an en dash.
    """
    if e is None:
        return "–"
    value = e.value
    if value is None:
        reason = e.reason
        return f"undefined ({reason})" if reason else "undefined"

    def num(x: float) -> str:
        return f"{100 * x:.1f}" if pct else f"{x:.{digits}f}"

    text = num(value) + ("%" if pct else "") + (UNSTABLE_MARK if e.unstable else "")
    if ci and e.ci_low is not None and e.ci_high is not None:
        text += f" [{num(e.ci_low)}, {num(e.ci_high)}]"
    return text


def chance_note(pe: float | None) -> str | None:
    """``pₑ 0.52``: the chance agreement a κ is corrected for (None when unknown)."""
    return None if pe is None else f"pₑ {pe:.2f}"


def join_notes(*notes: str | None) -> str | None:
    """Notes joined with commas, leaving out the empty ones."""
    kept = [n for n in notes if n]
    return ", ".join(kept) if kept else None


def money(x: float | None) -> str:
    """US dollars with enough decimals for small judge bills."""
    if x is None:
        return "–"
    return f"${x:,.2f}" if x >= 100 else f"${x:,.4f}"


def duration(seconds: float | None) -> str:
    """``1 h 02 min``, ``3 min 20 s`` or ``12.5 s``."""
    if seconds is None:
        return "–"
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    if seconds >= 60:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{seconds:.1f} s"


def integer(x: float | None) -> str:
    """A count with thousands separators (``–`` for None)."""
    return "–" if x is None else f"{int(x):,}"


def criterion_title(c: CriterionSection) -> str:
    """``correctness — pairwise, benefit ("which is better?")`` and the like."""
    return f"{c.name} — {kinds.get(c.kind).describe(c.polarity, c.scale, c.ordinal)}"


def whole(c: CriterionSection, *, ties: str | None = "with") -> list[Comparison]:
    """A criterion's whole-criterion comparisons (slice ``all``) for one tie setting."""
    want = ties if kinds.get(c.kind).tie_value is not None else None
    out: list[Comparison] = []
    for r in c.comparisons:
        if r.slice != "all":
            continue
        if r.view == "reviewers" or r.ties == want:
            out.append(r)
    return out


@dataclass(frozen=True)
class Headline:
    """The summary figures of a criterion (see :func:`headline`)."""

    reviewer_percent: Figure | None = None
    reviewer_kappa: Figure | None = None
    kappa_name: str = "Cohen's κ"
    judge: str | None = None
    judge_percent: Figure | None = None
    judge_kappa: Figure | None = None
    judge_view: str | None = None
    reviewer_chance: float | None = None
    judge_chance: float | None = None


def headline(c: CriterionSection) -> Headline:
    """The summary figures of a criterion: reviewer agreement (Cohen's κ for two reviewers,
    Fleiss' κ for more) and reviewers vs the headline judge
    (:func:`medjudge.judging.analysis.headline.headline_judge`)."""
    rows = whole(c)
    multi = next((r for r in rows if isinstance(r, GroupComparison)), None)
    pair = next((r for r in rows if r.view == "human_human"), None)
    h = Headline()
    if multi is not None:
        h = Headline(
            reviewer_percent=multi.metrics["mean_pairwise_percent"],
            reviewer_kappa=multi.metrics["fleiss"],
            kappa_name="Fleiss' κ",
            reviewer_chance=multi.chance,
        )
    elif pair is not None:
        h = Headline(
            reviewer_percent=pair.metrics["percent"],
            reviewer_kappa=pair.metrics["cohen"],
            reviewer_chance=pair.chance,
        )
    first = c.headline_judge  # the most complete judge, then by name
    for view in ("majority_judge", "human_judge") if first else ():
        r = next((r for r in rows if r.view == view and r.rater_b == first), None)
        if r is not None:
            return replace(
                h,
                judge=first,
                judge_percent=r.metrics["percent"],
                judge_kappa=r.metrics["cohen"],
                judge_view=view,
                judge_chance=r.chance,
            )
    return h


def two_metric_names(c: CriterionSection) -> list[str]:
    """Metric columns for a criterion's two-rater tables (ordered scales get more)."""
    names = list(figures.keys("two", c.scale or ("ordinal" if c.ordinal else "nominal")))
    sets = figures.keys("sets")  # multi-select criteria: their records carry these too
    if any(k in r.metrics for r in c.comparisons for k in sets):
        names += sets
    return names


ANCHORING_NOTE = (
    "A change is a label a reviewer changed after the judge's verdict and the other reviewers' "
    "labels were shown; 'toward' means the new value matches a judge's current verdict (or the "
    "other reviewers' majority) and the old one did not. Shares with 95% Wilson intervals."
)

GOLD_NOTE = (
    "Gold items carry an expected value in the import file; they sit in reviewers' queues "
    "unmarked. Accuracy is the share of a rater's labels on gold units that equal it (95% Wilson "
    "intervals); a judge's missing verdicts are not counted."
)

CONSENSUS_NOTE = (
    "For criteria with three or more reviewers: a Dawid-Skene model estimates each reviewer's "
    "confusion matrix and each unit's most probable label, by EM from the soft majority and "
    f"{RESTARTS} seeded random starts (the converged start with the highest likelihood is kept; "
    f"smoothing pseudo-count {ALPHA:g}, tolerance {TOL:g}, at most {MAX_ITER} iterations). "
    "When no start converges the "
    "consensus is the majority vote, and the line above its table says so. Accuracy is the "
    "chance a reviewer gives the true label of a unit drawn from the study; the columns are the "
    "diagonal of the confusion matrix."
)


def exclusions_line(e: ExclusionsSection) -> str:
    """How many answers the K-QA and MedRGB figures leave out, out of how many."""
    n = len(e.excluded)
    what = ("answer" if e.answers == 1 else "answers") + (" was" if n == 1 else " were")
    tail = "; each is listed below with the rule that excluded it." if n else "."
    return f"{n:,} of {e.answers:,} {what} excluded from the figures as abstentions{tail}"


def retired_line(r: RetiredSection) -> str:
    """How many items are retired (out of every figure)."""
    n = len(r.items)
    return f"{n:,} {'item was' if n == 1 else 'items were'} retired: left out of every figure."


def consensus_line(rec: ConsensusRow) -> str:
    """One sentence on how the consensus was fitted and where it differs from the majority."""
    m = rec.method
    if m.fallback:
        return (
            f"{rec.criterion}: {rec.n_units} units, {len(rec.reviewers)} reviewers. "
            f"Dawid-Skene did not converge from any of {m.starts} starts within {m.max_iter} "
            "iterations: the consensus shown is the majority vote (ties to the earlier "
            "category), and the accuracies are against it; it differs from the strict majority "
            f"on {rec.differs} unit(s) and settles {rec.settled} unit(s) without one."
        )
    fit = (
        f"EM converged from {m.converged_starts} of {m.starts} starts; kept the {m.start} "
        f"start, {m.iterations} iterations"
    )
    unused = (
        f" No reviewer gave {', '.join(rec.unused)}: not a class of the model (no row or column)."
        if rec.unused
        else ""
    )
    return (
        f"{rec.criterion}: {rec.n_units} units, {len(rec.reviewers)} reviewers ({fit}); "
        f"the consensus differs from the strict majority on {rec.differs} unit(s) and settles "
        f"{rec.settled} unit(s) without a strict majority.{unused}"
    )


def per_item_note(p: PerItemEffort) -> str:
    """How the per-item time and cost and their projection are computed."""
    return (
        f"Per item (the ledger, medjudge export STUDY ledger): reviewer time is active time, "
        f"with pauses longer than {duration(p.idle_cap_s)} counted as that long; the median "
        f"and interquartile range per item, projected for {p.n_more:,} more items by the "
        f"median. Judge cost is the mean per judged item, projected by the mean."
    )
