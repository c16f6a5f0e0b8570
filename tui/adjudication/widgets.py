"""Widgets of the adjudication detail: the rationale prompt and the item pane."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Input, Static

from medjudge.store.literal import printable
from medjudge.tui import render
from medjudge.tui.dialogs import PromptDialog
from medjudge.tui.widgets import SCROLL_KEYS


class RationaleDialog(PromptDialog):
    """Ask for the rationale of a final label; a blank one, or a refused write, keeps it open."""

    def __init__(self, title: str, hint: str, save: Callable[[str], str | None]) -> None:
        """``save`` writes the label and returns None, or the reason it was not written."""
        super().__init__(printable(title), printable(hint))
        self._save = save

    def on_mount(self) -> None:
        """An error line under the input, hidden until needed; then the prompt's own start."""
        error = Static("", markup=False, id="prompt-error")
        error.display = False
        self.query_one("#prompt").mount(error, before="#prompt-hint")
        super().on_mount()

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


class ItemPane(VerticalScroll, inherit_bindings=False):
    """The item as reviewers saw it, with its context documents folded: a titled, focusable,
    scrolling block (styled as a :class:`~medjudge.tui.widgets.Pane`) holding the text and
    the documents."""

    BINDINGS = SCROLL_KEYS
    ALLOW_MAXIMIZE = True

    def __init__(self, title: str, *, id: str | None = None) -> None:
        """A pane whose title is fixed text of ours (never data)."""
        super().__init__(id=id)
        self.border_title = title
        self.body = Static("", markup=False)
        """The item's text (tests read it)."""

    def compose(self) -> ComposeResult:
        """Text, then the context documents."""
        yield self.body
        with Collapsible(title="Context documents (x)", id="adj-context", collapsed=True):
            yield Static("", markup=False, id="adj-context-text")

    def on_mount(self) -> None:
        """x folds the documents; tab goes straight from this pane to the votes."""
        for title in self.query("CollapsibleTitle"):
            title.can_focus = False

    def show(self, content: Text, *, title: str) -> None:
        """Replace the text (a long one cut: :func:`~medjudge.tui.render.shown_part`) and
        scroll back to the top."""
        self.border_title = title
        self.body.update(render.shown_part(content))
        self.scroll_home(animate=False, immediate=True)
