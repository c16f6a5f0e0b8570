"""End to end: the answer-letter frame in a real terminal (tmux).

A reviewer presses the key for the answer shown on the LEFT of a swapped item; the study must
hold the file-frame letter of that answer, and the adjudication queue, another real process,
must then show it in the file frame.
"""

from __future__ import annotations

import shlex
import sqlite3
import sys
from pathlib import Path

from medjudge.store.items import get_item
from medjudge.store.labels import set_label
from medjudge.store.roles import grant
from medjudge.store.study import Study

from .support.terminal import NEEDS_TMUX, Terminal
from .support.tui import build_study, item_swap, labels

pytestmark = NEEDS_TMUX


def medjudge(*args: str, who: str) -> str:
    return f"env LOGNAME={who} USER={who} {shlex.quote(sys.executable)} -m medjudge " + " ".join(
        shlex.quote(a) for a in args
    )


def test_the_left_answer_of_a_swapped_item_is_stored_and_adjudicated_in_the_file_frame(
    tmp_path: Path,
) -> None:
    path = build_study(tmp_path, pairwise=2, statements=0, rating=0)
    assert item_swap(path, "p0")  # reviewers see answer_b on the left
    with Study.open(path) as s:
        set_label(s, get_item(s, 1).unit_for("correctness").id, "bob", "tie")
        grant(s, "carol", "adjudicator", by="lead")
    home = tmp_path / "home"
    home.mkdir()

    term = Terminal(medjudge("review", str(path), "--reviewer", "e2e", who="e2e"), home, 120, 40)
    try:
        # Wait for the side-by-side layout itself (both answers on one row): a capture taken
        # between the first paint and the layout at 120 columns may show them apart.
        screen = term.wait(
            lambda s: any("Answer B 0." in x and "Answer A 0." in x for x in s.splitlines()),
            "both answers side by side",
        )
        row = next(line for line in screen.splitlines() if "Answer B 0." in line)
        assert row.index("Answer B 0.") < row.index("Answer A 0.")  # answer_b on the left
        term.keys("a")  # the key for the answer shown on the left (display A)
        term.wait(lambda s: "saved" in s, "the vote saved")
        term.keys("q")
        term.wait_closed()
    finally:
        term.kill()
    assert labels(path, "e2e")[("p0", "correctness")] == "B"  # answer_b: what was on the left

    queue = Terminal(medjudge("adjudicate", str(path), who="carol"), home, 120, 40)
    try:
        screen = queue.wait(lambda s: "p0/correctness" in s, "the queue")
        row = next(line for line in screen.splitlines() if "p0/correctness" in line)
        assert "B×1  tie×1" in row, row
        assert "(A = answer_a, B = answer_b)" in screen
        queue.keys("Enter")
        screen = queue.wait(lambda s: "• e2e:" in s, "the detail")
        assert "• e2e: B" in screen and "Answer A (answer_a)" in screen
        queue.keys("b")
        queue.wait(lambda s: "Final label for p0/correctness: B (answer_b, model-y)" in s, "dialog")
        queue.keys("answer_b is what e2e chose", "Enter")
        queue.wait(lambda s: "saved final label B" in s, "the final label")
        queue.keys("q")
        queue.wait_closed()
    finally:
        queue.kill()
    conn = sqlite3.connect(path)
    try:
        final = conn.execute("SELECT value, rationale_frame FROM adjudications").fetchall()
    finally:
        conn.close()
    assert final == [("B", "file")]
