"""The review app pages what it renders: an item with 100,000 statements shows a window
of rows around the cursor (never 100,000 widgets), a 1M-character answer shows its first
20,000 characters in the pane and the reader turns pages; a match item's import fields stay
hidden in the reader until the reviewer's labels are saved. Speed and memory on such items are
measured in benchmarks (`python -m benchmarks`), not here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.paged import PAGE, Paged
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.read_screen import PAGE_CHARS, ReadScreen
from medjudge.tui.render import PANE_CHARS
from medjudge.tui.review.screen import ReviewScreen
from medjudge.tui.widgets import WINDOW, Pane, UnitRows

from .support.kind_rows import pairwise_row, write_jsonl
from .support.match import medrgb_rows
from .support.tui import run_async, screen_text, until

N = 100_000


def _study(
    tmp_path: Path, kind: str, rows: Sequence[Mapping[str, object]], *, blind: bool = False
) -> Path:
    path = tmp_path / f"{kind}.db"
    settings = StudySettings(name="big", blind=blind, allow_reviewer_override=True)
    s = Study.create(path, settings, actor="t")
    import_file(s, write_jsonl(tmp_path / f"{kind}.jsonl", rows), kind, actor="t")
    s.close()
    return path


def _statements(tmp_path: Path) -> Path:
    row = {
        "id": "big",
        "question": "Q?",
        "answer": "An answer.",
        "source": "m",
        "must_have": [f"S{i + 1} text." for i in range(N)],
    }
    return _study(tmp_path, "statements", [row])


def _review(app: object) -> ReviewScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ReviewScreen)
    return screen


@run_async
async def test_an_item_of_100k_statements_shows_a_window_of_rows(tmp_path: Path) -> None:
    path = _statements(tmp_path)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "S1 text." in screen_text(app), "row 1")
        rows = app.screen.query_one("#statements", UnitRows)
        assert len(rows.window) == WINDOW, "a window of rows drawn, not every statement"
        assert rows.row_text(WINDOW - 1).strip().startswith(f"{WINDOW} ")
        assert rows.border_subtitle == f"1–{WINDOW} of {N:,}"
        item = _review(app).session.item
        assert item is not None and isinstance(item.statements, Paged)
        assert isinstance(item.units, Paged)
        # the first screen read the statements and units it shows, not the item's 100,000
        assert 0 < item.statements.rows_read <= 2 * PAGE
        assert 0 < item.units.rows_read <= 2 * PAGE
        for _ in range(WINDOW + 20):  # past the window's end: it moves with the cursor
            await pilot.press("down")
        await until(pilot, lambda: _review(app).cursor == WINDOW + 20, "the cursor")
        assert WINDOW + 20 in rows.window and rows.border_subtitle != f"1–{WINDOW} of {N:,}"
        assert rows.current_row == WINDOW + 20
        await until(pilot, lambda: f"S{WINDOW + 21} text." in screen_text(app), "row 121")
        await pilot.press("e")  # entailed, on statement 121
        await until(pilot, lambda: "saved" in screen_text(app), "the save")
    with Study.open(path) as s:
        got = s.conn.execute(
            "SELECT st.position FROM labels l JOIN units u ON u.id = l.unit_id "
            "JOIN statements st ON st.id = u.statement_id"
        ).fetchall()
    assert [tuple(r) for r in got] == [(WINDOW + 20,)]


LONG_A = ("lorem ipsum dolor sit amet " * 37_000)[:990_000] + " END-OF-A"


@run_async
async def test_a_million_character_answer_is_cut_in_its_pane_and_paged_in_the_reader(
    tmp_path: Path,
) -> None:
    row = pairwise_row(0, answer_a=LONG_A, answer_b=LONG_A.replace("END-OF-A", "END-OF-B"))
    path = _study(tmp_path, "pairwise", [row])
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "lorem ipsum dolor" in screen_text(app), "the first answer")
        pane = app.screen.query_one("#pane-1", Pane)
        shown = pane.plain
        assert len(shown) < PANE_CHARS + 100 and "END-OF" not in shown
        assert "more characters: v reads the whole item" in shown
        assert f"{len(LONG_A.split()):,} words" in str(pane.border_title)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader")
        reader = app.screen
        assert isinstance(reader, ReadScreen)
        assert len(reader.pages) >= 2 * len(LONG_A) // PAGE_CHARS
        assert all(sum(len(b) for _, b in page) <= PAGE_CHARS for page in reader.pages)
        assert f"page 1 of {len(reader.pages):,}" in screen_text(app)
        # Every character of both answers is on some page, in order.
        text = "".join(b.plain for page in reader.pages for t, b in page if "Answer" in t)
        assert text.count("END-OF-") == 2 and text.startswith("lorem ipsum dolor")
        await pilot.press("n")
        await until(pilot, lambda: "page 2 of" in screen_text(app), "page 2")
        await pilot.press("p")
        await until(pilot, lambda: "page 1 of" in screen_text(app), "page 1 again")
        for _ in range(len(reader.pages) - 1):
            reader.action_turn(1)
        await until(
            pilot,
            lambda: (
                "Item fields" in screen_text(app)
                or "END-OF-B" in screen_text(app)
                or reader.page == len(reader.pages) - 1
            ),
            "the last page",
        )
        assert reader.page == len(reader.pages) - 1
        assert not reader.check_action("turn", (1,)), "no page after the last"


def _reader_text(reader: ReadScreen) -> str:
    return "".join(t + b.plain for page in reader.pages for t, b in page)


@run_async
async def test_a_match_items_fields_are_hidden_in_the_reader_until_labelled(tmp_path: Path) -> None:
    """The import fields (test = sufficiency, p = 40) hint at the documents' hidden kinds."""
    row = medrgb_rows()[2]
    assert "subquestions" not in row
    path = _study(tmp_path, "match", [row], blind=True)
    app = make_app(path, reviewer="alice", poll_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: _review(app).view is not None, "the item")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader")
        assert isinstance(app.screen, ReadScreen)
        assert "test: sufficiency" not in _reader_text(app.screen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await pilot.press("1")
        await until(pilot, lambda: "saved" in screen_text(app), "the label")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReadScreen), "the reader")
        assert isinstance(app.screen, ReadScreen)
        assert "test: sufficiency" in _reader_text(app.screen)
        assert "p: 40" in _reader_text(app.screen)


@run_async
async def test_the_adjudication_detail_of_a_100k_statement_item_reads_the_statements_around(
    tmp_path: Path,
) -> None:
    """Two reviewers disagree on statement 60,001 of 100,000: the adjudication detail shows
    the fifty statements either side of it, says how many are above and below, and reads the
    statements it shows, not the item's 100,000."""
    from medjudge.store.items import get_item, list_items
    from medjudge.store.labels import set_label
    from medjudge.store.roles import grant
    from medjudge.tui.adjudication.detail import AdjudicationDetailScreen
    from medjudge.tui.adjudication.render import STATEMENTS_AROUND

    from .support.adjudication import adjudicator_app, open_unit

    path = _statements(tmp_path)
    at = 60_000
    with Study.open(path) as s:
        (ref,) = list_items(s)
        item = get_item(s, ref.id, paged=True)
        unit = item.units[at]
        set_label(s, unit.id, "alice", "entailed")
        set_label(s, unit.id, "bob", "contradicted")
        grant(s, "carol", "adjudicator", by="lead")
    app = adjudicator_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await open_unit(pilot, f"big/statement {at + 1}")
        assert isinstance(detail, AdjudicationDetailScreen) and detail.item is not None
        statements = detail.item.statements
        assert isinstance(statements, Paged)
        assert statements.rows_read <= 3 * PAGE, "the statements around, not all of them"
        text = detail.query_one("#adj-item").body.content.plain  # type: ignore[attr-defined]
        assert f"… {at - STATEMENTS_AROUND:,} statements above" in text
        assert f"… {N - at - STATEMENTS_AROUND - 1:,} statements below" in text
        assert f"S{at + 1} text." in text and f"S{at - STATEMENTS_AROUND + 1} text." in text
        assert f"S{at - STATEMENTS_AROUND} text." not in text
        assert f"S{at + 1} text." in screen_text(app)
