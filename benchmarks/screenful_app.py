"""The sessions benchmark's second reference (``bench_sessions.py``): the review screen's
layout made of stock Textual widgets (Statics in bordered panes, a footer), no medjudge. On
``]`` it shows the next item's texts (the same question and answers as the benchmark's study)
in every pane; on ``a``, a label in the list, the detail and the status line. What Textual
itself costs for the same change of the screen as the review app's.

With ``--save STUDY`` it also commits each label before it shows it, as the review app does: one
row into the table ``screenful_votes`` of that SQLite file, in WAL mode with
``synchronous=FULL`` (the review app's settings), so the write waits for the same disk and
the same lock as the review sessions' and the judge's writes. The bare and the saving variants
side by side tell drawing from saving."""

from __future__ import annotations

import sqlite3
import sys

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.events import Key
from textual.widgets import Footer, Static

CRITERIA = ["correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias"]


class Screenful(App[None]):
    CSS = """
    Static { width: 1fr; }
    #status { height: 1; background: $panel; }
    #progress { height: 1; }
    .pane { border: round $secondary; padding: 0 1; height: 1fr; overflow: hidden; }
    #question { height: 3; }
    #rows { height: 8; }
    #detail { height: 2; }
    """

    def __init__(self, save: str | None = None) -> None:
        super().__init__()
        self.db: sqlite3.Connection | None = None
        if save is not None:
            self.db = sqlite3.connect(save, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="progress")
        yield Static(id="question", classes="pane")
        with Horizontal():
            yield Static(id="a", classes="pane")
            yield Static(id="b", classes="pane")
        yield Static(id="rows", classes="pane")
        yield Static(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.i = 0
        self.votes: list[str] = []
        self.show()

    def _set(self, widget_id: str, text: str) -> None:
        self.query_one(f"#{widget_id}", Static).update(text)

    def show(self) -> None:
        i = self.i
        self._set("status", f"q{i:03d}  {i + 1}/300  pairwise  screenful")
        self._set("progress", f"{i}/300 items done")
        self._set("question", f"Question {i}: my child has a fever of 38.6 °C, what should I do?")
        self._set(
            "a",
            f"GOOD answer {i}: offer fluids often and check her temperature. " * (2 + i * 7 % 11),
        )
        self._set("b", f"Plain answer {i}: wait and see how she does overnight. " * (2 + i * 5 % 9))
        self.rows()

    def rows(self) -> None:
        n = len(self.votes)
        self._set(
            "rows",
            "\n".join(
                f"{'▶' if k == n else ' '} {name:18} better? {self.votes[k] if k < n else '—'}"
                for k, name in enumerate(CRITERIA)
            ),
        )
        self._set("detail", f"{CRITERIA[min(n, 5)]}: which answer is better?")

    def on_key(self, event: Key) -> None:
        if event.character == "]":
            self.i, self.votes = self.i + 1, []
            self.show()
        elif event.character == "a":
            if self.db is not None:  # committed before the screen says saved
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute(
                    "INSERT INTO screenful_votes (item, criterion, value) VALUES (?, ?, 'A')",
                    (self.i, CRITERIA[len(self.votes)]),
                )
                self.db.execute("COMMIT")
            self.votes.append("A")
            self._set("status", f"✓ saved {CRITERIA[len(self.votes) - 1]} = A")
            self.rows()


if __name__ == "__main__":
    Screenful(sys.argv[2] if sys.argv[1:2] == ["--save"] else None).run()
