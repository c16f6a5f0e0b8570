"""The judge facet of the item kinds: what a judge is asked about an item and how its samples
become one verdict per unit — as plain data and pure functions, so that ``judging`` runs,
caches and stores the calls of every kind the same way and never branches on a kind.

A kind's :meth:`~.base.Kind.judge_asks` turns an item into :class:`Ask` objects (a prompt
task, the values its template is filled with, the JSON schema of the reply and how to read
the reply); ``judging.protocol.plan`` renders each ask once per sample. After the calls ran,
:meth:`~.base.Kind.judge_resolve` gets the valid samples of each task (:class:`Samples`) and
returns one :class:`Verdict` per unit, following the voting rules in :mod:`.votes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class AnswerLike(Protocol):
    """An answer of an item (``store.items.Answer``)."""

    @property
    def text(self) -> str: ...


class StatementLike(Protocol):
    """A listed entry of an item (``store.items.Statement``)."""

    @property
    def id(self) -> int: ...
    @property
    def position(self) -> int: ...
    @property
    def text(self) -> str: ...


class UnitLike(Protocol):
    """A labelled unit (``store.items.Unit``)."""

    @property
    def id(self) -> int: ...
    @property
    def criterion(self) -> str: ...
    @property
    def statement_id(self) -> int | None: ...


class ItemLike(Protocol):
    """What a kind's judge facet reads of an item (``store.items.Item`` satisfies it)."""

    @property
    def question(self) -> str: ...
    @property
    def context(self) -> list[str]: ...
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def answers(self) -> Mapping[str, Any]: ...
    @property
    def statements(self) -> Sequence[Any]: ...
    def unit_for(self, criterion: str, statement_id: int | None = None) -> Any: ...


@dataclass(frozen=True)
class Prompt:
    """One prompt task a kind's judge calls use, and its bundled template file."""

    task: str
    """The task's name (``nli``); a call's task is ``NAME`` or ``NAME/SUFFIX``."""
    file: str
    """The bundled template (``prompts/FILE.txt``)."""
    needs: frozenset[str]
    """Placeholders a template for the task must carry."""
    may: frozenset[str] = frozenset({"context"})
    """Placeholders it may carry."""
    protocol: str | None = None
    """The statements protocol the prompt belongs to (None: every protocol)."""
    keyed: bool = True
    """Whether the bundled template's hash is part of every judge version's key. Prompts of
    kinds added after version keys existed are not (else every judge of every older study
    would become a new version); a custom template of theirs always is."""
    reply_before_forms: Mapping[str, Any] | None = field(default=None, compare=False)
    """How a reply to a call of this task is read when the call was recorded before replies
    named their form (a batch submitted by an older medjudge); None: the task is newer."""


@dataclass(frozen=True)
class JudgePlan:
    """How a judge labels the units of an item of this kind."""

    prompts: tuple[Prompt, ...]
    orders: tuple[str, ...] = ("",)
    """The orders each item is asked in: ``("AB", "BA")`` for two answers, else one."""
    panel: bool = True
    """Whether judges' verdicts on the kind's units can be combined into a panel."""


@dataclass(frozen=True)
class Ask:
    """One question to a judge, before it is rendered once per sample."""

    task: str
    """``pairwise/AB``, ``nli/<statement id>``, ``rating``, ``rubric/<entry id>``…"""
    prompt: str
    """The prompt task whose template is filled (``Prompt.task``)."""
    values: dict[str, str]
    """The template's placeholders → text."""
    schema: dict[str, Any] | None
    """The JSON schema of the reply (for providers with structured output)."""
    reply: dict[str, Any]
    """How the reply is read: ``{"form": NAME, …}`` (``judging.protocol.replies.FORMS``)."""


@dataclass(frozen=True)
class Sample:
    """One valid sample of a task: its call's key, its index and the parsed reply."""

    key: str
    sample: int
    parsed: Any


@dataclass
class Samples:
    """The samples of one task: the valid ones (they vote) and the failed ones (listed only)."""

    valid: list[Sample] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        """The valid samples' call keys."""
        return [s.key for s in self.valid]


@dataclass
class Verdict:
    """A judge's resolved verdict on one unit, with the trail that produced it."""

    unit_id: int
    value: str | None
    reason: str
    trail: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``ok`` or ``missing`` (no valid sample)."""
        return "ok" if self.value is not None else "missing"


def context_block(item: ItemLike) -> str:
    """The item's context passages as the templates' ``$context`` (empty without any)."""
    if not item.context:
        return ""
    passages = "\n".join(f"[{i}] {p}" for i, p in enumerate(item.context, start=1))
    return f"\n<context>\n{passages}\n</context>\n"


def criteria_text(criteria: Sequence[Any]) -> str:
    """The criteria as the templates' ``$criteria`` lines (``- name (kind): question``)."""
    lines = []
    for c in criteria:
        if c.polarity is not None:
            kind = "which is better?" if c.polarity == "benefit" else "which is worse?"
            lines.append(f"- {c.name} ({kind}): {c.question}")
        elif c.options:
            lines.append(f"- {c.name} (options): {c.question}")
        else:
            assert c.scale is not None
            lines.append(f"- {c.name} (whole number {c.scale[0]}–{c.scale[1]}): {c.question}")
    return "\n".join(lines)


def label_schema(name: str, key: str, values: Sequence[str]) -> dict[str, Any]:
    """JSON schema of a reply holding one label under ``key`` and a reason."""
    return {
        "name": name,
        "schema": {
            "type": "object",
            "properties": {
                key: {"type": "string", "enum": list(values)},
                "reason": {"type": "string"},
            },
            "required": [key, "reason"],
        },
    }


def label_reply(
    key: str, spellings: Mapping[str, str], words: str, reason: str = "reason"
) -> dict[str, Any]:
    """How to read a one-label reply: the entry ``key``, its accepted spellings → canonical
    labels, how an error names the labels, and the entry holding the judge's reason."""
    return {
        "form": "label",
        "key": key,
        "spellings": dict(spellings),
        "words": words,
        "reason": reason,
    }


def first_reason(votes: Sequence[str], reasons: Sequence[str], verdict: str | None) -> str:
    """The reason of the first sample that voted for the verdict (else empty)."""
    return next((r for v, r in zip(votes, reasons, strict=True) if v == verdict), "")
