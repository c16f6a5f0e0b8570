"""Textual's private API is used in one module, ``tui/textual_private.py``, and what it uses
still works.

The product (the packages, the benchmarks, the scripts) is read for two things outside that
module: an import of a Textual module whose dotted path has a part starting with ``_``
(``textual._compositor``, ``textual.widgets._footer``, ``from textual import _x``); and a
Textual private name used. A private name of Textual is one with a leading underscore (not a
dunder) that a class in the installed Textual's source defines, assigns or reads on ``self``.
It is used when a product module reads or sets it on anything but a bare ``self`` or ``cls``
(``app._driver``, ``super()._size_updated``); and when a product class that derives from a
Textual class defines or uses on ``self`` a private name one of its Textual bases has (an
override of ``_size_updated``, ``self._vertical_scrollbar``), or a handler in Textual's private
spelling (``_on_key``, ``_watch_x``).

Then each function of the module runs against the installed Textual (CI runs the floor,
8.2.0, and the newest), so an upgrade that breaks one fails here.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import importlib
import inspect
import textwrap
from pathlib import Path
from typing import Any

import pytest
import textual
from rich.segment import Segment
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer

from medjudge.tui import textual_private

from .support.tree import PRODUCT, REPO, TOOLS, python_files
from .support.tui import run_async

ALLOWED = REPO / "tui" / "textual_private.py"
NOT_CODE = {REPO / "scripts" / "vulture_allow.py"}
"""Read by vulture only, never imported: its lines name attributes (``_._disabled``) so that
vulture counts them used."""
HANDLER_PREFIXES = ("_on_", "_watch_", "_compute_", "_validate_")
"""Textual calls methods spelled so as its private handlers, watchers and validators."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _modules() -> dict[Path, ast.Module]:
    return {
        p: ast.parse(p.read_text(encoding="utf-8"))
        for p in python_files(PRODUCT + TOOLS)
        if p != ALLOWED and p not in NOT_CODE
    }


def _textual_module(name: str | None) -> bool:
    return name is not None and name.split(".")[0] == "textual"


def _private_imports(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if _textual_module(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _textual_module(node.module):
            assert node.module is not None
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(map(_private, node.module.split("."))):
                names = [node.module]  # the module, once
        else:
            continue
        found += [f"line {node.lineno}: {n}" for n in names if any(map(_private, n.split(".")))]
    return found


def _self_names(source: str) -> set[str]:
    """Private names a class's source defines in its body or uses on ``self``."""
    tree = ast.parse(textwrap.dedent(source))
    names: set[str] = set()
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    for inner in ast.walk(cls):
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name):
            if inner.value.id == "self":
                names.add(inner.attr)
    return {n for n in names if _private(n)}


@functools.cache
def _textual_names() -> frozenset[str]:
    """Every private name a class of the installed Textual defines or uses on ``self``."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names |= _self_names(ast.unparse(node))
    return frozenset(names)


@functools.cache
def _class_names(cls: type) -> frozenset[str]:
    try:
        return frozenset(_self_names(inspect.getsource(cls)))
    except (OSError, TypeError):  # defined where its source cannot be read
        return frozenset(k for k in vars(cls) if _private(k))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if parts[0] in TOOLS or parts[0] == "medjudge" else ["medjudge", *parts])


def _textual_subclasses(module: object) -> list[type]:
    found: list[type] = []
    todo = [v for v in vars(module).values() if isinstance(v, type)]
    while todo:
        cls = todo.pop()
        if cls.__module__ != getattr(module, "__name__", None) or cls in found:
            continue
        todo += [v for v in vars(cls).values() if isinstance(v, type)]  # nested classes
        if any(_textual_module(b.__module__) for b in cls.__mro__):
            found.append(cls)
    return found


def test_no_module_but_textual_private_imports_a_private_textual_module() -> None:
    found = {
        p.relative_to(REPO).as_posix(): hits
        for p, tree in _modules().items()
        if (hits := _private_imports(tree))
    }
    assert not found, f"private Textual modules imported outside tui/textual_private.py: {found}"


def test_no_module_but_textual_private_reads_a_private_textual_name() -> None:
    private = _textual_names()
    assert {"_size_updated", "_scroll_update", "_compositor", "_start_widget"} <= private
    found = [
        f"{p.relative_to(REPO).as_posix()}:{node.lineno}: {ast.unparse(node)}"
        for p, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in private
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert not found, "Textual's private names used outside tui/textual_private.py:\n" + "\n".join(
        found
    )


def test_no_class_deriving_from_textual_overrides_or_uses_its_private_names() -> None:
    found = set()
    checked = 0
    for path, tree in _modules().items():
        if not any(_textual_module(m) for m in _imported(tree)):
            continue
        module = importlib.import_module(_module_name(path))
        for cls in _textual_subclasses(module):
            checked += 1
            found |= {f"{cls.__module__}.{cls.__qualname__}: {hit}" for hit in _private_uses(cls)}
    assert checked > 20, f"only {checked} classes deriving from Textual's were found"
    assert not found, "\n".join(sorted(set(found)))


def _ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("medjudge", *TOOLS)


def _private_uses(cls: type) -> list[str]:
    """The private names of its Textual bases that a class (or a mixin of ours it is made of)
    defines or uses on ``self``, and its handlers in Textual's private spelling."""
    private = set().union(*(_class_names(b) for b in cls.__mro__ if _textual_module(b.__module__)))
    found = []
    for base in cls.__mro__:
        if base is cls or _ours(base):
            names = _class_names(base)
            hits = names & private | {n for n in names if n.startswith(HANDLER_PREFIXES)}
            found += [f"{base.__name__}.{name}" for name in sorted(hits)]
    return found


def _imported(tree: ast.Module) -> list[str | None]:
    return [
        *(a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names),
        *(n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0),
    ]


def test_the_check_sees_each_kind_of_use() -> None:
    """The readers above find what they are for (so a check that finds nothing means it)."""
    code = ast.parse(
        "from textual._compositor import Compositor\n"
        "from textual.widgets import _footer\n"
        "import textual.widgets._footer\n"
        "from textual.widgets import Footer\n"
    )
    assert len(_private_imports(code)) == 3
    source = "class C:\n    def _size_updated(self):\n        self._vertical_scrollbar = 1\n"
    assert _self_names(source) == {"_size_updated", "_vertical_scrollbar"}
    assert {"_size_updated", "_vertical_scrollbar"} <= _textual_names()
    assert _private_uses(Overriding) == [
        "Overriding._on_key",
        "Overriding._size_updated",
        "Overriding._vertical_scrollbar",
    ]
    assert _private_uses(Lines) == []  # what textual_private.py lets a widget do


class Overriding(ScrollView):
    """What the check refuses: an override of a private method, a private attribute of its
    base on ``self``, a handler in Textual's private spelling."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        self._vertical_scrollbar = None
        return super()._size_updated(size, virtual_size, container_size, layout)

    async def _on_key(self, event: events.Key) -> None:
        pass


# -- each function of tui/textual_private.py against the installed Textual ----------------------


class Lines(ScrollView):
    """A line-drawn view of blank lines, its scrollbar made by us; it notes when it is laid
    out and what it draws."""

    DEFAULT_CSS = """
    Lines { height: 1fr; overflow-y: auto; overflow-x: hidden; scrollbar-size-vertical: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int]] = []
        textual_private.on_size_set(self, self.laid_out)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return textual_private.own_vertical_scrollbar(self, lambda: OurBar(vertical=True))

    def laid_out(self) -> None:
        self.events.append(("laid out", self.scrollable_content_region.width))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        self.events.append(("drawn", width))
        return Strip.blank(width)


class OurBar(ScrollBar):
    drawn = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        OurBar.drawn += 1
        return super().render_lines(crop)


class LinesApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield Lines()


@run_async
async def test_a_view_s_scroll_range_and_scrollbar_change_with_no_layout() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 10)) as pilot:
        view = app.query_one(Lines)
        await pilot.pause()
        layouts: list[Screen[Any]] = []
        app.screen.screen_layout_refresh_signal.subscribe(view, layouts.append)
        assert not view.show_vertical_scrollbar
        textual_private.set_virtual_size(view, Size(30, 40))
        assert view.virtual_size == Size(30, 40)
        assert view.show_vertical_scrollbar  # in place at once, before any layout
        bar = view.vertical_scrollbar
        assert isinstance(bar, OurBar) and bar.window_virtual_size == 40
        assert view.max_scroll_y == 40 - view.scrollable_content_region.height
        for _ in range(20):  # the layout the scrollbar's coming asks for, and what follows it
            layouts.clear()
            await pilot.pause(0.05)
            if not layouts:
                break
        textual_private.set_virtual_size(view, Size(29, 60))  # the scrollbar stays: no layout
        await pilot.pause()
        assert bar.window_virtual_size == 60 and not layouts
        view.scroll_to(y=50, animate=False, immediate=True)
        assert view.scroll_y == 60 - view.scrollable_content_region.height


@run_async
async def test_our_scrollbar_is_the_one_textual_places_and_draws() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 10)) as pilot:
        view = app.query_one(Lines)
        textual_private.set_virtual_size(view, Size(30, 40))
        OurBar.drawn = 0
        await pilot.pause()
        bar = view.vertical_scrollbar
        assert bar is view.vertical_scrollbar  # made once
        assert isinstance(bar, OurBar) and bar.parent is view and bar.display
        assert bar.region.width == 1 and bar.region.height == view.region.height
        assert OurBar.drawn > 0
        await pilot.click(bar, offset=(0, bar.region.height - 1))  # its mouse actions work
        await pilot.pause()
        assert view.scroll_y > 0


@run_async
async def test_a_widget_is_told_its_size_before_the_frame_that_draws_it() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 10)) as pilot:
        view = app.query_one(Lines)
        await pilot.pause()
        assert ("laid out", 30) in view.events
        view.events.clear()
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        drawn = [i for i, (what, width) in enumerate(view.events) if what == "drawn"]
        assert drawn and view.events[drawn[0]] == ("drawn", 40)
        assert ("laid out", 40) in view.events[: drawn[0]]
        # a scrollbar coming narrows what is drawn, the widget's size the same: told too
        view.events.clear()
        size = view.size
        textual_private.set_virtual_size(view, Size(40, 40))
        await pilot.pause()
        assert view.size == size and ("laid out", 39) in view.events


class KeysApp(App[None]):
    BINDINGS = [Binding("x", "hit", "Hit")]
    ENABLE_COMMAND_PALETTE = False

    def __init__(self) -> None:
        super().__init__()
        self.hits = 0
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield Footer()

    def action_hit(self) -> None:
        self.hits += 1

    def bell(self) -> None:
        self.bells += 1


@run_async
async def test_footer_keys_are_found_and_enabled_or_disabled_in_place() -> None:
    app = KeysApp()
    async with app.run_test(size=(40, 5)) as pilot:
        for _ in range(5):  # the footer composes its keys once the bindings are known
            await pilot.pause(0.05)
        footer = app.query_one(Footer)
        keys = textual_private.footer_keys(footer)
        assert [(k.key, k.description) for k in keys] == [("x", "Hit")]
        key = keys[0]
        textual_private.set_footer_key_enabled(key, False)
        assert key.has_class("-disabled")
        await pilot.click(key)
        await pilot.pause()
        assert (app.hits, app.bells) == (0, 1)  # a disabled key rings the bell
        textual_private.set_footer_key_enabled(key, True)
        assert not key.has_class("-disabled")
        await pilot.click(key)
        await pilot.pause()
        assert (app.hits, app.bells) == (1, 1)
        assert textual_private.footer_keys(footer) == [key]  # the same widget, in place


class Boom(Exception):
    pass


class FailingScreen(Screen[None]):
    def on_key(self, event: events.Key) -> None:
        raise Boom(event.key)


class FailingApp(App[None]):
    def __init__(self, take: bool) -> None:
        super().__init__()
        self.take = take
        self.seen: list[Exception] = []
        textual_private.intercept_exceptions(self, self.handled)

    def get_default_screen(self) -> Screen[None]:
        return FailingScreen()

    def handled(self, error: Exception) -> bool:
        """Taken: the app ends as the review app does on a damaged study (the screen that
        raised handles no more messages)."""
        self.seen.append(error)
        if self.take:
            self.exit(return_code=3)
        return self.take


async def _key_and_end(app: App[None], key: str) -> None:
    """Send a key to the app's screen and wait for the app to end."""
    app.post_message(events.Key(key, key))
    for _ in range(500):
        if app.return_code is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the app did not end")


@run_async
async def test_an_app_s_exceptions_go_to_its_handler_first() -> None:
    app = FailingApp(take=True)
    async with app.run_test():
        await _key_and_end(app, "x")
    assert [str(e) for e in app.seen] == ["x"]
    assert app.return_code == 3  # the handler's, and no exception for run_test to raise


@run_async
async def test_an_exception_the_handler_leaves_is_textual_s_to_handle() -> None:
    app = FailingApp(take=False)
    with pytest.raises(Boom):  # Textual's handling: kept, raised again by run_test
        async with app.run_test():
            await _key_and_end(app, "y")
    assert [str(e) for e in app.seen] == ["y"]
    assert app.return_code == 1


class Note(Message):
    pass


class Counter(Widget):
    def __init__(self) -> None:
        super().__init__()
        self.notes = 0
        self.renders = 0

    def on_note(self, message: Note) -> None:
        self.notes += 1

    def render_line(self, y: int) -> Strip:
        self.renders += 1
        return Strip([Segment(f"{self.notes}")])


class CounterApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Counter()


@run_async
async def test_waiting_for_the_screen_and_painting_now() -> None:
    app = CounterApp()
    async with app.run_test(size=(20, 3)) as pilot:
        counter = app.query_one(Counter)
        await pilot.pause()
        counter.post_message(Note())
        await textual_private.wait_for_screen(pilot)
        assert counter.notes == 1  # handled, with no sleep
        for _ in range(50):
            before = counter.renders
            counter.refresh()
            await textual_private.wait_for_screen(pilot)  # the refresh reaches the screen
            await textual_private.wait_for_screen(pilot)
            if counter.renders > before:
                continue  # the refresh timer drew it first: again
            textual_private.paint_now(app.screen)
            assert counter.renders > before  # drawn now, not at the timer's next tick
            break
        else:
            pytest.fail("the refresh timer always drew first")
