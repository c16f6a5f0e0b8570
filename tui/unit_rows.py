"""The list the reviewer labels (criteria, statements or options), drawn line by line:
:class:`UnitRows`, a window of at most :data:`WINDOW` rows around the cursor."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from rich.console import RenderableType
from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual, visualize

from . import textual_private
from .pane import set_scroll_range
from .text_updates import Wrapped, same_text

ROWS_KEPT = 256
"""Rows the unit list keeps wrapped (a criterion row with each of its values, the cursor on
it or not)."""


WINDOW = 100
"""Rows of the unit list that exist as widgets at once: an item with 100,000 statements shows
a window of them around the cursor (its title says which), never 100,000 widgets."""


class UnitRows(ScrollView, inherit_bindings=False):
    """The list the reviewer labels: criteria, statements or options, one row each, drawn
    line by line.

    The list draws at most :data:`WINDOW` rows at a time, the window that holds the cursor;
    moving the cursor past either end moves the window (the border's subtitle gives the rows
    shown). Each row's text is wrapped once, at the list's width (again when a row changes or
    the width does); the row under the cursor is drawn in the look of the ``unit-rows--current``
    component class of the .tcss. A vote redraws one or two rows' lines, not row widgets (a
    Static per row measured, laid out and rendered each changed row through the stylesheet).
    Up/down move the cursor through the screen's ``move`` action so the same keys work whether
    or not the list has focus.
    """

    BINDINGS = [
        Binding("up", "screen.move(-1)", "Previous", show=False),
        Binding("down", "screen.move(1)", "Next", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]
    ALLOW_MAXIMIZE = True
    COMPONENT_CLASSES = {"unit-rows--current"}
    PAD = 1
    """Blank cells either side of a row's text (inside the row's highlight)."""

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)
    """The row under the cursor: setting it moves the highlight and scrolls it into view."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        """An empty list."""
        super().__init__(id=id)
        self.border_title = title
        self._count = 0
        self._start = 0
        self._draw: Callable[[int], RenderableType] = lambda _: ""
        self._texts: list[RenderableType] = []
        """The window's rows, as drawn by ``draw``."""
        self._lines: list[list[Strip] | None] = []
        """Each window row's lines, wrapped and padded (None: not wrapped yet)."""
        self._offsets: list[int] = [0]
        """The first line of each window row, then the number of lines."""
        self._width = 0
        """The width the rows are wrapped at (0: not laid out yet)."""
        self._lit: int | None = None
        """The window row drawn as the current one."""
        self._subtitle: str | None = None
        self._wrapped = Wrapped(ROWS_KEPT)
        """Rows wrapped before, by text, width and style: a row drawn again (the same
        criterion and value on the next item) is not wrapped again."""
        textual_private.on_size_set(self, self._laid_out)

    def set_rows(self, count: int, draw: Callable[[int], RenderableType], cursor: int) -> None:
        """Show ``count`` rows, drawing row ``i`` with ``draw(i)`` when it comes into the window,
        with the cursor on one of them."""
        self._count, self._draw, self._start = count, draw, 0
        self._start = self._window_start(cursor)
        self._fill()
        self.set_cursor(cursor)

    def _window_start(self, cursor: int) -> int:
        """The window's first row: unchanged while it holds ``cursor``, else centred on it."""
        if self._count <= WINDOW:
            return 0
        if self._start <= cursor < self._start + WINDOW:
            return self._start
        return max(0, min(cursor - WINDOW // 2, self._count - WINDOW))

    def _fill(self) -> None:
        """(Re)draw every row of the window; a row showing the same text keeps its lines."""
        shown = min(WINDOW, self._count - self._start)
        texts = [self._draw(self._start + i) for i in range(shown)]
        keep = len(texts) == len(self._texts)
        lines: list[list[Strip] | None] = [
            self._lines[i] if keep and same_text(text, self._texts[i]) else None
            for i, text in enumerate(texts)
        ]
        changed = not keep or None in lines
        self._texts, self._lines = texts, lines
        subtitle = (
            f"{self._start + 1:,}–{self._start + shown:,} of {self._count:,}"
            if self._count > WINDOW
            else ""
        )
        if subtitle != self._subtitle:  # setting it repaints the list, even to the same text
            self._subtitle = subtitle
            self.border_subtitle = subtitle
        if changed:  # the same rows again (a write this list does not show) draw nothing
            self._measure()

    def redraw(self) -> None:
        """Draw the window's rows again (the state behind them changed)."""
        self._fill()

    def set_row(self, index: int, content: RenderableType) -> None:
        """Replace one row's text (a row outside the window is drawn when it comes in)."""
        k = index - self._start
        if 0 <= k < len(self._texts) and not same_text(content, self._texts[k]):
            self._texts[k], self._lines[k] = content, None
            self._measure()

    @property
    def window(self) -> range:
        """The rows drawn now."""
        return range(self._start, self._start + len(self._texts))

    @property
    def current_row(self) -> int | None:
        """The row drawn as the one under the cursor (None: none in the window)."""
        return None if self._lit is None else self._start + self._lit

    def row_text(self, index: int) -> str:
        """A row of the window as drawn, in plain text (empty before the list is laid out)."""
        if not self._width:
            return ""
        return "\n".join(line.text for line in self._row_lines(index - self._start))

    def set_cursor(self, index: int) -> None:
        """Move the highlight to a row and keep it in view."""
        self.cursor = index

    def watch_cursor(self, index: int) -> None:
        start = self._window_start(index)
        if start != self._start:
            self._start = start
            self._fill()
        k = index - self._start
        lit = k if 0 <= k < len(self._texts) else None
        if lit != self._lit:
            self._lit = lit
            self.refresh()
        self._scroll_to_current()

    # -- wrapping and drawing --------------------------------------------------------------
    def _measure(self) -> None:
        """Wrap the rows not wrapped yet, and set the scroll range to all the rows' lines."""
        width = self.scrollable_content_region.width
        self._width = width
        if width <= 0:  # not laid out yet: the first layout wraps them (_laid_out)
            return
        offsets = [0]
        for k in range(len(self._texts)):
            offsets.append(offsets[-1] + len(self._row_lines(k)))
        self._offsets = offsets
        set_scroll_range(self, Size(width, offsets[-1]))
        self._scroll_to_current()
        self.refresh()

    def _row_lines(self, k: int) -> list[Strip]:
        lines = self._lines[k]
        if lines is None:
            style = self.visual_style
            text = self._texts[k]

            def wrap() -> list[Strip]:
                inner = max(1, self._width - 2 * self.PAD)
                visual = visualize(self, text, markup=False)
                pad = Strip.blank(self.PAD, style.rich_style)
                return [
                    Strip.join([pad, line.crop_extend(0, inner, style.rich_style), pad])
                    for line in Visual.to_strips(self, visual, inner, None, style)
                ] or [Strip.blank(self._width, style.rich_style)]

            lines = self._wrapped.lines(Wrapped.key(text, self._width, style), wrap)
            self._lines[k] = lines
        return lines

    def _scroll_to_current(self) -> None:
        if self._lit is None or not self._width or len(self._offsets) <= self._lit + 1:
            return
        top, bottom = self._offsets[self._lit], self._offsets[self._lit + 1]
        height = self.scrollable_content_region.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif height and bottom > self.scroll_y + height:
            self.scroll_to(y=max(top, bottom - height), animate=False, immediate=True)

    def _laid_out(self) -> None:
        """The layout set the list's size (:func:`.textual_private.on_size_set`): the rows
        wrapped again if its width changed, before the frame draws them."""
        if self.scrollable_content_region.width != self._width:
            self._lines = [None] * len(self._texts)
            self._measure()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Its rows' lines (a list sized by its rows)."""
        return self._offsets[-1] if self._width else max(1, len(self._texts))

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of what is on screen: a line of the row it falls in."""
        width = self.scrollable_content_region.width
        index = y + self.scroll_offset.y
        if width != self._width or not 0 <= index < self._offsets[-1]:
            return Strip.blank(width, self.visual_style.rich_style)
        k = bisect_right(self._offsets, index) - 1
        line = self._row_lines(k)[index - self._offsets[k]]
        if k == self._lit:  # the current row's look over its own (its background, bold)
            look = self.get_component_rich_style("unit-rows--current")
            line = Strip(Segment.apply_style(line, post_style=look), line.cell_length)
        line = line.apply_offsets(0, index)  # where a mouse selection starts and ends
        span = self.text_selection.get_span(index) if self.text_selection else None
        if span is not None:
            start, end = span
            end = line.cell_length if end == -1 else min(end, line.cell_length)
            look = self.screen.get_component_rich_style("screen--selection")
            chosen = Segment.apply_style(list(line.crop(start, end)), post_style=look)
            line = Strip.join(
                [line.crop(0, start), Strip(chosen), line.crop(end, line.cell_length)]
            )
        return line

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text a mouse selection covers, from the rows' lines as drawn."""
        if not self._width:
            return None
        lines = [line.text for k in range(len(self._texts)) for line in self._row_lines(k)]
        return selection.extract("\n".join(lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """Draw the lines again, with the selection highlighted."""
        self.refresh()
