"""A frame that goes through only the widgets it changes.

Textual draws a partial update (a frame after some widgets changed) by going through every
widget that meets the box around all the changed regions, then writes only the changed
spans. A label changes the status line at the top of the review screen and the list and its
detail at the bottom, so that box is the whole screen: every widget on it was gone through
on each key (styles, borders, cached lines cut and divided), though nothing of the unchanged
ones is written. :class:`ChangedOnlyCompositor` goes through the widgets that meet a changed
region, and no others.

It is exact: Textual writes, on each line, the spans of the changed regions (merged only
where they overlap or touch), and takes each cell of a span from the front-most widget
there; a widget that meets no changed region has no cell in any span. A full update (the
first frame, a resize, a new layout) is Textual's own.

Built on the compositor's private ``_dirty_regions``, ``render_partial_update`` and
``_get_renders`` (textual ``>=8.2.0,<9``; CI runs the floor and the newest). Each partial
frame is drawn a second time by Textual's own compositor and the bytes written compared
(``tests/support/frames.py``), in ``tests/test_tui_frames.py`` and on every kind's review and
adjudication screens in the kind × surface matrix.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


class ChangedOnlyCompositor(Compositor):
    """Textual's compositor, going through only the widgets that meet a changed region when
    it draws a partial update."""

    def __init__(self) -> None:
        super().__init__()
        self._changed: list[Region] | None = None
        """The regions of the partial update being drawn (None: draw as Textual does)."""

    def render_partial_update(self) -> ChopsUpdate | None:
        """Textual's partial update, drawn from the widgets that meet its changed regions."""
        self._changed = list(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._changed = None

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        changed = self._changed
        if not changed:
            yield from super()._get_renders(crop)
            return
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            if not shown.area or not any(shown.overlaps(part) for part in changed):
                continue
            # the lines Textual asks of a widget, as in Compositor._get_renders
            yield region, clip, widget.render_lines(shown.translate(-region.offset))


def draw_changed_only(screen: Screen[Any]) -> None:
    """Give ``screen`` a :class:`ChangedOnlyCompositor` (before it is mounted)."""
    screen._compositor = ChangedOnlyCompositor()
