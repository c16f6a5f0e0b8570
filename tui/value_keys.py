"""The label keys of every item kind, bound once for the review and the adjudication screens.

Each kind's keys (:meth:`medjudge.kinds.base.Kind.possible_keys`) become one binding each,
``ACTION('KIND', 'VALUE')``; a screen lets a binding through only on a unit of that kind whose
criterion takes that value (:func:`applies`). The review and the adjudication app therefore
answer the same keys for the same kind, and a new kind brings its keys with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Protocol

from textual.actions import parse
from textual.binding import Binding, BindingType

from medjudge import kinds
from medjudge.store.settings import Criterion


def _key_order() -> list[str]:
    """Every kind's keys in one order that keeps each kind's own order where the kinds allow
    it (the footer lists a key where it first appears: pairwise ``a b t n`` and statements
    ``e n c`` give ``a b t e n c``)."""
    merged: list[str] = []
    for kind in kinds.KINDS.values():
        keys = [k.key for k in kind.possible_keys()]
        for i, key in enumerate(keys):
            if key in merged:
                continue
            later = next((k for k in keys[i + 1 :] if k in merged), None)
            merged.insert(merged.index(later) if later is not None else len(merged), key)
    return merged


def value_bindings(action: str) -> list[BindingType]:
    """One binding per kind and key: ``action('kind', 'value')``."""
    out: list[BindingType] = []
    for key in _key_order():
        for kind in kinds.KINDS.values():
            group = Binding.Group(kind.key_group, compact=True) if kind.key_group else None
            for k in kind.possible_keys():
                if k.key == key:
                    action_text = f"{action}('{kind.name}', '{k.value}')"
                    out.append(Binding(k.key, action_text, k.label, group=group))
    return out


def applies(parameters: tuple[object, ...], item_kind: str, criterion: Criterion) -> bool:
    """Whether a value binding (its parameters: kind name, value) applies to a unit of
    ``criterion`` on an item of ``item_kind``."""
    kind_name, value = parameters
    if kind_name != item_kind:
        return False
    return any(k.value == value for k in kinds.get(item_kind).value_keys(criterion))


KeyActions = dict[str, list[tuple[str, tuple[object, ...]]]]
_KEY_ACTIONS: dict[type, KeyActions] = {}


class KeyedScreen(Protocol):
    """A screen's bindings and its check of them (Textual's ``Screen`` has both)."""

    BINDINGS: ClassVar[list[BindingType]]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None: ...


def _key_actions(screen: KeyedScreen) -> KeyActions:
    """Each key of a screen class's bindings → the (action, parameters) it may run, in order
    (worked out once per class)."""
    out = _KEY_ACTIONS.get(type(screen))
    if out is None:
        out = _KEY_ACTIONS[type(screen)] = {}
        for binding in screen.BINDINGS:
            if isinstance(binding, Binding):
                _, name, params = parse(binding.action)
                for key in binding.key.split(","):
                    out.setdefault(key, []).append((name, params))
    return out


def label_key_unused(screen: KeyedScreen, key: str, label_actions: Iterable[str]) -> bool:
    """Whether ``key``, one no binding took (the app sees every key, taken or not), is a label
    key of ``screen`` (one of its bindings runs one of ``label_actions``) that does nothing
    where the screen is. Asked of the screen's own ``check_action``, for that key's bindings
    only: Textual's ``active_bindings`` checks every binding of the screen (0.8 ms a key on
    the review screen)."""
    actions = _key_actions(screen).get(key, [])
    if any(screen.check_action(name, params) for name, params in actions):
        return False
    return any(name in label_actions for name, _ in actions)
