"""The item kinds as a choice for the command line: one StrEnum member per registered kind
(:data:`medjudge.kinds.KINDS`), so a new kind is a choice of ``--kind`` without an edit here;
a member equals its text, so stored values and comparisons with plain strings keep working."""

from __future__ import annotations

from enum import StrEnum

from medjudge import kinds

ItemKind = StrEnum("ItemKind", {name: name for name in kinds.NAMES})  # type: ignore[misc]
"""What an item asks of its reviewers (a registered kind's name)."""

ITEM_KINDS: tuple[str, ...] = kinds.NAMES
