"""The item kinds a study holds (one StrEnum: a member equals its text, so stored values and
comparisons with plain strings keep working)."""

from __future__ import annotations

from enum import StrEnum


class ItemKind(StrEnum):
    """What an item asks of its reviewers."""

    pairwise = "pairwise"
    """Two answers compared on criteria (A / B / tie / neither)."""
    statements = "statements"
    """One answer checked against physician statements (entailed / neutral / contradicted)."""
    rating = "rating"
    """An explanation rated on Likert scales and option completeness."""
    match = "match"
    """A (RAG) answer scored against the ground truth: 1 / 0.5 / 0 (MedRGB)."""


ITEM_KINDS: tuple[str, ...] = tuple(k.value for k in ItemKind)
