"""The answer-letter frame: the one conversion between file letters and display letters.

docs/design.md §2 "Answer-letter frame": ``A``/``B`` always mean the import file's ``answer_a`` /
``answer_b`` (the *file frame*) — in the store, exports, reports, the CLI and every screen
except the reviewer's own review screen. That screen shows a pairwise item's answers in the
item's display order (``items.swap``: answer B on the left when set; with ``settings --order
per-reviewer`` the reviewer's own, :func:`store.items.seen_by`) and speaks in *display* letters
(``A`` = the answer shown first); it converts at the edge with :func:`convert`, both ways. The
order a reviewer saw is stored with each label (``labels.display_order``). The judge's BA order
is the same swap and uses the same function.

Free text (notes, rationales) cannot be converted, so each records the frame it was written
in (:data:`FILE` or :data:`DISPLAY`; NULL for rows written before migration 003).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, TypeVar

from medjudge import kinds

FILE: Literal["file"] = "file"
"""Letters of the import file: ``A`` = ``answer_a``."""
DISPLAY: Literal["display"] = "display"
"""Letters of the reviewer's review screen: ``A`` = the answer shown first (left/top)."""

Frame = Literal["file", "display"]
"""The two frames a value or a note can be in."""

FRAME_HINT = "file order: A = answer_a, B = answer_b"
"""How screens and messages say that their letters are in the file frame."""

_OTHER = {"A": "B", "B": "A"}

K = TypeVar("K")


class Swappable(Protocol):
    """Anything with an item's kind and display swap (``store.items.Item`` is one)."""

    @property
    def kind(self) -> str:
        """The item's kind; only ``pairwise`` items have a display order."""
        ...

    @property
    def swap(self) -> bool:
        """Whether the item shows answer B first."""
        ...


def is_swapped(item: Swappable) -> bool:
    """Whether an item's display letters differ from its file letters (swapped pairwise item)."""
    return kinds.get(item.kind).display_swap and bool(item.swap)


def convert(value: str, swapped: bool) -> str:
    """Convert a pairwise value between the file frame and a swapped order, either way.

    The mapping is its own inverse, so the same call takes a display letter to the file letter
    and back: with ``swapped`` (:func:`is_swapped`, or the judge's BA order) ``A`` and ``B``
    trade places; ``tie``, ``neither`` and every non-letter value stay as they are. Callers pass
    ``swapped=False`` for anything that is not a pairwise item, which is then left untouched.

    Args:
        value: a verdict or label value.
        swapped: whether the order the value is expressed in (or wanted in) is swapped.

    Returns:
        The value in the other frame.
    """
    return _OTHER.get(value, value) if swapped else value


def convert_labels(labels: Mapping[K, str], swapped: bool) -> dict[K, str]:
    """:func:`convert` applied to every value of a mapping (e.g. unit id → label), either way."""
    return {key: convert(value, swapped) for key, value in labels.items()}


def display_order(item: Swappable) -> str | None:
    """The order a reviewer sees a pairwise item's answers in: ``"AB"`` or ``"BA"`` (file
    letters, first shown first); None for items that are not pairwise."""
    if not kinds.get(item.kind).display_swap:
        return None
    return "BA" if item.swap else "AB"
