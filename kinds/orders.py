"""Orders of an item's answers: permutations of its answer slots, and letters through them.

An item's answers sit in *slots* named by capital letters (``A``, ``B``, … in the import file's
order). An *order* is a string of those letters, first shown first: ``"BA"`` shows the file's
answer B first. A kind that shuffles its answers (:attr:`~.base.Kind.shuffles_answers`) gives
each item a seeded order (:func:`permutation`); its judge asks in the kind's set of orders
(:func:`rotations`: ``AB``/``BA`` for two answers, ``ABC``/``BCA``/``CAB`` for three).

A letter in an order's frame (``A`` = the answer shown first) turns into the file's letter with
:func:`to_file` and back with :func:`to_display`. For two answers both are the same swap; for
more they are inverse permutations. Anything that is not a lone slot letter (``tie``,
``neither``, ``entailed``, ``3``) passes through unchanged.

This module is the bottom layer: it imports nothing from medjudge.
"""

from __future__ import annotations

import hashlib
import math
import string
from collections.abc import Iterable, Sequence

SLOTS = string.ascii_uppercase
"""Slot letters, in file order."""


def slots(n: int) -> str:
    """The first ``n`` slot letters: ``slots(3) == "ABC"`` (the identity order)."""
    return SLOTS[:n]


def slots_of(positions: Iterable[str]) -> str:
    """The slot letters among an item's answer positions, in file order (``answer`` and
    ``explanation`` are not lettered slots): ``slots_of(["B", "A"]) == "AB"``."""
    return "".join(sorted(p for p in positions if len(p) == 1 and p in SLOTS))


def is_order(order: str) -> bool:
    """Whether ``order`` is a permutation of the first ``len(order)`` slot letters."""
    return bool(order) and sorted(order) == list(slots(len(order)))


def to_file(value: str, order: str | None) -> str:
    """A letter in ``order``'s frame (``A`` = shown first) → the file's letter."""
    if order is None or len(value) != 1:
        return value
    index = SLOTS.find(value)
    return order[index] if 0 <= index < len(order) else value


def to_display(value: str, order: str | None) -> str:
    """A file letter → its letter in ``order``'s frame (the inverse of :func:`to_file`)."""
    if order is None or len(value) != 1:
        return value
    index = order.find(value)
    return SLOTS[index] if index >= 0 else value


def permutation(digest: bytes, letters: Sequence[str]) -> str:
    """The seeded permutation of ``letters`` that ``digest`` picks, uniformly enough (a 256-bit
    digest over at most a few hundred orders).

    The orders are numbered lexicographically and the digest, read little-endian, picks one:
    for two letters the low bit of the first byte says whether they trade places.
    """
    pool = list(letters)
    k = int.from_bytes(digest, "little") % math.factorial(len(pool))
    out = []
    for n in range(len(pool), 0, -1):
        step = math.factorial(n - 1)
        out.append(pool.pop(k // step))
        k %= step
    return "".join(out)


def seeded(parts: str, letters: Sequence[str]) -> str:
    """:func:`permutation` of ``letters`` from the SHA-256 of ``parts``."""
    return permutation(hashlib.sha256(parts.encode()).digest(), letters)


def rotations(letters: str) -> tuple[str, ...]:
    """Every rotation of ``letters``, the identity first: each answer is shown in each place
    once, which balances position bias with ``len(letters)`` orders rather than all ``n!``."""
    return tuple(letters[i:] + letters[:i] for i in range(len(letters)))
