"""The answer-letter frame: file letters and display letters through an item's order, both ways,
for two answers (a swap) and for more (a permutation and its inverse)."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import pytest

from medjudge.kinds import orders
from medjudge.store.frames import (
    is_reordered,
    labels_to_display,
    labels_to_file,
    shown_order,
    to_display,
    to_file,
)


@dataclass(frozen=True)
class FakeItem:
    kind: str
    order: str | None


SWAPPED = FakeItem("pairwise", "BA")
PLAIN = FakeItem("pairwise", "AB")


def test_swapped_item_trades_letters_both_ways() -> None:
    # display A (the left answer of a swapped item) is the file's answer_b, and back
    order = shown_order(SWAPPED)
    assert to_file("A", order) == "B" and to_file("B", order) == "A"
    assert to_display("A", order) == "B" and to_display("B", order) == "A"
    for v in ("A", "B", "tie", "neither"):
        assert to_display(to_file(v, order), order) == v
        assert to_file(v, shown_order(PLAIN)) == v
    assert is_reordered(SWAPPED) and not is_reordered(PLAIN)


@pytest.mark.parametrize("value", ["tie", "neither", "a", "A,B", "entailed", "3", "", "Z"])
def test_everything_but_a_slot_letter_is_unchanged(value: str) -> None:
    assert to_file(value, "BA") == value and to_display(value, "CAB") == value


@pytest.mark.parametrize("kind", ["statements", "rating"])
def test_items_of_kinds_that_do_not_shuffle_are_never_converted(kind: str) -> None:
    item = FakeItem(kind, "BA")  # even if an order were recorded for it
    assert shown_order(item) is None and not is_reordered(item)
    # a completeness criterion ticking only option A must stay "A"
    assert to_file("A", shown_order(item)) == "A"


def test_label_dicts_round_trip() -> None:
    stored = {1: "A", 2: "B", 3: "tie", 4: "neither"}
    shown = labels_to_display(stored, "BA")
    assert shown == {1: "B", 2: "A", 3: "tie", 4: "neither"}
    assert labels_to_file(shown, "BA") == stored
    assert labels_to_display(stored, "AB") == stored


def test_three_answers_convert_through_the_permutation_and_its_inverse() -> None:
    # order CAB: the file's C is shown first (display A), then A (display B), then B
    assert [to_file(d, "CAB") for d in "ABC"] == ["C", "A", "B"]
    assert [to_display(f, "CAB") for f in "ABC"] == ["B", "C", "A"]
    for order in map("".join, itertools.permutations("ABCD")):
        for letter in "ABCD":
            assert to_display(to_file(letter, order), order) == letter
            assert to_file(to_display(letter, order), order) == letter


def test_seeded_orders_cover_every_permutation_evenly() -> None:
    for n in (2, 3, 4):
        letters = orders.slots(n)
        seen = Counter(orders.seeded(f"7:item-{i}", letters) for i in range(2400))
        every = {"".join(p) for p in itertools.permutations(letters)}
        assert set(seen) == every
        expected = 2400 / len(every)
        assert all(0.7 * expected < c < 1.3 * expected for c in seen.values()), seen
        assert all(orders.is_order(o) for o in seen)


def test_two_answers_keep_the_swap_bit_of_earlier_versions() -> None:
    # the order of a two-answer item is BA exactly when the old swap bit (the low bit of the
    # digest's first byte) was set: studies made before orders were permutations reimport alike
    import hashlib

    for i in range(200):
        digest = hashlib.sha256(f"3:item-{i}".encode()).digest()
        assert (orders.seeded(f"3:item-{i}", "AB") == "BA") == bool(digest[0] & 1)


def test_rotations_show_each_answer_in_each_place_once() -> None:
    for n in (2, 3, 5):
        rot = orders.rotations(orders.slots(n))
        assert len(rot) == n and rot[0] == orders.slots(n)
        for place in range(n):
            assert sorted(o[place] for o in rot) == list(orders.slots(n))
    assert orders.rotations("AB") == ("AB", "BA")
