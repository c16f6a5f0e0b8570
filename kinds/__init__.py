"""The item kinds, one package each (``kinds/<name>/``), and their registry: the store, the judges, the app and the
commands iterate over :data:`KINDS` and ask a kind (:class:`~.base.Kind`) what differs,
instead of branching on its name. Adding a kind is a package here and a line below."""

from __future__ import annotations

from .base import Kind, ValueKey, sql_names
from .match import KIND as MATCH
from .pairwise import KIND as PAIRWISE
from .ranking import KIND as RANKING
from .rating import KIND as RATING
from .rubric import KIND as RUBRIC
from .statements import KIND as STATEMENTS

KINDS: dict[str, Kind] = {k.name: k for k in (PAIRWISE, STATEMENTS, RATING, MATCH, RUBRIC, RANKING)}
"""Every item kind by name, in the order the app and the reports list them."""

NAMES: tuple[str, ...] = tuple(KINDS)


def where(flag: str) -> tuple[str, ...]:
    """The names of the kinds whose boolean attribute ``flag`` is true."""
    return tuple(k.name for k in KINDS.values() if getattr(k, flag))


class UnknownKind(KeyError):
    """A kind name that is not registered."""


def get(name: str) -> Kind:
    """The kind called ``name``.

    Raises:
        UnknownKind: naming the known kinds.
    """
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(f"unknown item kind {name!r} (known: {', '.join(NAMES)})") from None


__all__ = [
    "KINDS",
    "NAMES",
    "Kind",
    "UnknownKind",
    "ValueKey",
    "get",
    "sql_names",
    "where",
]
