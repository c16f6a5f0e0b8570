"""Answers are LLM output, usually Markdown: ``r`` draws them rendered (headings, lists,
tables; links as text with their address), ``r`` again literally — the default, letter for
letter. Nothing in the data is interpreted but its Markdown: Rich markup stays as typed and
escape sequences stay visible escapes, in both views."""

from __future__ import annotations

from pathlib import Path

from medjudge.store.importing.run import import_file
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.pane import Pane

from .support.kind_rows import pairwise_row, write_jsonl
from .support.tui import run_async, screen_text

ANSWER = (
    "# Fever in toddlers\n\n"
    "- offer **fluids** often\n"
    "- see [the NHS page](https://www.nhs.uk/conditions/fever-in-children/)\n\n"
    "| dose | weight |\n|---|---|\n| 5 ml | 10 kg |\n\n"
    "[bold red]not markup[/bold red] \x1b[31mnot red\x1b[0m"
)


def _study(tmp_path: Path) -> Path:
    path = tmp_path / "md.db"
    study = Study.create(path, StudySettings(name="md", allow_reviewer_override=True), actor="t")
    row = pairwise_row(0, answer_a=ANSWER, answer_b="Plain answer.")
    import_file(study, write_jsonl(tmp_path / "in.jsonl", [row]), "pairwise", actor="t")
    study.close()
    return path


def _panes(app: object) -> list[Pane]:
    return [p for p in app.screen.query(Pane) if p.id and p.id.startswith("pane-") and p.display]  # type: ignore[attr-defined]


@run_async
async def test_r_toggles_rendered_and_literal_answers(tmp_path: Path) -> None:
    app = make_app(_study(tmp_path), reviewer="drA", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        literal = screen_text(app)
        assert "# Fever in toddlers" in literal and "**fluids**" in literal  # as typed
        assert not any("rendered" in str(p.border_title) for p in _panes(app))

        await pilot.press("r")
        await pilot.pause()
        shown = screen_text(app)
        assert "# Fever in toddlers" not in shown and "Fever in toddlers" in shown
        assert "**fluids**" not in shown and "fluids" in shown
        assert "the NHS page" in shown  # a link: its text and its address, as text
        assert "(https://www.nhs.uk/conditions/fever-in-children/)" in shown
        assert "5 ml" in shown and "|---|" not in shown  # a table, drawn
        assert "[bold red]not markup[/bold red]" in shown  # Rich markup: as typed
        assert "\\x1b[31mnot red" in shown  # the escape: visible, not red
        titles = [str(p.border_title) for p in _panes(app)]
        assert all("rendered" in t for t in titles), titles
        assert "rendered as Markdown" in shown  # the status line says so

        await pilot.press("]")  # the next item (none): the view stays as chosen
        await pilot.press("r")
        await pilot.pause()
        assert "# Fever in toddlers" in screen_text(app)
        assert not any("rendered" in str(p.border_title) for p in _panes(app))


@run_async
async def test_rendering_keeps_labels_and_the_reading_rule(tmp_path: Path) -> None:
    """A label key still labels in the rendered view (the view is only how it is drawn)."""
    app = make_app(_study(tmp_path), reviewer="drA", poll_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("r", "a")
        await pilot.pause()
        assert "✓ saved" in screen_text(app)
