"""Every partial frame of a :class:`~medjudge.tui.compositor.ChangedOnlyCompositor` drawn a
second time as Textual's own compositor draws it, and the two written texts compared."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip

from medjudge.tui.compositor import ChangedOnlyCompositor


@dataclass
class FrameCheck:
    """What :func:`frames_checked` saw."""

    frames: int = 0
    """Partial frames drawn both ways (each one's written text equal, or the test failed)."""
    skipped: int = 0
    """Widgets Textual went through in those frames that the changed-only frame did not."""
    differences: list[str] = field(default_factory=list)


@contextmanager
def frames_checked() -> Iterator[FrameCheck]:
    """Within: each partial frame drawn as the app draws it and again as Textual does; the
    texts written to the terminal must be equal (checked on leaving, differences listed)."""
    check = FrameCheck()
    ours = ChangedOnlyCompositor.render_partial_update

    def both(self: ChangedOnlyCompositor) -> ChopsUpdate | None:
        regions = set(self._dirty_regions)
        update, widgets_ours = _counted(self, lambda: ours(self))
        self._dirty_regions.update(regions)
        stock, widgets_stock = _counted(self, lambda: Compositor.render_partial_update(self))
        console = self.root.app.console if self.root is not None else None
        assert console is not None
        text = update.render_segments(console) if update is not None else None
        want = stock.render_segments(console) if stock is not None else None
        check.frames += 1
        check.skipped += widgets_stock - widgets_ours
        if text != want:
            check.differences.append(f"frame {check.frames}: {_first_difference(text, want)}")
        return update

    ChangedOnlyCompositor.render_partial_update = both  # type: ignore[method-assign]
    try:
        yield check
    finally:
        ChangedOnlyCompositor.render_partial_update = ours  # type: ignore[method-assign]
    assert not check.differences, "\n".join(check.differences[:3])


def _counted(
    compositor: ChangedOnlyCompositor, draw: Callable[[], ChopsUpdate | None]
) -> tuple[ChopsUpdate | None, int]:
    """``draw()``'s frame, and how many widgets it went through (``_get_renders`` yields)."""
    renders = compositor._get_renders
    count = 0

    def counting(crop: Region | None = None) -> Iterator[tuple[Region, Region, list[Strip]]]:
        nonlocal count
        for render in renders(crop):
            count += 1
            yield render

    compositor._get_renders = counting  # type: ignore[method-assign]
    try:
        return draw(), count
    finally:
        del compositor._get_renders  # the class's own again


def _first_difference(text: str | None, want: str | None) -> str:
    if text is None or want is None:
        return f"wrote {text!r}, Textual writes {want!r}"
    at = next((i for i, (a, b) in enumerate(zip(text, want, strict=False)) if a != b), None)
    at = min(len(text), len(want)) if at is None else at
    return f"at {at}: wrote {text[at : at + 60]!r}, Textual writes {want[at : at + 60]!r}"
