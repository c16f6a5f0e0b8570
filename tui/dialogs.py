"""Small modal screens: a one-line prompt (go to, note, judge spec) and the key help."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from .keys import GENERAL, kind_keys
from .widgets import KeyFooter


class PromptDialog(ModalScreen[str | None]):
    """Ask for one line of text; enter answers it, escape cancels (answers None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, hint: str, *, value: str = "") -> None:
        """A prompt with our own title and hint (never data) and an optional starting value."""
        super().__init__()
        self._title = title
        self._hint = hint
        self._value = value
        self._early: list[str] = []
        """Characters given to the prompt before its input was there to take them."""
        self.passed: events.Key | None = None
        """The last key that went through the prompt on to the app (the app gives the prompt
        the keys that reach it from elsewhere: :meth:`take_key`)."""

    def compose(self) -> ComposeResult:
        """Title, input, hint."""
        with Vertical(id="prompt"):
            yield Static(Text(self._title, style="bold"), id="prompt-title")
            yield Input(value=self._value, id="prompt-input")
            yield Static(Text(f"{self._hint}  ·  enter: ok  ·  escape: cancel"), id="prompt-hint")

    def on_mount(self) -> None:
        """No blinking cursor (each blink is a repaint over SSH); the keys typed before the
        prompt was up go into it."""
        field = self.query_one(Input)
        field.cursor_blink = False
        field.focus()
        early, self._early = self._early, []
        for character in early:
            self.take_key(character)

    def take_key(self, character: str) -> None:
        """A character meant for the prompt that reached another widget (typed in one burst
        with the key that opened it, before its input had the focus): typed into the input.
        (Enter and the editing keys reach the input's bindings through the app as they are.)"""
        if not self.is_mounted:
            self._early.append(character)
            return
        self.query_one(Input).insert_text_at_cursor(character)

    def on_key(self, event: events.Key) -> None:
        """Every character typed while the prompt is open is the input's (one that reached the
        screen itself, not the focused input, is put there)."""
        if not event.is_printable or self.focused is self.query_one(Input):
            self.passed = event  # the input's own key, or one for the bindings
            return
        event.stop()
        event.prevent_default()
        self.take_key(event.character or "")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Close without an answer."""
        self.dismiss(None)


def help_text(kinds: Iterable[str] | None = None) -> Group:
    """Every key of the app, by section (descriptions wrap under themselves); of the item
    kinds only those in ``kinds`` (the study's), when given."""
    parts: list[Table | Text] = []
    for n, (section, keys) in enumerate([*kind_keys(kinds), *GENERAL]):
        parts.append(Text(("\n" if n else "") + section, style="bold underline"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=16, no_wrap=True)
        grid.add_column(ratio=1)
        for key, what in keys:
            grid.add_row(Text("  " + key, style="bold"), Text(what))
        parts.append(grid)
    return Group(*parts)


class ConfirmDialog(ModalScreen[bool]):
    """A yes / no question (y or enter: yes; n or escape: no); the text is medjudge's own
    wording with study values already made literal by the caller."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, body: Text) -> None:
        """A title and the text to confirm."""
        super().__init__()
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        """Title, text, the keys."""
        with Vertical(id="prompt"):
            yield Static(Text(self._title, style="bold"), id="prompt-title")
            yield Static(self._body, id="confirm-text")
            yield Static(Text("y / enter: yes  ·  n / escape: no"), id="prompt-hint")

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)


class HelpScreen(ModalScreen[None]):
    """The key help (``?``): the keys of the study's item kinds and every other key."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, kinds: Iterable[str] | None = None) -> None:
        """The help of a study holding items of ``kinds`` (None: every kind)."""
        super().__init__()
        self.kinds = None if kinds is None else tuple(kinds)

    def compose(self) -> ComposeResult:
        """The key map in a scrolling box, and the footer (its key closes the help)."""
        with VerticalScroll(id="help") as box:
            box.border_title = "Keys  (escape closes)"
            yield Static(help_text(self.kinds), id="help-text")
        yield KeyFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Focus the box so the arrows scroll it."""
        self.query_one("#help").focus()

    def action_close(self) -> None:
        """Back to where the reviewer was."""
        self.dismiss(None)
