"""At 80×24 the reveal keeps the judge's reason and the other reviewers' labels in view:
they were below the fold of a three-line detail box, with no sign that it scrolls."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.labels import set_label
from medjudge.store.study import Study
from medjudge.tui.app import make_app

from .support.tui import add_verdicts, build_study, run_async, screen_text, until

CRITERIA = ("correctness", "helpfulness", "harmfulness", "reasoning", "efficiency", "bias")
REASON = "Answer A cites the guideline dose; B omits the renal adjustment."


@run_async
async def test_the_reveal_shows_reason_and_others_at_80x24(tmp_path: Path) -> None:
    path = build_study(tmp_path, pairwise=2, statements=0, rating=0)
    add_verdicts(path, "p0", dict.fromkeys(CRITERIA, "A"), reason=REASON)
    with Study.open(path) as s:
        units = s.conn.execute(
            "SELECT u.id FROM units u JOIN items i ON i.id = u.item_id WHERE i.ext_id = 'p0'"
        ).fetchall()
        for (unit,) in units:
            set_label(s, unit, "bob", "B")
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "Question 0?" in screen_text(app), "the first item")
        assert "Other reviewers" not in screen_text(app), "blind until labelled"
        for key in "aaaaaa":
            await pilot.press(key)
        await until(pilot, lambda: "revealed" in screen_text(app), "the reveal")
        for _ in range(len(CRITERIA)):  # every criterion's detail, at the top and the bottom
            await until(
                pilot,
                lambda: (
                    "Answer A cites the guideline dose" in screen_text(app)
                    and "Other reviewers: bob" in screen_text(app)
                ),
                "the reason and the other reviewer's label on screen",
            )
            await pilot.press("up")
