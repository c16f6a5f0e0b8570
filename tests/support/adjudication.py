"""A study with known disagreements for the adjudication app, and probes of its queue."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from medjudge.kinds.orders import to_file
from medjudge.store.items import get_item, list_items
from medjudge.store.judgments import NewVerdict, record_call, write_verdicts
from medjudge.store.labels import mark_revealed, set_label, set_note
from medjudge.store.roles import grant
from medjudge.store.study import Study, utcnow
from medjudge.tui.adjudication.detail import AdjudicationDetailScreen
from medjudge.tui.adjudication.screen import AdjudicationScreen
from medjudge.tui.app import make_app

from .tui import HOSTILE, build_study

JUDGE = "openai:judge"


RAW = "I think {verdict: maybe} [not json"


def adjudication_trail(
    ab: list[str], ba: list[str], *, failed_key: str | None = None, why: str = "reason"
) -> dict[str, Any]:
    """A pairwise trail as :mod:`judging.resolve` writes it (BA votes mapped back)."""
    from medjudge.kinds import votes as protocol

    a = protocol.order_majority(ab, "tie")
    b = protocol.order_majority(ba, "tie")
    rec = protocol.reconcile(a.verdict, b.verdict, "tie")
    failed = (
        [{"key": failed_key, "sample": 3, "error": "no verdict in reply", "status": "failed"}]
        if failed_key
        else []
    )
    return {
        "orders": {
            "AB": {
                "votes": ab,
                "shown_votes": ab,
                "reasons": [f"AB {why} {i + 1}" for i in range(len(ab))],
                "failed": failed,
                "verdict": a.verdict,
                "rule": a.rule,
                "samples_disagreed": a.disagreed,
            },
            "BA": {
                "votes": ba,
                "shown_votes": [to_file(v, "BA") for v in ba],
                "reasons": [f"BA {why} {i + 1}" for i in range(len(ba))],
                "failed": [],
                "verdict": b.verdict,
                "rule": b.rule,
                "samples_disagreed": b.disagreed,
            },
        },
        "verdict": rec.verdict,
        "rule": rec.rule,
        "position_inconsistent": rec.position_inconsistent,
    }


def disputed(tmp_path: Path, *, hostile: bool = False) -> Path:
    """p0..p2 pairwise (p0 with two context documents), s0 statements, r0 rating. Known
    disagreements:

    p0/correctness  alice A (changed after the reveal, with a note), bob B, judge A with a failed
                    sample                      → rev↔rev, rev↔judge, failed
    p0/helpfulness  alice A, bob A, judge A (AB A,A,B)          → samples
    p1/correctness  alice A, bob A, judge tie (AB A ≠ BA B)     → rev↔judge, AB≠BA
    s0/statement 1  alice entailed, bob contradicted            → rev↔rev
    r0/correctness_rating  alice 4, bob 2                       → rev↔rev
    r0/completeness        alice A,B, bob A                     → rev↔rev
    carol is the adjudicator.
    """
    path = build_study(tmp_path, pairwise=3, statements=1, rating=1, context=True)
    s = Study.open(path)
    try:
        ids = {r.ext_id: r.id for r in list_items(s)}
        items = {k: get_item(s, v) for k, v in ids.items()}
        u = {
            (e, c): items[e].unit_for(c).id
            for e in ("p0", "p1", "p2")
            for c in ("correctness", "helpfulness")
        }
        st = items["s0"].statements[0]
        u[("s0", "1")] = items["s0"].unit_for("entailment", st.id).id
        u[("r0", "correctness_rating")] = items["r0"].unit_for("correctness_rating").id
        u[("r0", "completeness")] = items["r0"].unit_for("completeness").id
        note = HOSTILE if hostile else "A names the red flags"
        for rater, key, v in [
            ("alice", ("p0", "correctness"), "B"),
            ("bob", ("p0", "correctness"), "B"),
            ("alice", ("p0", "helpfulness"), "A"),
            ("bob", ("p0", "helpfulness"), "A"),
            ("alice", ("p1", "correctness"), "A"),
            ("bob", ("p1", "correctness"), "A"),
            ("alice", ("s0", "1"), "entailed"),
            ("bob", ("s0", "1"), "contradicted"),
            ("alice", ("r0", "correctness_rating"), "4"),
            ("bob", ("r0", "correctness_rating"), "2"),
            ("alice", ("r0", "completeness"), "A,B"),
            ("bob", ("r0", "completeness"), "A"),
        ]:
            set_label(s, u[key], rater, v)
        mark_revealed(s, ids["p0"], "alice")
        set_label(s, u[("p0", "correctness")], "alice", "A", note=note)
        set_note(s, ids["p0"], "bob", "bob's note on p0")
        with s.tx() as conn:
            record_call(
                conn,
                {
                    "key": "k-failed", "judge": JUDGE, "provider": "openai", "model": "judge",
                    "template": "t", "template_hash": "h", "params": "{}", "messages": "[]",
                    "item_id": ids["p0"], "task": "pairwise/AB", "sample": 3, "status": "failed",
                    "raw": (RAW + " " + HOSTILE) if hostile else RAW,
                    "error": "no verdict in reply", "created_at": utcnow(), "input_tokens": 10,
                    "output_tokens": 9, "cost_usd": 0.0, "latency_s": 0.1, "attempts": 2,
                },
            )  # fmt: skip
        reason = ("judge says " + HOSTILE) if hostile else "A is right"
        why = ("reason " + HOSTILE) if hostile else "reason"
        write_verdicts(
            s,
            JUDGE,
            {},
            [
                NewVerdict(
                    u[("p0", "correctness")],
                    "A",
                    reason,
                    adjudication_trail(["A", "A"], ["A"] * 3, failed_key="k-failed", why=why),
                ),
                NewVerdict(
                    u[("p0", "helpfulness")],
                    "A",
                    "r",
                    adjudication_trail(["A", "A", "B"], ["A"] * 3),
                ),
                NewVerdict(
                    u[("p1", "correctness")], "tie", "r", adjudication_trail(["A"] * 3, ["B"] * 3)
                ),
            ],
            run_id=None,
            actor="lead",
        )
        grant(s, "carol", "adjudicator", by="lead")
    finally:
        s.close()
    return path


def adjudications(path: Path) -> list[tuple[str, str, str, str, list[str]]]:
    """(where, value, rationale, actor, settles) of every adjudication, oldest first."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT i.ext_id || '/' || coalesce(s.position, u.criterion), a.value, a.rationale, "
            "a.actor, a.settles FROM adjudications a JOIN units u ON u.id = a.unit_id "
            "JOIN items i ON i.id = u.item_id LEFT JOIN statements s ON s.id = u.statement_id "
            "ORDER BY a.id"
        ).fetchall()
    finally:
        conn.close()
    return [(w, v, r, a, json.loads(st)) for w, v, r, a, st in rows]


async def loaded(pilot: Any) -> AdjudicationScreen:
    """Wait for the queue to be read and drawn."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, AdjudicationScreen)
    return screen


def notifications(app: Any) -> list[tuple[str, str]]:
    """(severity, message) of every notification the app raised."""
    return [(n.severity, n.message) for n in app._notifications]


async def open_unit(pilot: Any, where: str) -> AdjudicationDetailScreen:
    """From the queue, open the detail of one unit (by its ``where``)."""
    screen = await loaded(pilot)
    row = [d.where for d in screen.rows].index(where)
    screen.query_one(DataTable).move_cursor(row=row, animate=False)
    await pilot.press("enter")
    await pilot.pause()
    detail = pilot.app.screen
    assert isinstance(detail, AdjudicationDetailScreen) and detail.entry.where == where
    return detail


def adjudicator_app(path: Path, who: str = "carol") -> Any:
    return make_app(path, reviewer=who, poll_interval=None, start="adjudicate")
