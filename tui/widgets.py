"""Small widgets of the review app: scrollable text panes, the unit list, status and progress.

Every widget here takes Rich renderables built by :mod:`medjudge.tui.render` (literal text,
never markup) and is updated in place, so moving to the next item repaints only what changed
(cheap over a slow SSH link).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from rich.color import Color as RichColor
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.cache import LRUCache
from textual.containers import Horizontal
from textual.css.styles import RenderStyles
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Footer, Static

from . import textual_private
from .render import PANE_CHARS, progress_text, shown_part


def text_key(text: object) -> tuple[object, ...] | None:
    """A Rich text as a hashable value: characters, spans and how it is laid out (None for
    anything that is not a Rich text)."""
    if not isinstance(text, Text):
        return None
    return (
        text.plain,
        tuple(text.spans),
        text.style,
        text.justify,
        text.overflow,
        text.no_wrap,
        text.end,
        text.tab_size,
    )


def same_text(a: object, b: object) -> bool:
    """Whether two renderables are the same Rich text: characters, spans and how it is laid
    out (anything else counts as different)."""
    key = text_key(a)
    return key is not None and key == text_key(b)


class Wrapped:
    """Texts already wrapped into lines, by :func:`text_key`, width and look; the ``size``
    used last are kept (Textual's :class:`~textual.cache.LRUCache`). The criteria rows and the
    detail of the next item are mostly texts drawn before (the same criterion, the same value),
    and wrapping one through Textual is most of what a key does outside the frame."""

    def __init__(self, size: int) -> None:
        """Keep at most ``size`` texts."""
        self._lines: LRUCache[tuple[object, ...], list[Strip]] = LRUCache(size)

    @staticmethod
    def key(text: RenderableType, width: int, look: VisualStyle) -> tuple[object, ...] | None:
        """What a text wrapped at ``width`` in ``look`` is kept under (None: not a Rich text,
        or no width yet; such a text is wrapped every time)."""
        key = text_key(text)
        return None if key is None or width <= 0 else (*key, width, look)

    def lines(self, key: tuple[object, ...] | None, wrap: Callable[[], list[Strip]]) -> list[Strip]:
        """The lines kept under ``key`` (now the most recent), else ``wrap()``'s, kept under
        it (forgetting the least recent beyond ``size``)."""
        if key is None:
            return wrap()
        lines = self._lines.get(key)
        if lines is None:
            lines = wrap()
            self._lines.set(key, lines)
        return lines


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
    height, width_rule = widget.styles.height, widget.styles.width
    if height is not None and not height.is_auto and (width_rule is None or not width_rule.is_auto):
        return  # its size is set by the stylesheet, whatever it shows: nothing to measure
    width = before.width
    if width_rule is not None and width_rule.is_auto:
        width = widget.get_content_width(_container(widget), widget.app.size)
    if width != before.width or content_height(widget) != before.height:
        widget.refresh(layout=True)


def wear(widget: Widget, look: RenderStyles | None) -> None:
    """Give a widget the colours and text style a component class sets (``look``: from
    ``get_component_styles``; None: the widget's own again) as inline styles. A CSS class
    instead would match the whole stylesheet against the widget again, about ten times
    dearer, each time it changes (the status line's right side, on most keys)."""
    for rule in ("background", "color", "text_style"):
        value = getattr(look, rule) if look is not None and look.has_rule(rule) else None
        setattr(widget.styles, rule, value)


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


def set_scroll_range(view: ScrollView, size: Size) -> None:
    """Give a line-drawn view a new scroll range (its lines' width and count) without laying
    the screen out, unless the view's height follows its lines and their count changed."""
    if size == view.virtual_size:
        return
    taller = size.height != view.virtual_size.height
    textual_private.set_virtual_size(view, size)
    if taller and view.styles.height is not None and view.styles.height.is_auto:
        view.refresh(layout=True)


class LineScrollBar(ScrollBar):
    """Textual's vertical scrollbar (the same glyphs, colours and mouse actions), drawn line
    by line from segments worked out once per thumb position: the generic path renders the bar
    through Rich on every change, and each answer's length changes it on every item (three
    bars were a fifth of the frame showing the next item)."""

    def __init__(self, *, thickness: int = 1) -> None:
        """A vertical bar."""
        super().__init__(vertical=True, name="vertical", thickness=thickness)
        self._bar: tuple[tuple[object, ...], list[Segment]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of the bar in ``crop`` (its segments worked out once for them)."""
        self._segments()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the bar."""
        segments = self._bar[1] if self._bar is not None else self._segments()
        if 0 <= y < len(segments):
            return Strip([segments[y]], self.thickness)
        return Strip.blank(self.thickness)

    def _segments(self) -> list[Segment]:
        style = self.render()  # the colours, as the bar works them out
        assert isinstance(style, ScrollBarRender)
        rich = style.style if isinstance(style.style, RichStyle) else RichStyle.parse(style.style)
        key = (
            self.size.height,
            style.virtual_size,
            style.window_size,
            style.position,
            self.thickness,
            rich,
        )
        if self._bar is None or self._bar[0] != key:
            bar = ScrollBarRender.render_bar(
                size=self.size.height,
                virtual_size=style.virtual_size,
                window_size=style.window_size,
                position=style.position,
                thickness=self.thickness,
                vertical=True,
                back_color=rich.bgcolor or RichColor.parse("#555555"),
                bar_color=rich.color or RichColor.parse("bright_magenta"),
            )
            self._bar = (key, list(bar.segments))
        return self._bar[1]


KEPT = 8
"""Texts a pane keeps wrapped: those wrapped ahead of showing them (:meth:`Pane.prepare`, the
next item's) and those shown last (going back an item; the detail pane goes through an item's
criteria, the same texts on every item). At most :data:`~medjudge.tui.render.PANE_CHARS`
characters each."""

ROWS_KEPT = 256
"""Rows the unit list keeps wrapped (a criterion row with each of its values, the cursor on
it or not)."""


class Pane(ScrollView, inherit_bindings=False):
    """A titled, focusable, vertically scrolling block of literal text, drawn line by line.

    The text is wrapped once, at the pane's width, when it is shown (and again only when the
    width changes); the lines on screen are cut from that. Showing the next item's text, of
    another length, changes the scroll range and the lines drawn but lays nothing out (a text
    widget inside a scrolling container laid the whole screen out whenever its text changed
    height, wrapped the text three times, and drew the scrollbar in a second frame). A pane
    whose height follows its text (``height: auto``, the question) asks for a layout when
    its number of lines changes.

    A text can be wrapped before it is shown (:meth:`prepare`: the review screen does so for
    the next item once the current one is drawn), so the key that shows it only swaps lines.

    Only vertical scroll keys are bound, so left/right still reach the screen (previous/next
    item) while a pane has focus.
    """

    BINDINGS = SCROLL_KEYS
    ALLOW_MAXIMIZE = True

    class Drawn(Message):
        """A text just shown (or wrapped again at a new width) is on screen: posted while
        the frame holding its first lines is drawn, so handled once that frame is written."""

        def __init__(self, pane: Pane) -> None:
            self.pane = pane
            super().__init__()

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The pane's scrollbar, a :class:`LineScrollBar` (made as Textual makes its own)."""
        return textual_private.own_vertical_scrollbar(
            self, lambda: LineScrollBar(thickness=self.scrollbar_size_vertical)
        )

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
        self._wrapped = Wrapped(KEPT)
        """Texts wrapped ahead (:meth:`prepare`) or shown last, by text, width and style."""
        self._undrawn = False
        """A text was shown or wrapped again and no frame has drawn it yet (:class:`Drawn`)."""
        textual_private.on_size_set(self, self._laid_out)

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
        self._titles = None
        self._show(content, title)

    def _show(self, content: RenderableType, title: str | None) -> None:
        if title is not None and self.border_title != title:
            self.border_title = title  # (setting it repaints the pane, even to the same)
        self._text = shown_part(content) if isinstance(content, Text) else content
        # A text cut to PANE_CHARS shows its end only in the reader (v): never seen here.
        self._cut = isinstance(content, Text) and len(content) > PANE_CHARS
        self.seen_to_end = False
        self._undrawn = True
        if self.scroll_y or self.scroll_target_y:
            self.scroll_to(y=0, animate=False, immediate=True)
        self._wrap()

    def prepare(self, content: RenderableType) -> None:
        """Wrap a text the pane is likely to show next, at its present width and style, so
        that :meth:`show` takes the lines from here. Only :data:`KEPT` texts are kept; a text
        shown at another width or style is wrapped then, as without this."""
        width = self._wrapped_at
        text = shown_part(content) if isinstance(content, Text) else content
        key = Wrapped.key(text, width, self.visual_style)
        if key is not None:
            self._wrapped.lines(key, lambda: self._strips(text, width, selection=False))

    def replace(self, content: RenderableType) -> None:
        """Replace the text where the reader is (a re-read of the same thing, grown)."""
        self._text = content
        self._wrap()

    def show_answer(self, content: Text, title: str) -> None:
        """An answer: the title gives its length in words, and says when the text runs past
        the pane (``Answer A · 3,064 words · continues: v to read``)."""
        words = len(content.plain.split())
        title = f"{title} · {words:,} word{'s' if words != 1 else ''}"
        self._titles = (title, f"{title} · continues: v to read")
        self._show(content, None)
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
        if self._titles is None:
            return
        plain, continues = self._titles
        right = continues if self._wrapped_at and self.max_scroll_y > 0 else plain
        if self.border_title != right:
            self.border_title = right

    # -- wrapping and drawing --------------------------------------------------------------
    def _wrap(self) -> None:
        """Wrap the text at the pane's width and set the scroll range to its lines."""
        width = self.scrollable_content_region.width
        self._wrapped_at = width
        if width <= 0:  # not laid out yet: the first layout wraps it (_laid_out)
            self._lines = []
            return
        # lines wrapped before serve unless a mouse selection is to be drawn on them
        key = Wrapped.key(self._text, width, self.visual_style)
        # lines wrapped before serve, unless a mouse selection is to be drawn on them
        self._lines = self._wrapped.lines(
            key if self.text_selection is None else None, lambda: self._draw(width)
        )
        self._drawn_with = self.visual_style
        # The scroll range changes, not the pane's size: no layout (see the class).
        set_scroll_range(self, Size(width, len(self._lines)))
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
        return self._strips(self._text, width, selection=True)

    def _strips(self, text: RenderableType, width: int, *, selection: bool) -> list[Strip]:
        visual = visualize(self, text, markup=False)
        return Visual.to_strips(
            self, visual, width, None, self.visual_style, apply_selection=selection
        )

    def _laid_out(self) -> None:
        """The layout set the pane's size (:func:`.textual_private.on_size_set`): the text
        wrapped again if its width changed, before the frame draws it."""
        if self.scrollable_content_region.width != self._wrapped_at:
            self._wrap()
            self._undrawn = True  # what was prepared at the old width is of no use now

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Its lines (a pane sized by its text)."""
        return len(self._lines) if self._wrapped_at else 1

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of what is on screen, cut from the wrapped text."""
        if self._undrawn:
            self._undrawn = False
            self.post_message(self.Drawn(self))
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
