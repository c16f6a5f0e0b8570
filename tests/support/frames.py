"""Every partial frame of a :class:`~medjudge.tui.compositor.ChangedOnlyCompositor` drawn a
second time as Textual's own compositor draws it, and the two written texts compared."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

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
        update = ours(self)
        widgets_ours = _count(self, regions, changed_only=True)
        self._dirty_regions.update(regions)
        stock = Compositor.render_partial_update(self)
        widgets_stock = _count(self, regions, changed_only=False)
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


def _count(compositor: ChangedOnlyCompositor, parts: set[Region], *, changed_only: bool) -> int:
    """The widgets a partial frame of these regions goes through, drawn either way."""
    if not parts:
        return 0
    crop = Region.from_union(parts)
    count = 0
    for region, clip in compositor.visible_widgets.values():
        shown = region.intersection(clip)
        if not shown.area:
            continue
        if changed_only:
            count += any(shown.overlaps(part) for part in parts)
        else:
            count += crop.overlaps(clip)
    return count


def _first_difference(text: str | None, want: str | None) -> str:
    if text is None or want is None:
        return f"wrote {text!r}, Textual writes {want!r}"
    at = next((i for i, (a, b) in enumerate(zip(text, want, strict=False)) if a != b), None)
    at = min(len(text), len(want)) if at is None else at
    return f"at {at}: wrote {text[at : at + 60]!r}, Textual writes {want[at : at + 60]!r}"
