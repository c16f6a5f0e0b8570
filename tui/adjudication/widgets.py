"""Widgets of the adjudication detail: the rationale prompt and the item pane."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.widgets import Collapsible, Input, Static

from medjudge.store.literal import printable
from medjudge.tui import render
from medjudge.tui.dialogs import PromptDialog
from medjudge.tui.widgets import Pane


class RationaleDialog(PromptDialog):
    """Ask for the rationale of a final label; a blank one, or a refused write, keeps it open."""

    def __init__(self, title: str, hint: str, save: Callable[[str], str | None]) -> None:
        """``save`` writes the label and returns None, or the reason it was not written."""
        super().__init__(printable(title), printable(hint))
        self._save = save

    def on_mount(self) -> None:
        """An error line under the input, hidden until needed."""
        error = Static("", markup=False, id="prompt-error")
        error.display = False
        self.query_one("#prompt").mount(error, before="#prompt-hint")

    @on(Input.Submitted)
    def _rationale(self, event: Input.Submitted) -> None:
        event.stop()
        event.prevent_default()  # PromptDialog's own handler would dismiss at once
        text = event.value
        problem = (
            "A rationale is required: say why this is the final label."
            if not text.strip()
            else self._save(text)
        )
        if problem is None:
            self.dismiss(text)
            return
        error = self.query_one("#prompt-error", Static)
        error.update(render.lit("✗ not recorded: " + problem))
        error.display = True


class ItemPane(Pane):
    """The item as reviewers saw it, with its context documents folded."""

    def compose(self) -> ComposeResult:
        """Text, then the context documents."""
        yield self.body
        with Collapsible(title="Context documents (x)", id="adj-context", collapsed=True):
            yield Static("", markup=False, id="adj-context-text")

    def on_mount(self) -> None:
        """x folds the documents; tab goes straight from this pane to the votes."""
        for title in self.query("CollapsibleTitle"):
            title.can_focus = False
