"""The review app's scrolling text pane, drawn line by line: :class:`Pane` (the question, the
answers, the detail under the list) and its scrollbar, :class:`LineScrollBar`."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize

from . import textual_private
from .render import PANE_CHARS, markdown, shown_part
from .text_updates import Wrapped

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

    def __init__(
        self,
        title: str,
        *,
        id: str | None = None,
        classes: str | None = None,
        tells_drawn: bool = False,
    ) -> None:
        """A pane whose title is fixed text of ours (never data); ``tells_drawn``: it posts
        :class:`Drawn` when a new text is on screen (the answers and the question, whose
        next texts are wrapped ahead once the screen is idle; a line that changes on every
        key, such as the review's detail, does not)."""
        super().__init__(id=id, classes=classes)
        self._tells_drawn = tells_drawn
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

    def show_answer(self, content: Text, title: str, *, rendered: bool = False) -> None:
        """An answer: the title gives its length in words, and says when the text runs past
        the pane (``Answer A · 3,064 words · continues: v to read``); ``rendered``: drawn as
        Markdown (:func:`~medjudge.tui.render.markdown`), and the title says so."""
        words = len(content.plain.split())
        title = f"{title} · {words:,} word{'s' if words != 1 else ''}"
        if rendered:
            title += " · rendered"
        self._titles = (title, f"{title} · continues: v to read")
        self._show(markdown(content) if rendered else content, None)
        self._cut = len(content) > PANE_CHARS  # (cut before it was rendered)
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
            if self._tells_drawn:
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
