"""What an item kind is: one :class:`Kind` object per kind, in one module per kind.

A kind says everything that differs between pairwise, statements, rating, match and rubric
items, so that the store, the judges, the app and the commands iterate over the registry
(:mod:`medjudge.kinds`) instead of branching on the kind's name:

- **import**: the fields it reads and how a record becomes an item (:meth:`Kind.parse`);
- **units**: which criterion is labelled once per listed entry (statements, sub-questions,
  rubric criteria) and what the import's label objects call that entry;
- **values**: each criterion's label set, the accepted spellings, the level of measurement
  and what a criterion of the kind must declare;
- **review and adjudication**: the list being labelled and the keys that give each value (the
  same keys in the review and the adjudication app); how an item is drawn is the kind's review
  facet (``kinds/<name>/review.py``, :mod:`.review_facet`);
- **judges**: the templates and orders its units are judged in (:class:`JudgePlan`).

This module is the bottom layer: it imports nothing from medjudge at import time, so the
store can ask a kind while its own modules are being loaded. A kind's parser imports the
store's record helpers when it runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from . import orders
from .judged import Ask, ItemLike, JudgePlan, Prompt, Samples, UnitLike, Verdict

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings


class CriterionLike(Protocol):
    """What a kind reads of a criterion (``store.settings.Criterion`` satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def polarity(self) -> str | None: ...
    @property
    def scale(self) -> tuple[int, int] | None: ...
    @property
    def options(self) -> bool: ...
    @property
    def measurement(self) -> str | None: ...
    @property
    def null_verdict(self) -> str: ...


@dataclass(frozen=True)
class ValueKey:
    """One key that gives one label value, in the review app and the adjudication app."""

    key: str
    """Textual's key name (``a``, ``1``)."""
    value: str
    """The stored value (for pairwise items: the *display* letter, turned into the file's
    letter by the screen's frame)."""
    label: str
    """The footer's short text."""
    help: str = ""
    """What the key means, for the help screen (the label when empty)."""


@dataclass(frozen=True)
class Kind:
    """One item kind. Subclasses (one per module) override what differs."""

    name: str
    doc: str
    fields: frozenset[str]
    """The import fields the kind reads; any other field is kept as item metadata."""
    values: tuple[str, ...] | None = None
    """The fixed label set of every criterion of the kind, in order (None: per criterion)."""
    spellings: Mapping[str, str] = field(default_factory=dict)
    """Accepted spellings (lower case) of a value → the canonical value."""
    value_words: str = ""
    """How an import error names the values (``"a pairwise verdict (A, B, …)"``)."""
    keys: tuple[ValueKey, ...] = ()
    """The keys giving the kind's values (rating: per criterion, see :meth:`value_keys`)."""
    key_group: str = ""
    """A name that folds the kind's keys into one footer entry (``Rate``), or none."""
    help_title: str = ""
    """The help screen's heading of the kind's keys."""
    help_keys: tuple[tuple[str, str], ...] | None = None
    """The help screen's lines for the kind's keys, folded (``1–5``: …); None: one per key."""
    help_extra: tuple[tuple[str, str], ...] = ()
    """Further keys of the kind for the help screen (key, what it does)."""
    listed_criterion: str | None = None
    """The criterion labelled once per listed entry of an item (a statement, a sub-question,
    a rubric criterion); every other criterion of the kind is labelled once per item."""
    listed_field: str | None = None
    """The field of an imported label object that names the listed entry (0-based)."""
    item_criteria: bool = True
    """Whether criteria are labelled once per item too (statements: no, every label names
    its statement)."""
    listed_name: str = "statement"
    """What one listed entry is called on screen and in messages."""
    listed_title: str = "Statements"
    """The heading of the listed entries (the full-screen reader)."""
    marks_documents: bool = False
    """Whether a reviewer marks the context documents the answer wrongly relied on, and the
    documents' kinds (signal, noise, counterfactual) stay hidden until the labels are saved."""
    fields_hidden_until_labelled: bool = False
    """Whether the import row's extra fields stay out of the reader (``v``) in a blind study
    until the reviewer's labels on the item are saved (MedRGB's ``test`` and ``p`` say which
    documents are noise or counterfactual)."""
    abstains: bool = False
    """Whether an answer that declines to answer ("insufficient information") is an
    abstention, counted apart from wrong answers (K-QA, MedRGB)."""
    answered_values: tuple[str, ...] = ()
    """Labels that say an answer did answer: one on any of its units and a decline phrase no
    longer makes it an abstention (``store.abstentions``)."""
    source_positions: tuple[str, ...] = ("answer",)
    """The answers whose models the figures compare, in order (``A``, ``B`` for two)."""
    tie_value: str | None = None
    """The value meaning "neither answer wins" where figures are also given without ties."""
    win_rates: bool = False
    """Whether the report gives each model's win / tie / loss share on the criteria."""
    default_slices: tuple[str, ...] = ()
    """Item metadata fields every figure of the kind is also given per value of (MedRGB's
    retrieval conditions ``test`` and ``p``)."""
    letters: str = ""
    """What the file frame's answer letters are, for screens and messages (``A = answer_a,
    B = answer_b``); empty for kinds whose answers are not lettered."""
    shuffles_answers: bool = False
    """Whether an item's answers are shown in a per-item random order, a permutation of its
    answer slots (:mod:`.orders`): the reviewer's keys name the *shown* letters."""
    lists_entries: bool = False
    """Whether the review screen labels the listed entries beside the answer (statements)
    rather than the criteria below the panes."""
    default_criteria: tuple[Mapping[str, Any], ...] = ()
    """The criteria a new study has for this kind (``store.settings.Criterion`` fields)."""
    judge: JudgePlan | None = None

    # -- values ----------------------------------------------------------------------------
    def value_set(self, criterion: CriterionLike) -> tuple[str, ...] | None:
        """The allowed values of a criterion (None: a set of option letters)."""
        if self.values is not None:
            return self.values
        if criterion.scale is not None:
            low, high = criterion.scale
            return tuple(str(v) for v in range(low, high + 1))
        return None

    def item_values(self, criterion: CriterionLike, slots: str) -> tuple[str, ...] | None:
        """The values a criterion takes on an item whose answers are in ``slots`` (None: a set
        of option letters): :meth:`value_set`, unless the item's answers decide (rankings)."""
        return self.value_set(criterion)

    def default_categories(self, criterion: CriterionLike) -> tuple[str, ...] | None:
        """The categories the statistics count when the study declares none for the criterion
        (``settings --categories``): its allowed values (None: option sets, as observed)."""
        return self.value_set(criterion)

    def canonical(self, raw: str) -> str:
        """A value as typed (``response_b``, ``Entails``) → its canonical spelling, or ``raw``
        stripped when the kind has no such spelling."""
        return self.spellings.get(raw.strip().lower(), raw.strip())

    def default_level(self, criterion: CriterionLike) -> str:
        """The level of measurement when the criterion does not declare one."""
        return "ordinal" if criterion.scale is not None else "nominal"

    def check_criterion(self, criterion: CriterionLike) -> str | None:
        """Why a criterion of this kind is not well formed, or None."""
        if criterion.measurement in ("ordinal", "interval") and criterion.scale is None:
            return (
                f"criterion {criterion.name!r}: only a criterion with a numeric scale can be "
                f"{criterion.measurement}"
            )
        return None

    @property
    def two_orders(self) -> bool:
        """Whether a judge sees each item in two or more orders (position consistency
        applies)."""
        return self.judge is not None and len(self.judge.orders) > 1

    def display_order(self, slots: str, digest_parts: str) -> str | None:
        """The seeded order an item with answers in ``slots`` is shown in (None: the kind
        does not shuffle its answers): :func:`.orders.seeded` of the slots."""
        if not self.shuffles_answers or len(slots) < 2:
            return None
        return orders.seeded(digest_parts, slots)

    def describe(self, polarity: str | None, scale: str, ordinal: bool) -> str:
        """What a criterion is, after its name in the report (``pairwise, benefit (…)``),
        from its polarity, its scale as the report writes it and whether it is ordered."""
        return self.name

    def free_value(self, criterion: CriterionLike, value: str) -> str | None:
        """A value of a criterion without a fixed label set, canonical (``b>a>c`` → ``B>A>C``);
        None: the kind's criteria of that sort are option sets (``A,C``).

        Raises:
            ValueError: the value is not one the criterion takes (the message says why).
        """
        return None

    def fits_item(self, value: str, slots: str) -> str | None:
        """Why a canonical value does not fit an item whose answers are in ``slots`` (a ranking
        must rank exactly its answers), or None."""
        return None

    # -- review and adjudication -------------------------------------------------------------
    composes: bool = False
    """Whether a value is built from several keys (a ranking: one key per answer), not given
    by one key; the screens keep the partial value and ask :meth:`compose`."""

    def compose(self, partial: str, key_value: str, n_answers: int) -> tuple[str, bool]:
        """A partial value and one more key's value → the new partial value and whether it is
        complete (kinds that :attr:`compose` their values)."""
        return key_value, True

    def partial_text(self, partial: str, n_answers: int) -> str:
        """A value being built, as shown."""
        return partial

    def value_keys(self, criterion: CriterionLike) -> tuple[ValueKey, ...]:
        """The keys that give this criterion's values (review and adjudication alike)."""
        return self.keys

    def possible_keys(self) -> tuple[ValueKey, ...]:
        """Every key that gives a value of some criterion of this kind (the app binds them
        all and lets through those of the criterion under the cursor)."""
        return self.keys

    def key_hint(self, criterion: CriterionLike) -> str:
        """The keys of a criterion in a few characters (``a b t n``, ``1–5``)."""
        keys = self.value_keys(criterion)
        if criterion.options:
            return "tick option letters, enter"
        return " ".join(k.key for k in keys)

    def to_file_frame(self, value: str, order: str | None) -> str:
        """A value given in an order's frame (``A`` = the answer shown first) → the file's
        frame; ``order`` is None for an item whose answers are not reordered."""
        return value

    def to_display_frame(self, value: str, order: str | None) -> str:
        """A value in the file's frame → ``order``'s frame (the inverse of
        :meth:`to_file_frame`)."""
        return value

    def criterion_note(self, criterion: CriterionLike) -> str:
        """A word shown beside a criterion's name in the unit list (``better?``)."""
        return ""

    # -- judges ----------------------------------------------------------------------------
    def read_reply(self, obj: Mapping[str, Any], reply: Mapping[str, Any]) -> Any:
        """A judge's reply (its JSON object) to an ask whose reply form is ``kind``, read by
        the kind itself (``Ask.reply``: ``{"form": "kind", "kind": NAME, …}``).

        Raises:
            ValueError: the reply does not carry a valid answer (the message says what).
        """
        raise NotImplementedError(self.name)

    def judge_prompts(self, statements_protocol: str) -> tuple[Prompt, ...]:
        """The prompt tasks the kind's judge calls use under a statements protocol."""
        if self.judge is None:
            return ()
        return tuple(p for p in self.judge.prompts if p.protocol in (None, statements_protocol))

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """What a judge is asked about one item, once per sample (every order and entry)."""
        raise NotImplementedError(self.name)

    def judge_resolve(
        self,
        item: ItemLike,
        samples: Mapping[str, Samples],
        criteria: Sequence[CriterionLike],
    ) -> list[Verdict]:
        """One verdict per unit from the samples of each task (a task without calls: no
        samples), by the kind's voting rule (:mod:`.votes`)."""
        raise NotImplementedError(self.name)

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """What a conservative panel gives when its judges split on a unit (``values``: the
        members' verdicts)."""
        raise NotImplementedError(self.name)

    # -- import ----------------------------------------------------------------------------
    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One import record as an item (raises the record's ImportProblem when invalid)."""
        raise NotImplementedError(self.name)


COMMON_FIELDS = frozenset(
    {"id", "question", "context", "batch", "labels", "human_labels", "judge_labels", "gold"}
)
"""The import fields every kind reads."""


def keyed(rows: Iterable[tuple[str, ...]]) -> tuple[ValueKey, ...]:
    """``(key, value, label[, help])`` rows as :class:`ValueKey` objects."""
    return tuple(ValueKey(*row) for row in rows)


def sql_names(names: Iterable[str]) -> str:
    """Kind names as an SQL list literal, ``('pairwise', 'match')`` (names are identifiers)."""
    return "(" + ", ".join(f"'{n}'" for n in names) + ")"
