"""The ledger: what each item cost, in reviewer time and judge calls (``export STUDY ledger``).

One row per (item, rater): a reviewer's active seconds on the item and visits, or a judge's
calls, tokens and cost on it. Active time is the review app's measure: the time between
keypresses, leaving out a pause longer than :data:`IDLE_GAP_S` (a reviewer who walks away is
not billed for lunch), time on an item already finished and time on other screens (overview,
help, guidelines); every row says the idle limit in ``idle_cap_s``. Calls without an
item are listed under an empty item so the ledger sums to ``status``'s spend.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .study import Study

IDLE_GAP_S = 300.0
"""The longest pause between two keypresses that counts as active time, in seconds; a longer
pause counts nothing (an idle stretch)."""

LEDGER_SQL = f"""
    SELECT * FROM (
        SELECT i.ext_id AS item, i.kind, r.name AS rater, 'human' AS rater_kind,
               round(t.seconds, 3) AS active_seconds, t.visits, {IDLE_GAP_S:g} AS idle_cap_s,
               NULL AS calls, NULL AS input_tokens, NULL AS output_tokens, NULL AS cost_usd
        FROM item_time t JOIN items i ON i.id = t.item_id JOIN raters r ON r.id = t.rater_id
        UNION ALL
        SELECT i.ext_id, i.kind, c.judge, 'judge', NULL, NULL, NULL,
               count(*), coalesce(sum(c.input_tokens), 0), coalesce(sum(c.output_tokens), 0),
               coalesce(sum(c.cost_usd), 0)
        FROM judge_calls c LEFT JOIN items i ON i.id = c.item_id
        GROUP BY c.item_id, c.judge
    ) ORDER BY item, rater_kind DESC, rater"""


@dataclass(frozen=True)
class LedgerRow:
    """One item's cost to one rater (reviewer time, or judge calls and money)."""

    item: str | None
    kind: str | None
    rater: str
    rater_kind: str
    active_seconds: float | None
    visits: int | None
    calls: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None


def ledger_rows(study: Study) -> Iterator[LedgerRow]:
    """Every ledger row, by item then reviewers before judges."""
    for r in study.conn.execute(LEDGER_SQL):
        yield LedgerRow(r[0], r[1], r[2], r[3], r[4], r[5], r[7], r[8], r[9], r[10])
