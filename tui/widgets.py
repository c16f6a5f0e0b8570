"""Small widgets of the review app: the footer, the status line and the progress bar; and,
from their own modules, the line-drawn pane (:mod:`.pane`) and unit list (:mod:`.unit_rows`)
and the in-place text updates they share (:mod:`.text_updates`).

Every widget here takes Rich renderables built by :mod:`medjudge.tui.render` (literal text,
never markup) and is updated in place, so moving to the next item repaints only what changed
(cheap over a slow SSH link).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import RenderableType
from textual.app import ComposeResult
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


KeySpec = tuple[str, str, str, str, bool, str]
"""One key of the footer: (key, key display, description, action, enabled, tooltip)."""
Entry = tuple[str | None, list[KeySpec]]
"""One entry of the footer: a key (label None), or a group's keys under its label."""
HELP_ACTIONS = ("app.help", "help")
"""The actions of the key that lists every key (``?``): the footer always shows it."""


def entry_width(entry: Entry) -> int:
    """The cells an entry takes in the compact footer, with the space after it: a key and its
    description, or a group's keys run together, a space and the group's label."""
    label, keys = entry
    if label is None:
        _, display, description, *_ = keys[0]
        return cell_len(display) + (1 + cell_len(description) if description else 0) + 1
    return sum(cell_len(k[1]) for k in keys) + 1 + cell_len(label) + 1


class KeyFooter(Footer):
    """Textual's footer (the screen's keys, a disabled one dimmed) in one line that fits the
    width: the keys that do not fit are left out, in the screen's order of its bindings, and the
    help key (``?``, which lists every key) is always shown, at the right end. A group's keys
    are shown together under its label wherever the screen binds them (``abcd Tick``).

    It is redrawn in place when the keys shown stay the same: the stock footer removes and
    mounts every key whenever the screen's bindings may have changed (the first label on each
    item, for one), about 15 ms before the frame, even when the same keys come back."""

    def compose(self) -> ComposeResult:
        """The entries that fit, the help key last."""
        entries, help_entry = self.fitted(self.screen)
        for label, keys in entries:
            yield from textual_private.footer_widgets(keys, label, compact=self.compact)
        if help_entry is not None:
            (key,) = textual_private.footer_widgets(help_entry[1], None, compact=self.compact)
            key.add_class("-help")
            yield key

    def fitted(self, screen: Screen[object]) -> tuple[list[Entry], Entry | None]:
        """The entries to show on ``screen`` at the footer's width, and its help key (None: the
        screen has none)."""
        entries: list[Entry] = []
        groups: dict[object, Entry] = {}
        actions: set[str] = set()
        help_entry: Entry | None = None
        for _node, binding, enabled, tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            spec = (
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
            )
            if binding.action in HELP_ACTIONS:
                help_entry = (None, [spec])
            elif binding.group is None:
                entries.append((None, [spec]))
            elif binding.group in groups:
                groups[binding.group][1].append(spec)
            else:
                groups[binding.group] = (binding.group.description, [spec])
                entries.append(groups[binding.group])
        # a group of one key shows as that key with its own description
        entries = [(None, keys) if len(keys) == 1 else (label, keys) for label, keys in entries]
        room = (self.size.width or self.app.size.width) + 1  # the last space may fall off
        if help_entry is not None:
            room -= entry_width(help_entry)
        shown: list[Entry] = []
        for entry in entries:
            room -= entry_width(entry)
            if room < 0:
                break
            shown.append(entry)
        return shown, help_entry

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen and self._same_keys(screen):
            return
        super().bindings_changed(screen)

    def on_resize(self) -> None:
        """Another width may fit other keys."""
        if self.is_attached:
            self.bindings_changed(self.screen)

    def _same_keys(self, screen: Screen[object]) -> bool:
        """Whether the keys to show are the ones shown (each key's being enabled or not is
        then set in place)."""
        entries, help_entry = self.fitted(screen)
        if help_entry is not None:
            entries = [*entries, help_entry]
        specs = [(spec, label is None) for label, keys in entries for spec in keys]
        keys = textual_private.footer_keys(self)
        if [(k.key, k.description) for k in keys] != [
            (spec[0], spec[2] if alone else "") for spec, alone in specs
        ]:
            return False
        for key, (spec, _) in zip(keys, specs, strict=True):
            if key.has_class("-disabled") == spec[4]:
                textual_private.set_footer_key_enabled(key, spec[4])
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
