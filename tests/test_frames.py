"""The answer-letter frame: one conversion between file and display letters, both ways."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from medjudge.kinds.votes import unswap
from medjudge.store.frames import convert, convert_labels, display_order, is_swapped


@dataclass(frozen=True)
class FakeItem:
    kind: str
    swap: bool


SWAPPED = FakeItem("pairwise", True)
PLAIN = FakeItem("pairwise", False)


def test_swapped_item_trades_letters_both_ways() -> None:
    # display A (the left answer of a swapped item) is the file's answer_b, and back
    assert convert("A", is_swapped(SWAPPED)) == "B"
    assert convert("B", is_swapped(SWAPPED)) == "A"
    for v in ("A", "B", "tie", "neither"):
        assert convert(convert(v, True), True) == v
        assert convert(v, is_swapped(PLAIN)) == v


@pytest.mark.parametrize("value", ["tie", "neither", "a", "A,B", "entailed", "3", ""])
def test_everything_but_a_lone_letter_is_unchanged(value: str) -> None:
    assert convert(value, True) == value


@pytest.mark.parametrize("kind", ["statements", "rating"])
def test_non_pairwise_items_are_never_converted(kind: str) -> None:
    item = FakeItem(kind, True)  # even if a swap were recorded for it
    assert not is_swapped(item)
    # a completeness criterion ticking only option A must stay "A"
    assert convert("A", is_swapped(item)) == "A"
    assert display_order(item) is None


def test_label_dicts_round_trip() -> None:
    stored = {1: "A", 2: "B", 3: "tie", 4: "neither"}
    shown = convert_labels(stored, True)
    assert shown == {1: "B", 2: "A", 3: "tie", 4: "neither"}
    assert convert_labels(shown, True) == stored
    assert convert_labels(stored, False) == stored


def test_display_order_names_the_file_letter_shown_first() -> None:
    assert display_order(SWAPPED) == "BA"
    assert display_order(PLAIN) == "AB"


def test_the_judges_ba_order_uses_the_same_conversion() -> None:
    for v in ("A", "B", "tie", "neither"):
        assert unswap(v) == convert(v, True)
