"""Showing new text in a widget without laying the screen out: equal texts left alone, texts
kept wrapped, a Static updated in place, a component class's look worn as inline styles.

Every widget of the review app takes Rich renderables built by :mod:`medjudge.tui.render`
(literal text, never markup) and is updated in place, so moving to the next item repaints only
what changed (cheap over a slow SSH link).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from rich.text import Text
from textual.cache import LRUCache
from textual.css.styles import RenderStyles
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.widget import Widget
from textual.widgets import Static


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
