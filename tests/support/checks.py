"""Narrowing for tests: a value the test expects to be there, or a clear failure."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def some(value: T | None) -> T:
    """``value``, asserted present (a test's expectation, and mypy's narrowing)."""
    assert value is not None, "expected a value, got None"
    return value
