"""Every use of Textual's private API in medjudge, each where no public API serves.

Nothing else in the product (``tui/``, ``medjudge/``, ``benchmarks/``) imports a ``textual._``
module or touches a private attribute of a Textual object (``tests/test_textual_private.py``
reads every module for it, and runs each function here against the installed Textual, so an
upgrade that breaks one fails that test rather than the app). Each function says why it is
needed and which public API was tried. Built against textual ``>=8.2.0,<9``: CI runs the floor
(8.2.0) and the newest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.geometry import Size
from textual.pilot import Pilot
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a line-drawn view a new scroll range and bring its scrollbar up to date, without
    laying the screen out.

    Showing the next item gives each pane text of another length: a new virtual size, a new
    scrollbar thumb, nothing on screen moving. The public ``view.virtual_size = size`` is a
    reactive declared with ``layout=True``: every pane whose text changed length laid the whole
    screen out again (``tests/test_tui_idle_redraw.py`` holds the next item to no layout).
    ``set_reactive`` sets the size without the layout but leaves the scrollbar as it was;
    Textual's own layout brings it up to date through ``_scroll_update``, which is called here.
    """
    view.set_reactive(ScrollView.virtual_size, size)
    view._scroll_update(size)


def own_vertical_scrollbar(widget: Widget, make: Callable[[], ScrollBar]) -> ScrollBar:
    """The widget's vertical scrollbar, made with ``make()`` the first time it is asked for and
    started as Textual starts its own (hidden until the layout shows it).

    For a pane's :class:`~medjudge.tui.pane.LineScrollBar`, from the widget's
    ``vertical_scrollbar`` property. Textual makes the bar in that property and gives no
    public way to choose its class; ``ScrollBar.renderer`` (public) chooses what the bar
    renders, but every bar still renders it through Rich on each change, the cost the line-drawn
    bar avoids. A scrollbar is no child in the DOM (it cannot be mounted), so it is started
    with Textual's ``App._start_widget`` and kept where Textual looks for it,
    ``Widget._vertical_scrollbar``.
    """
    bar = widget._vertical_scrollbar
    if bar is None:
        bar = widget._vertical_scrollbar = make()
        bar.display = False
        widget.app._start_widget(widget, bar)
    return bar


def on_size_set(widget: Widget, laid_out: Callable[[], None]) -> None:
    """Call ``laid_out()`` each time Textual's layout sets the widget's size, right after it
    is set and before the frame that shows it is drawn.

    A line-drawn pane wraps its text at its width there, so the frame after a resize, or after
    its scrollbar came or went, shows the text wrapped at the width it is drawn at. The public
    ``Resize`` event comes after that frame is drawn (one frame with the lines of the old width,
    then a second) and not at all when a scrollbar coming or going narrows the text without
    changing the widget's size (its last column cut). The hook is Textual's
    ``Widget._size_updated``, which the layout calls on every widget it places; this wraps the
    widget's own.
    """
    textual_size_updated = widget._size_updated

    def size_updated(
        size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        resized = textual_size_updated(size, virtual_size, container_size, layout=layout)
        laid_out()
        return resized

    widget._size_updated = size_updated  # type: ignore[method-assign]


def footer_keys(footer: Footer) -> list[FooterKey]:
    """The keys a footer shows, in order.

    Textual's ``FooterKey`` is defined in the private ``textual.widgets._footer`` and exported
    nowhere public. ``footer.query("FooterKey")`` (a CSS type selector) finds the widgets, but
    their ``key`` and ``description`` are attributes of that class alone.
    """
    return list(footer.query(FooterKey))


def footer_widgets(
    keys: list[tuple[str, str, str, str, bool, str]], label: str | None, *, compact: bool
) -> list[Widget]:
    """The widgets of one footer entry, as Textual's footer makes them: one key (``label``
    None) or a group of keys under one label; each key is (key, key display, description,
    action, enabled, tooltip). Returns the widgets to mount in the footer's row: the key; or
    the group's keys in a box, then the label.

    A footer that fits its width (:class:`~medjudge.tui.widgets.KeyFooter`) chooses which keys
    it shows, so it composes them itself: Textual's ``Footer.compose`` shows every key the
    screen has, cut at the edge. The key, group and label widgets (``FooterKey``,
    ``KeyGroup``, ``FooterLabel``) are defined in the private ``textual.widgets._footer`` and
    exported nowhere public; the footer's styles (and its click on a key) apply to them alone.
    """

    def key_widget(spec: tuple[str, str, str, str, bool, str], grouped: bool) -> FooterKey:
        key, display, description, action, enabled, tooltip = spec
        widget = FooterKey(
            key,
            display,
            "" if grouped else description,
            action,
            disabled=not enabled,
            tooltip=tooltip or (description if grouped else ""),
            classes="-grouped" if grouped else "",
        )
        widget.compact = compact
        return widget

    if label is None:
        return [key_widget(keys[0], False)]
    return [
        KeyGroup(*(key_widget(k, True) for k in keys), classes="-compact" if compact else ""),
        FooterLabel(label),
    ]


def set_footer_key_enabled(key: FooterKey, enabled: bool) -> None:
    """Show a footer key enabled or disabled (dimmed) and make a click on it act on that: a
    disabled key rings the bell, an enabled one presses its key.

    A footer redrawn in place (:class:`~medjudge.tui.widgets.KeyFooter`) keeps its key widgets
    when only whether a key is enabled changes; Textual's footer removes and mounts every key
    instead. The look is the public ``-disabled`` class; what a click checks is
    ``FooterKey._disabled``, set when Textual makes the key and read by its mouse handler. The
    public ``Widget.disabled`` instead stops the clicks reaching the key at all, and a key made
    disabled would go on refusing clicks once enabled.
    """
    key.set_class(not enabled, "-disabled")
    key._disabled = not enabled


def intercept_exceptions(app: App[Any], handled: Callable[[Exception], bool]) -> None:
    """Give each exception the app meets first to ``handled(error)``; Textual handles it as
    usual (its traceback on exit) unless that returns True.

    The review app ends on a damaged or unreadable study with the store's one clear line, not
    a traceback, wherever in the app the error is met (a key's action, a timer, a worker).
    Textual has no public hook for an app's exceptions: every one goes through its private
    ``App._handle_exception``, which this wraps for the app given.
    """
    textual_handle = app._handle_exception

    def handle(error: Exception) -> None:
        if not handled(error):
            textual_handle(error)

    app._handle_exception = handle  # type: ignore[method-assign]


async def wait_for_screen(pilot: Pilot[Any]) -> None:
    """Wait, without sleeping, until the app and every widget of its screen have handled the
    messages they had (the benchmarks' key timings, ``benchmarks/bench_review.py``).

    ``Pilot.pause()`` and ``Pilot.press()`` (public) do this too, then wait for the process to
    be idle by sleeping (``wait_for_idle``), which would be counted in each key's time; the
    waiting alone is ``Pilot._wait_for_screen``.
    """
    await pilot._wait_for_screen()


def paint_now(screen: Screen[Any]) -> None:
    """Lay out and draw what the screen has pending now, as its refresh timer would on its next
    tick (the benchmarks' key timings, ``benchmarks/bench_review.py``).

    ``Pilot.pause()`` (public) draws the same way after its sleep; ``Screen.refresh()`` only asks
    for a frame at the timer's next tick. The timer's callback is ``Screen._on_timer_update``.
    """
    screen._on_timer_update()
