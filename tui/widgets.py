"""Small widgets of the review app: the footer, the status line and the progress bar; and,
from their own modules, the line-drawn pane (:mod:`.pane`) and unit list (:mod:`.unit_rows`)
and the in-place text updates they share (:mod:`.text_updates`).

Every widget here takes Rich renderables built by :mod:`medjudge.tui.render` (literal text,
never markup) and is updated in place, so moving to the next item repaints only what changed
(cheap over a slow SSH link).
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from . import textual_private
from .pane import SCROLL_KEYS, Pane
from .render import progress_text
from .text_updates import same_text, update_if_changed, wear
from .unit_rows import WINDOW, UnitRows

__all__ = [
    "SCROLL_KEYS",
    "WINDOW",
    "KeyFooter",
    "Pane",
    "ProgressLine",
    "StatusLine",
    "UnitRows",
    "same_text",
]


class KeyFooter(Footer):
    """Textual's footer (the screen's keys, a disabled one dimmed), redrawn in place when the
    keys shown stay the same: the stock footer removes and mounts every key whenever the
    screen's bindings may have changed (the first label on each item, for one), about 15 ms
    before the frame, even when the same keys come back."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen and self._same_keys(screen):
            return
        super().bindings_changed(screen)

    def _same_keys(self, screen: Screen[object]) -> bool:
        """Whether the keys to show are the ones shown (each key's being enabled or not is
        then set in place)."""
        shown: dict[str, tuple[Binding, bool]] = {}
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if binding.show:
                if binding.group is not None:
                    return False  # grouped keys: left to the stock footer
                shown.setdefault(binding.action, (binding, enabled))
        keys = textual_private.footer_keys(self)
        if [(k.key, k.description) for k in keys] != [
            (b.key, b.description) for b, _ in shown.values()
        ]:
            return False
        for key, (_, enabled) in zip(keys, shown.values(), strict=True):
            if key.has_class("-disabled") == enabled:
                textual_private.set_footer_key_enabled(key, enabled)
        return True


class ProgressLine(Widget):
    """A one-line progress bar drawn in text (no animation, repaints only on change)."""

    done: reactive[int] = reactive(0)
    """Items the reviewer has completed."""
    total: reactive[int] = reactive(0)
    """Items in the reviewer's queue."""

    def render(self) -> RenderableType:
        """The bar at the current width."""
        return progress_text(self.done, self.total, self.size.width)


class StatusLine(Horizontal):
    """Where the reviewer is (left) and whether their last action is saved (right)."""

    COMPONENT_CLASSES = {
        "status-line--saved",
        "status-line--error",
        "status-line--pending",
        "status-line--info",
    }

    state: reactive[str] = reactive("", init=False)
    """saved, error, pending, info or empty: the right side wears (:func:`wear`) the
    component class of that name."""

    def compose(self) -> ComposeResult:
        """Two text blocks."""
        yield Static("", markup=False, id="where")
        yield Static("", markup=False, id="saved")

    def show(self, where: RenderableType, saved: RenderableType, *, state: str = "") -> None:
        """Update both sides (a side showing the same text already is left alone);
        ``state`` (saved, error, pending, ...) sets the right side's look."""
        update_if_changed(self.query_one("#where", Static), where)
        update_if_changed(self.query_one("#saved", Static), saved)
        self.state = state

    def watch_state(self, state: str) -> None:
        look = f"status-line--{state}"
        wear(
            self.query_one("#saved", Static),
            self.get_component_styles(look) if look in self.COMPONENT_CLASSES else None,
        )
