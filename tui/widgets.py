"""Small widgets of the review app: scrollable text panes, the unit list, status and progress.

Every widget here takes Rich renderables built by :mod:`medjudge.tui.render` (literal text,
never markup) and is updated in place, so moving to the next item repaints only what changed
(cheap over a slow SSH link).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from .render import PANE_CHARS, progress_text, shown_part


def same_text(a: object, b: object) -> bool:
    """Whether two renderables are the same Rich text: characters, spans and how it is laid
    out (anything else counts as different)."""
    return (
        isinstance(a, Text)
        and isinstance(b, Text)
        and a.plain == b.plain
        and a.spans == b.spans
        and (a.style, a.justify, a.overflow, a.no_wrap, a.end, a.tab_size)
        == (b.style, b.justify, b.overflow, b.no_wrap, b.end, b.tab_size)
    )


def update_if_changed(widget: Static, content: RenderableType) -> bool:
    """Give a Static new content unless it shows the same text already; True when updated.

    An update lays out the whole screen again even when nothing differs: an open app redraws
    on every commit by another process (a judge run writes several a second), so an equal
    update skipped is an idle session that stays idle. A different content is given with
    :func:`update_in_place`.
    """
    if same_text(widget.content, content):
        return False
    update_in_place(widget, content)
    return True


def update_in_place(widget: Static, content: RenderableType) -> None:
    """Give a Static new content, laying the screen out again only when the content needs a
    different size.

    ``Static.update`` lays out the whole screen on every call (about half of what a key cost
    the review screen: a vote changes a row, the status line and the detail, none of which
    changes size). Here the widget is repainted alone, then its content is measured at the
    width it has: a new height (or, for a widget as wide as its content, a new width) asks
    for the layout after all.
    """
    if not widget.is_mounted or not widget.content_size:
        widget.update(content)
        return
    before = widget.content_size
    widget.update(content, layout=False)
    width = before.width
    if widget.styles.width is not None and widget.styles.width.is_auto:
        width = widget.get_content_width(_container(widget), widget.app.size)
    if width != before.width or content_height(widget) != before.height:
        widget.refresh(layout=True)


def _container(widget: Widget) -> Size:
    parent = widget.parent
    return parent.size if isinstance(parent, Widget) else widget.app.size


def content_height(widget: Widget) -> int | None:
    """The height a widget's present content takes at the width it was laid out with (None:
    not laid out yet). Textual keeps the figure for the layout to use."""
    width = widget.content_size.width
    if not widget.is_mounted or not width:
        return None
    return widget.get_content_height(_container(widget), widget.app.size, width)


# The keys of a scrolling pane (vertical only: left/right still reach the screen).
SCROLL_KEYS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("up", "scroll_up", "Scroll up", show=False),
    Binding("down", "scroll_down", "Scroll down", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    Binding("home", "scroll_home", "Top", show=False),
    Binding("end", "scroll_end", "Bottom", show=False),
]


class Pane(ScrollView, inherit_bindings=False):
    """A titled, focusable, vertically scrolling block of literal text, drawn line by line.

    The text is wrapped once, at the pane's width, when it is shown (and again only when the
    width changes); the lines on screen are cut from that. Showing the next item's text, of
    another length, changes the scroll range and the lines drawn but lays nothing out (a text
    widget inside a scrolling container laid the whole screen out whenever its text changed
    height, wrapped the text three times, and drew the scrollbar in a second frame). A pane
    whose height follows its text (``height: auto``, the question) asks for a layout when
    its number of lines changes.

    Only vertical scroll keys are bound, so left/right still reach the screen (previous/next
    item) while a pane has focus.
    """

    BINDINGS = SCROLL_KEYS
    ALLOW_MAXIMIZE = True

    def __init__(self, title: str, *, id: str | None = None, classes: str | None = None) -> None:
        """A pane whose title is fixed text of ours (never data)."""
        super().__init__(id=id, classes=classes)
        self.border_title = title
        self._text: RenderableType = Text()
        self._cut = False
        self._wrapped_at = 0
        """The width the text was wrapped at (0: not yet, the pane has no size)."""
        self._lines: list[Strip] = []
        self._drawn_with: VisualStyle | None = None
        """The style ``_lines`` were drawn with (focus changes the background)."""
        self._titles: tuple[str, str] | None = None
        """An answer's two titles: as it is, and saying that it continues."""

    @property
    def text(self) -> RenderableType:
        """What the pane shows (a long text cut as :func:`~medjudge.tui.render.shown_part`
        cuts it)."""
        return self._text

    @property
    def plain(self) -> str:
        """What the pane shows, as plain text."""
        return self._text.plain if isinstance(self._text, Text) else str(self._text)

    def show(self, content: RenderableType, *, title: str | None = None) -> None:
        """Replace the text (a long one cut: :func:`~medjudge.tui.render.shown_part`) and
        scroll back to the top."""
        if title is not None:
            self.border_title = title
        self._titles = None
        self._text = shown_part(content) if isinstance(content, Text) else content
        # A text cut to PANE_CHARS shows its end only in the reader (v): never seen here.
        self._cut = isinstance(content, Text) and len(content) > PANE_CHARS
        self.seen_to_end = False
        self.scroll_to(y=0, animate=False, immediate=True)
        self._wrap()

    def replace(self, content: RenderableType) -> None:
        """Replace the text where the reader is (a re-read of the same thing, grown)."""
        self._text = content
        self._wrap()

    def show_answer(self, content: Text, title: str) -> None:
        """An answer: the title gives its length in words, and says when the text runs past
        the pane (``Answer A · 3,064 words · continues: v to read``)."""
        words = len(content.plain.split())
        title = f"{title} · {words:,} word{'s' if words != 1 else ''}"
        self.show(content, title=title)
        self._titles = (title, f"{title} · continues: v to read")
        self._retitle()

    seen_to_end: reactive[bool] = reactive(False, init=False, repaint=False)
    """Whether the pane's text has been on screen to its last line (it fits, or was scrolled
    to the bottom) since it was last shown (``settings --require-reading``). Read when a key
    labels, never drawn: setting it repaints nothing."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._check_seen()

    def _check_seen(self) -> None:
        if self._wrapped_at and not self._cut and self.scroll_y >= self.max_scroll_y:
            self.seen_to_end = True

    def _retitle(self) -> None:
        if self._titles is None or not self._wrapped_at:
            return
        plain, continues = self._titles
        right = continues if self.max_scroll_y > 0 else plain
        if self.border_title != right:
            self.border_title = right

    # -- wrapping and drawing --------------------------------------------------------------
    def _wrap(self) -> None:
        """Wrap the text at the pane's width and set the scroll range to its lines."""
        width = self.scrollable_content_region.width
        self._wrapped_at = width
        if width <= 0:  # not laid out yet: the first layout wraps it (_size_updated)
            self._lines = []
            return
        self._lines = self._draw(width)
        self._drawn_with = self.visual_style
        size = Size(width, len(self._lines))
        if size != self.virtual_size:
            taller = size.height != self.virtual_size.height
            # The scroll range changes, not the pane's size: no layout (see the class).
            self.set_reactive(Pane.virtual_size, size)
            self._scroll_update(size)
            if taller and self.styles.height is not None and self.styles.height.is_auto:
                self.refresh(layout=True)
        self._check_seen()
        self._retitle()
        self.refresh()

    def render(self) -> RenderableType:
        """The whole text: what a mouse selection is taken from (the lines are drawn by
        :meth:`render_line`)."""
        return self._text

    def selection_updated(self, selection: Selection | None) -> None:
        """Draw the lines again, with the selection highlighted."""
        self._drawn_with = None
        self.refresh()

    def _draw(self, width: int) -> list[Strip]:
        visual = visualize(self, self._text, markup=False)
        return Visual.to_strips(self, visual, width, None, self.visual_style)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        resized = super()._size_updated(size, virtual_size, container_size, layout=layout)
        if self.scrollable_content_region.width != self._wrapped_at:
            self._wrap()
        return resized

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Its lines (a pane sized by its text)."""
        return len(self._lines) if self._wrapped_at else 1

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of what is on screen, cut from the wrapped text."""
        width = self.scrollable_content_region.width
        style = self.visual_style
        if style != self._drawn_with and self._wrapped_at:  # focus, or a selection
            self._lines = self._draw(self._wrapped_at)
            self._drawn_with = style
        index = y + self.scroll_offset.y
        if 0 <= index < len(self._lines):
            return self._lines[index].crop_extend(0, width, style.rich_style)
        return Strip.blank(width, style.rich_style)


WINDOW = 100
"""Rows of the unit list that exist as widgets at once: an item with 100,000 statements shows
a window of them around the cursor (its title says which), never 100,000 widgets."""


class UnitRows(VerticalScroll, inherit_bindings=False):
    """The list the reviewer labels: criteria, statements or options, one row each.

    The list draws at most :data:`WINDOW` rows at a time, the window that holds the cursor;
    moving the cursor past either end moves the window (the border's subtitle gives the rows
    shown). Row widgets are Statics kept in a pool and reused from item to item and window to
    window; the row under the cursor carries the ``-current`` class (styled in the .tcss).
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

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    """The row under the cursor: setting it moves the highlight and scrolls it into view."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        """An empty list."""
        super().__init__(id=id)
        self.border_title = title
        self._pool: list[Static] = []
        self._count = 0
        self._start = 0
        self._shown = 0
        self._draw: Callable[[int], RenderableType] = lambda _: ""
        self._subtitle: str | None = None

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
        """(Re)draw every row of the window, reusing row widgets."""
        self._shown = min(WINDOW, self._count - self._start)
        new: list[Static] = []
        for i in range(self._shown):
            content = self._draw(self._start + i)
            if i < len(self._pool):
                row = self._pool[i]
                update_if_changed(row, content)
                if not row.display:  # setting it at all lays the screen out again
                    row.display = True
            else:
                row = Static(content, markup=False, classes="row")
                self._pool.append(row)
                new.append(row)
        for row in self._pool[self._shown :]:
            if row.display:
                row.display = False
        if new:
            self.mount_all(new)
        subtitle = (
            f"{self._start + 1:,}–{self._start + self._shown:,} of {self._count:,}"
            if self._count > WINDOW
            else ""
        )
        if subtitle != self._subtitle:  # setting it repaints the list, even to the same text
            self._subtitle = subtitle
            self.border_subtitle = subtitle

    def redraw(self) -> None:
        """Draw the window's rows again (the state behind them changed)."""
        self._fill()

    def set_row(self, index: int, content: RenderableType) -> None:
        """Replace one row's text (a row outside the window is drawn when it comes in)."""
        if self._start <= index < self._start + self._shown:
            update_if_changed(self._pool[index - self._start], content)

    @property
    def window(self) -> range:
        """The rows drawn now."""
        return range(self._start, self._start + self._shown)

    def set_cursor(self, index: int) -> None:
        """Move the highlight to a row and keep it in view."""
        self.cursor = index

    def watch_cursor(self, index: int) -> None:
        start = self._window_start(index)
        if start != self._start:
            self._start = start
            self._fill()
        for i, row in enumerate(self._pool[: self._shown]):
            row.set_class(self._start + i == index, "-current")
        if self._start <= index < self._start + self._shown:
            target = self._pool[index - self._start]
            self.call_after_refresh(self.scroll_to_widget, target, animate=False)

    @property
    def rows(self) -> list[Static]:
        """The row widgets drawn now (the window)."""
        return self._pool[: self._shown]


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

    state: reactive[str] = reactive("", init=False)
    """saved, error, pending, info or empty: the right side's look follows it (a CSS class)."""

    def compose(self) -> ComposeResult:
        """Two text blocks."""
        yield Static("", markup=False, id="where")
        yield Static("", markup=False, id="saved")

    def show(self, where: RenderableType, saved: RenderableType, *, state: str = "") -> None:
        """Update both sides; ``state`` (saved, error, pending, ...) becomes a CSS class."""
        update_in_place(self.query_one("#where", Static), where)
        update_in_place(self.query_one("#saved", Static), saved)
        self.state = state

    def watch_state(self, state: str) -> None:
        s = self.query_one("#saved", Static)
        for name in ("saved", "error", "pending", "info"):
            s.set_class(state == name, f"-{name}")
