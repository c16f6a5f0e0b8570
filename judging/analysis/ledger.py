"""Time and cost per item, and what N more items would take (the report's per-item effort).

From the ledger (:mod:`medjudge.store.ledger`): per reviewer, the active seconds per item they
spent time on (median and interquartile range — review times are skewed, so the median, not the
mean); per judge, the mean cost and calls per judged item. The projection multiplies those by
``n_more`` items: reviewer time by the median (with the IQR as its range), judge cost by the
mean (cost adds up, so the mean is the right summary for a total).
"""

from __future__ import annotations

import statistics

from medjudge.judging.analysis.records_sections import JudgeSpend, PerItemEffort, ReviewerPace
from medjudge.store.ledger import IDLE_GAP_S, ledger_rows
from medjudge.store.study import Study


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def per_item_effort(study: Study, n_more: int = 100) -> PerItemEffort:
    """Seconds per item per reviewer, cost per item per judge, and the projection for
    ``n_more`` items."""
    seconds: dict[str, list[float]] = {}
    costs: dict[str, list[tuple[float, int]]] = {}
    for row in ledger_rows(study):
        if row.rater_kind == "human" and row.active_seconds is not None:
            seconds.setdefault(row.rater, []).append(float(row.active_seconds))
        elif row.rater_kind == "judge" and row.item is not None:
            costs.setdefault(row.rater, []).append((float(row.cost_usd or 0), int(row.calls or 0)))
    reviewers: list[ReviewerPace] = []
    for name in sorted(seconds):
        q1, median, q3 = _quartiles(seconds[name])
        reviewers.append(
            ReviewerPace(
                reviewer=name,
                items=len(seconds[name]),
                median_s=median,
                q1_s=q1,
                q3_s=q3,
                projected_s=median * n_more,
                projected_range_s=[q1 * n_more, q3 * n_more],
            )
        )
    judges: list[JudgeSpend] = []
    for name in sorted(costs):
        items = len(costs[name])
        mean_cost = sum(c for c, _ in costs[name]) / items
        judges.append(
            JudgeSpend(
                judge=name,
                items=items,
                cost_per_item_usd=mean_cost,
                calls_per_item=sum(n for _, n in costs[name]) / items,
                projected_cost_usd=mean_cost * n_more,
            )
        )
    return PerItemEffort(n_more=n_more, idle_cap_s=IDLE_GAP_S, reviewers=reviewers, judges=judges)
