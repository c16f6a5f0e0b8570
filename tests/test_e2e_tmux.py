"""End to end: the real ``medjudge review`` in a real terminal (tmux, 80×24), typed at.

Three pairwise items and two statements items are labelled with send-keys, the app is quit,
and the study file must hold every label with its history; reopened, the labels show.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .support.terminal import NEEDS_TMUX, Terminal
from .support.tui import build_study, history, labels

pytestmark = NEEDS_TMUX


def _starts_with(prefix: str) -> Callable[[str], bool]:
    """The screen's first text is ``prefix`` (the item id heads the review screen)."""
    return lambda screen: screen.lstrip().startswith(prefix)


def review_command(path: Path) -> str:
    return (
        f"{shlex.quote(sys.executable)} -m medjudge review {shlex.quote(str(path))} --reviewer e2e"
    )


def test_typing_a_review_in_a_real_terminal(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=3, statements=2, rating=0)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    term = Terminal(review_command(path), home)
    try:
        term.wait(lambda s: "p0" in s and "a A" in s, "the first item")
        votes = {"p0": "abtnab", "p1": "ttttab", "p2": "nnnbba"}
        for n, keys in enumerate(votes.values()):
            term.keys(*keys)
            nxt = list(votes)[n + 1] if n + 1 < len(votes) else "s0"
            term.wait(_starts_with(nxt), f"item {nxt}")
        term.keys("e", "n", "c")
        term.wait(lambda s: s.lstrip().startswith("s1"), "item s1")
        term.keys("c", "c", "e")
        term.wait(
            lambda s: "3/3 labelled" in s or "All 5 items are done" in s or "✓ done" in s,
            "the last label",
        )
        term.keys("q")
        term.wait_closed()
    finally:
        term.kill()
    got = labels(path, "e2e")
    assert len(got) == 3 * 6 + 2 * 3
    assert got[("s0", "0")] == "entailed" and got[("s0", "2")] == "contradicted"
    assert got[("s1", "2")] == "entailed"
    rows = history(path, "e2e")
    assert len(rows) == 24 and all(r[3] == "label" for r in rows)

    again = Terminal(review_command(path), home)
    try:
        again.wait(lambda s: "a A" in s or "e Entailed" in s, "the app again")
        again.keys("g")
        again.wait(lambda s: "Go to item" in s, "the go-to prompt")
        again.keys("p", "1", "Enter")
        text = again.wait(lambda s: s.lstrip().startswith("p1") and "6/6 labelled" in s, "p1")
        assert "✓ done" in text and "tie" in text
        again.keys("q")
        again.wait_closed()
    finally:
        again.kill()
    assert os.path.exists(path)


def test_keys_after_the_reveal_never_change_the_revealed_item(tmp_path: Path) -> None:
    """in a real terminal: after the reveal, ↑/↓ and label keys meant for the next item
    leave the revealed item as it is; Enter moves on and those keys label the next item; E
    makes one deliberate change, recorded as after the reveal."""
    from .support.tui import add_verdicts

    path = build_study(tmp_path, pairwise=2, statements=0, rating=0)
    add_verdicts(path, "p0", {"correctness": "A", "bias": "B"})
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    term = Terminal(review_command(path), home)
    try:
        term.wait(lambda s: "p0" in s and "a A" in s, "the first item")
        term.keys(*"aaaaaa")
        term.wait(lambda s: "revealed" in s, "the reveal")
        first = dict(labels(path, "e2e"))
        term.keys("Up", "Down", "t", "t", "Up", "b")  # meant for the next item
        time.sleep(0.5)
        term.wait(lambda s: s.lstrip().startswith("p0"), "still on p0")
        assert labels(path, "e2e") == first, "the revealed item changed"
        term.keys("Enter")
        term.wait(lambda s: s.lstrip().startswith("p1"), "item p1")
        term.keys("t")
        term.wait(lambda s: "saved correctness = tie" in s, "p1's first label")
        term.keys("[")
        term.wait(lambda s: s.lstrip().startswith("p0"), "back to p0")
        term.keys("E")
        term.wait(lambda s: "changing correctness after the reveal" in s, "the armed change")
        term.keys("n")
        term.wait(lambda s: "(changed after" in s, "the change")
        term.keys("q")
        term.wait_closed()
    finally:
        term.kill()
    got = labels(path, "e2e")
    assert got[("p1", "correctness")] == "tie"
    assert got[("p0", "correctness")] == "neither"
    assert {k: v for k, v in got.items() if k[0] == "p0" and k[1] != "correctness"} == {
        k: v for k, v in first.items() if k[1] != "correctness"
    }
    after = [r for r in history(path, "e2e") if r[4]]
    assert len(after) == 1 and after[0][2] == "neither", "one change, flagged after the reveal"


def test_a_match_unit_gets_its_final_label_in_the_adjudication_app(tmp_path: Path) -> None:
    """in a real terminal: a MedRGB match unit that two reviewers scored 1 and 0 is settled
    in the adjudication app with the review key `1` and a typed rationale."""
    import sqlite3

    from medjudge.store.importing.run import import_file
    from medjudge.store.paths import login_name
    from medjudge.store.roles import grant
    from medjudge.store.study import Study

    from .support.kind_rows import match_row, write_jsonl

    row = match_row(0)
    row["labels"] = [
        {"rater": "ann", "criterion": "match", "value": 1},
        {"rater": "bob", "criterion": "match", "value": 0},
    ]
    path = tmp_path / "match.db"
    with Study.create(path, actor=login_name()) as s:
        import_file(s, write_jsonl(tmp_path / "m.jsonl", [row]), "match", actor=login_name())
        grant(s, login_name(), "adjudicator", by=login_name())
    home = tmp_path / "home"
    home.mkdir()
    command = f"{shlex.quote(sys.executable)} -m medjudge adjudicate {shlex.quote(str(path))}"
    term = Terminal(command, home, width=100, height=30)
    try:
        term.wait(lambda s: "m0" in s, "the queue with the match unit")
        term.keys("Enter")
        term.wait(lambda s: "rationale" in s.lower() and "ann" in s, "the unit's votes")
        term.keys("1")
        term.wait(lambda s: "Final label for m0/match: 1" in s, "the rationale dialog")
        term.keys("-l", "the prediction names the drug and route")
        term.keys("Enter")
        term.wait(lambda s: "saved" in s.lower(), "saved")
        term.keys("q")
        term.wait_closed()
    finally:
        term.kill()
    with sqlite3.connect(path) as conn:
        got = conn.execute(
            "SELECT a.value, a.rationale, u.criterion FROM adjudications a "
            "JOIN units u ON u.id = a.unit_id"
        ).fetchall()
    assert got == [("1", "the prediction names the drug and route", "match")]
