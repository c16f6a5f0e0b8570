"""Review app speed on a 10,000-item study (docs/design.md §7: first item well under a second; next
item in tens of milliseconds).

The study is built with ``executemany`` inserts in a temporary file: 10,000 pairwise items
with two ~900-character answers and six criteria each (60,000 units), of which the reviewer
has already finished the first 5,000, so opening has to find where they left off. The app runs
headless (``App.run_test``) at 120×40:

- open → first item: from ``make_app`` (opening the file, loading the queue and progress)
  until the first item is laid out and painted;
- cold start: the same in a fresh interpreter, including importing Textual and medjudge;
- next item: ``→`` handled and the new item painted, median and p95 over 200 presses;
- vote: ``a`` handled (label committed, cursor moved, every 6th vote the next item) and
  painted, median.

Key timings send the key event as the terminal driver does and wait for the app to finish
handling it and repaint, without the sleeps of ``Pilot.press``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from medjudge.tui import textual_private
from medjudge.tui.review.screen import ReviewScreen

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from medjudge.store.settings import StudySettings  # noqa: E402
from medjudge.store.study import Study, utcnow  # noqa: E402

N_ITEMS = 10_000
DONE = 5_000
REVIEWER = "bench"
CRITERIA = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")
ANSWER = (
    "Fever in a toddler is usually caused by a viral infection and is not dangerous by "
    "itself. Offer fluids often, dress her lightly and give paracetamol or ibuprofen at the "
    "dose for her weight if she is uncomfortable. "
) * 4


def build(
    path: Path, n_items: int = N_ITEMS, done: int = DONE, others: tuple[str, ...] = ()
) -> None:
    """Create the 10,000-item study with plain executemany inserts (seconds, not minutes).

    ``n_items`` and ``done`` size it otherwise; each of ``others`` (more reviewers) has
    labelled every item, with a note on each label.
    """
    study = Study.create(
        path, StudySettings(name="bench", allow_reviewer_override=True), actor="bench"
    )
    now = utcnow()
    with study.tx() as conn:
        conn.executemany(
            "INSERT INTO items (id, ext_id, kind, question, data, context, batch, shown_order, "
            "content_hash, created_at) VALUES (?, ?, 'pairwise', ?, '{}', NULL, ?, ?, ?, ?)",
            [
                (
                    i,
                    f"q{i:05d}",
                    f"Question {i}: my child has a fever of 38.6 °C, what should I do?",
                    f"week-{i % 8}",
                    "BA" if i % 2 else "AB",
                    f"h{i}",
                    now,
                )
                for i in range(1, n_items + 1)
            ],
        )
        conn.executemany(
            "INSERT INTO answers (item_id, position, text, source) VALUES (?, ?, ?, ?)",
            [
                (i, pos, f"{pos}{i}: {ANSWER}", src)
                for i in range(1, n_items + 1)
                for pos, src in (("A", "model-x"), ("B", "model-y"))
            ],
        )
        conn.executemany(
            "INSERT INTO units (id, item_id, criterion, statement_id, position) "
            "VALUES (?, ?, ?, NULL, ?)",
            [
                ((i - 1) * 6 + k + 1, i, c, k)
                for i in range(1, n_items + 1)
                for k, c in enumerate(CRITERIA)
            ],
        )
        for rater_id, name in enumerate((REVIEWER, *others), 1):
            labelled = range(1, (done if rater_id == 1 else n_items) * 6 + 1)
            conn.execute(
                "INSERT INTO raters (id, name, kind, config, created_at) "
                "VALUES (?, ?, 'human', '{}', ?)",
                (rater_id, name, now),
            )
            conn.executemany(
                "INSERT INTO labels (unit_id, rater_id, value, note, updated_at) "
                "VALUES (?, ?, 'tie', ?, ?)",
                [(u, rater_id, "seen" if rater_id > 1 else None, now) for u in labelled],
            )
            conn.executemany(
                "INSERT INTO label_history "
                "(unit_id, rater_id, old_value, new_value, action, actor, at) "
                "VALUES (?, ?, NULL, 'tie', 'label', ?, ?)",
                [(u, rater_id, name, now) for u in labelled],
            )
    study.close()


async def _key_to_paint(app: App[None], pilot: Pilot[None], key: str) -> float:
    """Seconds from a key event reaching the app to the screen repainted with its effect.

    The key goes in as the terminal driver would send it; then we wait (without sleeping)
    until the app and every widget have handled all messages, twice, since handling posts
    more (updates, layout), and force the paint the refresh timer would do.
    """
    from textual import events

    t = time.perf_counter()
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app.post_message(event)
    await textual_private.wait_for_screen(pilot)
    await textual_private.wait_for_screen(pilot)
    textual_private.paint_now(app.screen)
    return time.perf_counter() - t


async def _drive(path: Path, presses: int) -> dict[str, float | list[float]]:
    from medjudge.tui.app import make_app

    t0 = time.perf_counter()
    app = make_app(path, reviewer=REVIEWER, poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await textual_private.wait_for_screen(pilot)
        textual_private.paint_now(app.screen)
        opened = time.perf_counter() - t0
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.session.item is not None and screen.session.item.ext_id == f"q{DONE + 1:05d}"
        await pilot.pause()
        nexts = [await _key_to_paint(app, pilot, "right") for _ in range(presses)]
        votes = [await _key_to_paint(app, pilot, "a") for _ in range(60)]
        idle = min([await _key_to_paint(app, pilot, "f12") for _ in range(10)])
        await pilot.pause()
        assert screen.session.index == DONE + presses + 60 // 6
    return {"open": opened, "idle": idle, "next": nexts, "vote": votes}


COLD = """
import time, asyncio, sys
t0 = time.perf_counter()
sys.path.insert(0, {repo!r})
from medjudge.tui.app import make_app
async def main():
    app = make_app({path!r}, reviewer="bench", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(time.perf_counter() - t0)
asyncio.run(main())
"""


def run() -> list[dict[str, Any]]:
    """Build the study, drive the app, report the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        t = time.perf_counter()
        build(path)
        built = time.perf_counter() - t
        asyncio.run(_drive(path, 5))  # warm caches (OS page cache, CSS parsing) once
        r = asyncio.run(_drive(path, 200))
        tracemalloc.start()
        asyncio.run(_drive(path, 5))
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        cold = subprocess.run(
            [sys.executable, "-c", COLD.format(repo=str(REPO), path=str(path))],
            capture_output=True,
            text=True,
            timeout=120,
        )
        cold_s = (
            float(cold.stdout.strip().splitlines()[-1]) if cold.returncode == 0 else float("nan")
        )
    nexts = sorted(r["next"])  # type: ignore[arg-type]
    votes = sorted(r["vote"])  # type: ignore[arg-type]
    ms = 1000.0
    return [
        {
            "name": f"review: build {N_ITEMS:,}-item study (executemany)",
            "value": round(built, 2),
            "unit": "s",
            "target": "(setup)",
            "peak_mb": None,
        },
        {
            "name": "review: open 10k-item study → first item shown",
            "value": round(r["open"] * ms, 1),  # type: ignore[operator]
            "unit": "ms",
            "target": "< 1000 ms (well under a second)",
            "peak_mb": round(peak, 1),
        },
        {
            "name": "review: cold start incl. imports → first item shown",
            "value": round(cold_s * ms, 1),
            "unit": "ms",
            "target": "< 1000 ms",
            "peak_mb": None,
        },
        {
            "name": "review: next item (key → painted), median",
            "value": round(statistics.median(nexts) * ms, 1),
            "unit": "ms",
            "target": "tens of ms",
            "peak_mb": None,
        },
        {
            "name": "review: next item (key → painted), p95",
            "value": round(nexts[int(len(nexts) * 0.95)] * ms, 1),
            "unit": "ms",
            "target": "< 100 ms",
            "peak_mb": None,
        },
        {
            "name": "review: vote (committed → painted), median",
            "value": round(statistics.median(votes) * ms, 1),
            "unit": "ms",
            "target": "tens of ms",
            "peak_mb": None,
        },
        {
            "name": "review: unbound key → painted (floor of the above)",
            "value": round(r["idle"] * ms, 1),  # type: ignore[operator]
            "unit": "ms",
            "target": "(baseline)",
            "peak_mb": None,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row))
