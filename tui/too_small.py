"""The screen shown while the terminal is smaller than the app can use.

At less than :data:`MIN_WIDTH` × :data:`MIN_HEIGHT` the review screen would give each answer no
line at all (measured: at 60×18 answer A gets 0 lines), so instead of a broken layout the app
says what it needs and waits; it goes away by itself when the terminal is made larger. ``q``
still quits. Nothing is lost: no key labels anything while it shows.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_WIDTH = 70
MIN_HEIGHT = 22


def too_small(width: int, height: int) -> bool:
    """Whether a terminal of this size is smaller than the app can use."""
    return width < MIN_WIDTH or height < MIN_HEIGHT


class TooSmallScreen(ModalScreen[None]):
    """'terminal too small: needs at least W×H' until the terminal is large enough."""

    BINDINGS = [Binding("q", "app.quit", "Quit")]
    DEFAULT_CSS = """
    TooSmallScreen { background: $background; }
    """

    def compose(self) -> ComposeResult:
        """One centred message."""
        with Middle(), Center():
            yield Static(id="too-small")

    def on_mount(self) -> None:
        """Say the sizes."""
        self.show(self.app.size.width, self.app.size.height)

    def show(self, width: int, height: int) -> None:
        """Update the message for the current size."""
        self.query_one("#too-small", Static).update(
            Text(
                f"terminal too small: needs at least {MIN_WIDTH}×{MIN_HEIGHT} "
                f"(now {width}×{height}). Make the window larger, or press q to quit.",
                justify="center",
            )
        )
