"""Judge verdict trails exactly as the runner writes them, and adjudications as stored."""

from __future__ import annotations

from typing import Any

from medjudge.kinds import votes as protocol
from medjudge.kinds.orders import to_file
from medjudge.store.study import Study, utcnow

JUDGE = "openai:gpt-4o-mini"


CONFIG = {
    "spec": JUDGE,
    "provider": "openai",
    "model": "gpt-4o-mini",
    "samples": 3,
    "temperature": 0.7,
    "max_tokens": 800,
    "statements_protocol": "nli",
}


def pairwise_trail(
    study: Study, criterion: str, ab: list[str], ba: list[str], judge: str = JUDGE, failed: int = 0
) -> tuple[str | None, dict[str, Any]]:
    """A pairwise verdict and its trail exactly as the runner builds them (docs/design.md §3)."""
    null = study.settings.criterion(criterion).null_verdict
    orders: dict[str, Any] = {}
    per: dict[str, str | None] = {}
    for name, votes in (("AB", ab), ("BA", ba)):
        res = protocol.order_majority(votes, null)
        per[name] = res.verdict
        orders[name] = {
            "calls": [f"{judge}-{name}-{i}" for i in range(len(votes))],
            "votes": votes,
            "shown_votes": votes if name == "AB" else [to_file(v, "BA") for v in votes],
            "reasons": ["because"] * len(votes),
            "failed": [
                {
                    "key": f"{judge}-{name}-f{i}",
                    "sample": len(votes) + i,
                    "error": "unparseable reply",
                    "status": "failed",
                }
                for i in range(failed if name == "AB" else 0)
            ],
            "verdict": res.verdict,
            "rule": res.rule,
            "samples_disagreed": res.disagreed,
        }
    rec = protocol.reconcile(per["AB"], per["BA"], null)
    trail = {
        "protocol": "pairwise AB/BA majority",
        "criterion": criterion,
        "null_verdict": null,
        "orders": orders,
        "verdict": rec.verdict,
        "rule": rec.rule,
        "position_inconsistent": rec.position_inconsistent,
        "judge": judge,
        "template": "pairwise_v1",
        "template_hash": "3f2a9c1d",
        "samples": 3,
    }
    return rec.verdict, trail


def adjudicate(study: Study, unit_id: int, value: str) -> None:
    """Record an adjudication the way the adjudication feature stores it (append-only rows)."""
    with study.tx() as conn:
        conn.execute(
            "INSERT INTO adjudications (unit_id, value, rationale, settles, actor, at) "
            "VALUES (?, ?, 'per guideline', '[]', 'senior', ?)",
            (unit_id, value, utcnow()),
        )
