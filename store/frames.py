"""The answer-letter frame: the one conversion between file letters and display letters.

docs/design.md §2 "Answer-letter frame": ``A``/``B``/… always mean the import file's answers in
their slots (``answer_a``, ``answer_b``; the *file frame*) — in the store, exports, reports, the
CLI and every screen except the reviewer's own review screen. That screen shows the answers of
an item whose kind shuffles them in the item's display order (``items.shown_order``, a
permutation of its slots such as ``BA`` or ``CAB``; with ``settings --order per-reviewer`` the
reviewer's own, :func:`store.items.seen_by`) and speaks in *display* letters (``A`` = the answer
shown first); it converts at the edge with :func:`to_file` and :func:`to_display`. The order a
reviewer saw is stored with each label (``labels.display_order``). The judge's orders (``BA``,
the rotations of three answers) are orders like these and use the same functions
(:mod:`medjudge.kinds.orders`).

Free text (notes, rationales) cannot be converted, so each records the frame it was written
in (:data:`FILE` or :data:`DISPLAY`; NULL for rows written before migration 003).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol, TypeVar

from medjudge import kinds
from medjudge.kinds import orders

FILE: Literal["file"] = "file"
"""Letters of the import file: ``A`` = ``answer_a``."""
DISPLAY: Literal["display"] = "display"
"""Letters of the reviewer's review screen: ``A`` = the answer shown first (left/top)."""

Frame = Literal["file", "display"]
"""The two frames a value or a note can be in."""


def frame_hint(kind: str) -> str:
    """How screens and messages say that their letters are in the file frame, for a kind
    (``file order: A = answer_a, B = answer_b``)."""
    return f"file order: {kinds.get(kind).letters}"


K = TypeVar("K")


class Ordered(Protocol):
    """Anything with an item's kind and display order (``store.items.Item`` is one)."""

    @property
    def kind(self) -> str:
        """The item's kind; only kinds that shuffle answers have a display order."""
        ...

    @property
    def order(self) -> str | None:
        """The item's answer slots in the order shown, first first (None: not shuffled)."""
        ...


def shown_order(item: Ordered) -> str | None:
    """The order a reviewer sees an item's answers in (``"AB"``, ``"BA"``, ``"CAB"``: file
    letters, first shown first); None for items whose kind does not shuffle its answers."""
    if not kinds.get(item.kind).shuffles_answers:
        return None
    return item.order


def is_reordered(item: Ordered) -> bool:
    """Whether an item's display letters differ from its file letters."""
    order = shown_order(item)
    return order is not None and order != orders.slots(len(order))


def to_file(value: str, order: str | None) -> str:
    """A display letter (``A`` = shown first) → the file's letter; every other value as it is.
    Callers pass ``order=None`` for an item that is not reordered, which is then untouched."""
    return orders.to_file(value, order)


def to_display(value: str, order: str | None) -> str:
    """A file letter → the letter it is shown as in ``order`` (the inverse of :func:`to_file`)."""
    return orders.to_display(value, order)


def labels_to_display(labels: Mapping[K, str], order: str | None) -> dict[K, str]:
    """:func:`to_display` applied to every value of a mapping (e.g. unit id → label)."""
    return {key: to_display(value, order) for key, value in labels.items()}


def labels_to_file(labels: Mapping[K, str], order: str | None) -> dict[K, str]:
    """:func:`to_file` applied to every value of a mapping."""
    return {key: to_file(value, order) for key, value in labels.items()}
