"""A study's own configuration: criteria, label sets, review and judge settings.

Stored as one JSON document in ``study_settings`` under the key ``settings``; every change is
written to the audit trail with the old and new document.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from medjudge import kinds


class Criterion(BaseModel):
    """One thing reviewers and judges label."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    """Identifier used in files, keys and reports (lower case, digits, underscores)."""
    kind: str
    """Which item kind the criterion applies to (a name in :data:`medjudge.kinds.KINDS`)."""
    question: str
    """The question shown to reviewers and put to judges."""
    polarity: Literal["benefit", "risk"] | None = None
    """Pairwise only: benefit criteria ask "which is better?", risk criteria "which is worse?"."""
    scale: tuple[int, int] | None = None
    """Rating only: inclusive integer scale, e.g. (1, 5). None for the options criterion."""
    options: bool = False
    """Rating only: the label is the set of answer options the explanation justifies."""
    measurement: Literal["nominal", "ordinal", "interval"] | None = None
    """Level of measurement for the statistics; None: ordinal on a rating scale, else nominal.
    ``interval`` (ICC, interval α) and ``ordinal`` need a numeric scale."""
    categories: tuple[str, ...] | None = None
    """The declared label set, in order (``settings --categories NAME=A,B,tie``): the only
    labels reviewers and imports may give, and the categories every agreement figure counts
    (AC1, Bennett's S, Randolph's κ) and orders. None: the kind's default
    (:meth:`medjudge.kinds.base.Kind.default_categories`)."""

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in kinds.KINDS:
            raise ValueError(f"unknown item kind {value!r} (known: {', '.join(kinds.NAMES)})")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Criterion:
        if self.scale is not None and self.scale[0] >= self.scale[1]:
            raise ValueError(f"criterion {self.name!r}: scale must go from low to high")
        problem = kinds.get(self.kind).check_criterion(self)
        if problem is not None:
            raise ValueError(problem)
        if self.categories is not None:
            allowed = kinds.get(self.kind).value_set(self)
            if allowed is None:
                raise ValueError(
                    f"criterion {self.name!r}: its labels are sets of options; they have no "
                    "category list to declare"
                )
            cats = self.categories
            if len(cats) < 2 or len(set(cats)) != len(cats):
                raise ValueError(f"criterion {self.name!r}: declare two or more distinct labels")
            outside = [c for c in cats if c not in allowed]
            if outside:
                raise ValueError(
                    f"criterion {self.name!r}: {', '.join(map(repr, outside))} is not one of "
                    f"its labels ({', '.join(allowed)})"
                )
        return self

    @property
    def null_verdict(self) -> str:
        """The conservative verdict when votes do not settle: tie (benefit) or neither (risk)."""
        return "neither" if self.polarity == "risk" else "tie"

    @property
    def level(self) -> str:
        """``nominal``, ``ordinal`` or ``interval``: how the statistics treat the labels."""
        if self.measurement is not None:
            return self.measurement
        return kinds.get(self.kind).default_level(self)

    @property
    def ordinal(self) -> bool:
        """True when the labels are treated as ordered (an ordinal or interval scale)."""
        return self.level != "nominal"

    def labels(self) -> tuple[str, ...] | None:
        """The allowed label values (the declared categories, if any), or None when any option
        set is allowed."""
        if self.categories is not None:
            return self.categories
        return kinds.get(self.kind).value_set(self)

    def counted_categories(self) -> tuple[str, ...] | None:
        """The categories the statistics count: the declared ones, else the kind's default."""
        if self.categories is not None:
            return self.categories
        return kinds.get(self.kind).default_categories(self)


DEFAULT_SEED = 20240101
"""The bootstrap seed of a new study and of ``medjudge agreement`` (same labels, same intervals)."""


def default_criteria(kind: str) -> list[Criterion]:
    """The criteria a new study has for one item kind."""
    return [Criterion.model_validate(dict(c)) for c in kinds.get(kind).default_criteria]


DEFAULT_CRITERIA: list[Criterion] = [c for k in kinds.NAMES for c in default_criteria(k)]
"""Every kind's default criteria, in the registry's order."""


class StudySettings(BaseModel):
    """Everything a study decides for itself."""

    name: str = "study"
    """A human name for the study, shown in the app and reports."""
    criteria: list[Criterion] = Field(default_factory=lambda: list(DEFAULT_CRITERIA))
    """What is labelled, per item kind."""
    blind: bool = True
    """Hide judge verdicts and other reviewers' labels until the reviewer's own are saved."""
    allow_reviewer_override: bool = False
    """Allow ``--reviewer NAME`` instead of the login name (e.g. a shared demo account)."""
    hide_points: bool = False
    """Rubric items: while the study is blind, a reviewer sees each rubric criterion's points
    only after saving their marks on the item (``settings --hide-points``)."""
    require_reading: bool = False
    """A reviewer labels an item only once every answer on screen has been seen to its end:
    scrolled through in its pane, or read to the last page with ``v``
    (``settings --require-reading``)."""
    fast_rule: float | None = Field(default=None, gt=0, lt=1)
    """Too-fast labels (``settings --fast-rule FRACTION``): a reviewer's item is too fast when
    their active seconds on it are under this fraction of the smaller of their own and the
    team's median on items of its kind (:mod:`medjudge.judging.analysis.fast_labels`); None:
    no rule."""
    seed: int = DEFAULT_SEED
    """Seed for the per-item display order of pairwise answers."""
    order: Literal["per-item", "per-reviewer"] = "per-item"
    """Whose display order of a pairwise item's answers: one per item for everyone
    (``per-item``), or one per reviewer and item (``per-reviewer``, seeded by the study seed,
    the reviewer's login and the item id; ``settings --order``)."""
    roles_enforced: bool = False
    """When True, only logins with a role may review; otherwise anyone may review."""
    decline_phrases: tuple[str, ...] = (
        "insufficient information",
        "i cannot answer",
        "i can't answer",
        "i am unable to answer",
        "i'm unable to answer",
        "i cannot provide",
        "i can't provide",
    )
    """An answer whose first 200 characters hold one of these (any case) declines to answer: an
    abstention, counted apart in the K-QA figures, never scored as a wrong answer."""
    headline_judge: str | None = None
    """The judge the summaries show when several judges are equally complete on a criterion
    (the most complete judge always comes first; see ``judging.analysis.headline``)."""
    judge_families: dict[str, str] = Field(default_factory=dict)
    """Judge version → the answer source (model family) it belongs to (``settings
    --judge-family VERSION=SOURCE``): the report's self-preference figure compares that judge's
    win share for the source with the physicians'."""
    guidelines: str | None = None
    """Reviewer guidelines (Markdown, set by a lead with ``settings --guidelines FILE``): shown
    on a reviewer's first launch, again after they change, and on the G key."""

    @field_validator("criteria")
    @classmethod
    def _unique(cls, value: list[Criterion]) -> list[Criterion]:
        names = [c.name for c in value]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"criterion names must be unique: {', '.join(dupes)}")
        return value

    @model_validator(mode="after")
    def _new_kinds_criteria(self) -> StudySettings:
        """A study made before a kind existed gets that kind's default criteria (unless one
        of their names is taken)."""
        names = {c.name for c in self.criteria}
        present = {c.kind for c in self.criteria}
        for kind in kinds.NAMES:
            extra = default_criteria(kind)
            if kind not in present and not any(c.name in names for c in extra):
                self.criteria = [*self.criteria, *extra]
        return self

    def criteria_for(self, kind: str) -> list[Criterion]:
        """The criteria that apply to items of one kind, in their configured order."""
        return [c for c in self.criteria if c.kind == kind]

    def criterion(self, name: str) -> Criterion:
        """Look up a criterion by name.

        Raises:
            KeyError: no such criterion in this study.
        """
        for c in self.criteria:
            if c.name == name:
                return c
        raise KeyError(name)


def parse_criterion_option(text: str) -> Criterion:
    """Parse ``name:benefit|risk[:question]`` (a pairwise criterion) from the command line.

    A bare built-in name (``correctness``) selects the built-in definition.
    """
    builtin = {c.name: c for c in DEFAULT_CRITERIA}
    parts = text.split(":", 2)
    if len(parts) == 1:
        if text in builtin:
            return builtin[text]
        raise ValueError(
            f"unknown criterion {text!r}: give a built-in name ({', '.join(builtin)}) "
            "or NAME:benefit|risk[:QUESTION]"
        )
    name, polarity = parts[0], parts[1]
    question = (
        parts[2]
        if len(parts) == 3
        else (
            f"Which answer is better on {name}?"
            if polarity == "benefit"
            else f"Which answer is worse on {name}?"
        )
    )
    return Criterion(name=name, kind="pairwise", polarity=polarity, question=question)  # type: ignore[arg-type]
