"""``medjudge settings``: show or change a study's settings (leads only): blinding, roles,
answer order, the criteria's scales and categories, judge families, reviewer guidelines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from medjudge import kinds
from medjudge.store.label_reads import labels_outside
from medjudge.store.paths import login_name
from medjudge.store.roles import require
from medjudge.store.settings import Criterion
from medjudge.store.study import Study

from .common import OnlyStudyArg, UserError, opened, out
from .fast_rule import fast_rule_line, parse_fast_rule


class AnswerOrder(str, Enum):
    """``settings --order``: whose display order of a pairwise item's answers."""

    per_item = "per-item"
    per_reviewer = "per-reviewer"


def settings(
    study: OnlyStudyArg,
    blind: Annotated[
        bool | None,
        typer.Option(
            "--blind/--show-verdicts",
            help="Hide verdicts until the reviewer's own labels are saved, or show them.",
        ),
    ] = None,
    allow_reviewer_override: Annotated[
        bool | None,
        typer.Option(
            "--allow-reviewer-override/--login-only", help="Allow `review --reviewer NAME`."
        ),
    ] = None,
    roles_enforced: Annotated[
        bool | None,
        typer.Option(
            "--roles-enforced/--anyone-reviews", help="Only logins with a role may review."
        ),
    ] = None,
    require_reading: Annotated[
        bool | None,
        typer.Option(
            "--require-reading/--no-require-reading",
            help="Labelling an item waits until the reviewer has seen every answer to its end "
            "(scrolled through, or read with v).",
        ),
    ] = None,
    hide_points: Annotated[
        bool | None,
        typer.Option(
            "--hide-points/--show-points",
            help="Rubric items: while blind, show a criterion's points only after the "
            "reviewer's marks on the item are saved.",
        ),
    ] = None,
    fast_rule: Annotated[
        str | None,
        typer.Option(
            help="Too-fast labels: an item is too fast for a reviewer when their active seconds "
            "on it are under FRACTION (between 0 and 1, e.g. 0.33) × the smaller of their own "
            "and the team's median on its kind; the report and status show them, requeue --fast "
            "sends them back. 'off' clears the rule.",
            metavar="FRACTION|off",
        ),
    ] = None,
    name: Annotated[str | None, typer.Option(help="Rename the study.")] = None,
    order: Annotated[
        AnswerOrder | None,
        typer.Option(
            help="Pairwise answer order: one per item for everyone (per-item), or one per "
            "reviewer and item, seeded (per-reviewer: measures the reviewers' position bias)."
        ),
    ] = None,
    decline_phrase: Annotated[
        list[str] | None,
        typer.Option(
            help="A phrase that marks an answer as declining to answer (an abstention, counted "
            "apart); repeat for several; replaces the list.",
            metavar="PHRASE",
        ),
    ] = None,
    headline_judge: Annotated[
        str | None,
        typer.Option(
            help="The judge summaries show when judges are equally complete ('' clears it)."
        ),
    ] = None,
    judge_family: Annotated[
        list[str] | None,
        typer.Option(
            help="VERSION=SOURCE: the judge version belongs to that answer source's model "
            "family (the report compares its win share for the source with the physicians': "
            "self-preference); VERSION= removes it; repeat for several.",
            metavar="VERSION=SOURCE",
        ),
    ] = None,
    guidelines: Annotated[
        Path | None,
        typer.Option(
            help="A Markdown file of reviewer guidelines ('-': standard input): shown on each "
            "reviewer's first launch, again after a change, and on G in the review app."
        ),
    ] = None,
    clear_guidelines: Annotated[
        bool, typer.Option("--clear-guidelines", help="Remove the reviewer guidelines.")
    ] = False,
    scale: Annotated[
        list[str] | None,
        typer.Option(
            help="CRITERION=nominal|ordinal|interval: how the statistics treat a criterion's "
            "labels (a rating scale is ordinal unless set; interval adds ICC(2,1) and "
            "interval α); repeat for several.",
            metavar="CRITERION=LEVEL",
        ),
    ] = None,
    categories: Annotated[
        list[str] | None,
        typer.Option(
            help="CRITERION=A,B,tie: declare a criterion's label set and order — the only "
            "labels reviewers and imports may give, and the categories every agreement figure "
            "counts (AC1, Bennett's S, Randolph's κ; a pairwise criterion counts neither only "
            "when declared, or on a risk criterion by default); CRITERION= returns to the "
            "default; repeat for several.",
            metavar="CRITERION=A,B,…",
        ),
    ] = None,
) -> None:
    """Show or change the study's settings (leads only); every change is in the history.

    \b
    Example:
      medjudge settings trial.db
      medjudge settings trial.db --show-verdicts --roles-enforced
      medjudge settings trial.db --scale completeness=interval
      medjudge settings trial.db --categories correctness=A,B,tie
      medjudge settings trial.db --guidelines guidelines.md
      medjudge settings trial.db --judge-family gpt-4o-judge=gpt-4o
      medjudge settings trial.db --fast-rule 0.33
    """
    with opened(study, check=True) as s:
        changes: dict[str, Any] = {
            k: v
            for k, v in {
                "blind": blind,
                "allow_reviewer_override": allow_reviewer_override,
                "roles_enforced": roles_enforced,
                "hide_points": hide_points,
                "require_reading": require_reading,
                "name": name,
                "order": order.value if order is not None else None,
            }.items()
            if v is not None
        }
        if decline_phrase:
            changes["decline_phrases"] = tuple(p.strip() for p in decline_phrase if p.strip())
        if headline_judge is not None:  # '' clears it
            changes["headline_judge"] = headline_judge.strip() or None
        if judge_family:
            changes["judge_families"] = _with_families(s.settings.judge_families, judge_family)
        if scale:
            changes["criteria"] = _with_scales(s.settings.criteria, scale)
        if categories:
            base = changes.get("criteria", s.settings.criteria)
            changes["criteria"] = _with_categories(s, base, categories)
        if fast_rule is not None:
            changes["fast_rule"] = parse_fast_rule(fast_rule)
        if guidelines is not None:
            changes["guidelines"] = _read_guidelines(guidelines)
        if clear_guidelines:
            changes["guidelines"] = None
        if changes:
            require(s, login_name(), "settings")
            s.save_settings(s.settings.model_copy(update=changes), actor=login_name())
        st = s.settings
        out(f"name: {st.name}")
        out(f"blind: {'yes' if st.blind else 'no (verdicts shown from the start)'}")
        out(f"reviewer override: {'allowed' if st.allow_reviewer_override else 'login name only'}")
        out(f"roles enforced: {'yes' if st.roles_enforced else 'no'}")
        out(f"rubric points: {'hidden until the reveal' if st.hide_points else 'shown'}")
        out(f"answers read to the end before labelling: {'yes' if st.require_reading else 'no'}")
        out(f"answer order: {st.order}")
        out(fast_rule_line(st.fast_rule))
        out(f"headline judge: {st.headline_judge or 'the most complete, then by name'}")
        if st.judge_families:
            for version, source in sorted(st.judge_families.items()):
                out(f"judge family: {version} belongs to {source}")
        else:
            out("judge families: none (settings --judge-family VERSION=SOURCE)")
        if st.guidelines:
            lines = st.guidelines.count("\n") + 1
            out(f"reviewer guidelines: {len(st.guidelines):,} characters, {lines:,} lines")
        else:
            out("reviewer guidelines: none (settings --guidelines FILE)")
        out("declining to answer: " + "; ".join(repr(p) for p in st.decline_phrases))
        for c in st.criteria:
            extra = c.polarity or (f"{c.scale[0]}–{c.scale[1]}" if c.scale else "options")
            out(f"criterion {c.name} ({c.kind}, {extra}, {c.level}): {c.question}")
            counted = c.counted_categories()
            if counted is not None:
                how = "declared" if c.categories is not None else "default"
                out(f"  categories ({how}): {', '.join(counted)}")


def _read_guidelines(path: Path) -> str:
    """The guidelines text of ``--guidelines`` (UTF-8, not empty, not huge), or a clear error."""
    from medjudge.store.bounded import TooLarge, read_at_most
    from medjudge.store.reviewer_aids import MAX_GUIDELINES_CHARS

    try:
        # UTF-8 takes at most 4 bytes a character (and a BOM 3)
        raw = read_at_most(path, 4 * MAX_GUIDELINES_CHARS + 3)
    except TooLarge:
        raise UserError(
            f"--guidelines {path}: more than {MAX_GUIDELINES_CHARS:,} characters (the most "
            "guidelines can hold)"
        ) from None
    except OSError as exc:
        raise UserError(f"--guidelines {path}: cannot read it ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"--guidelines {path}: not UTF-8 text (byte {exc.start + 1} is 0x{raw[exc.start]:02x})"
        ) from None
    if not text.strip():
        raise UserError(f"--guidelines {path}: the file is empty (use --clear-guidelines)")
    if len(text) > MAX_GUIDELINES_CHARS:
        raise UserError(
            f"--guidelines {path}: {len(text):,} characters; at most {MAX_GUIDELINES_CHARS:,}"
        )
    return text


def _with_categories(
    s: Study, criteria: Sequence[Criterion], specs: Sequence[str]
) -> list[Criterion]:
    """The criteria with ``--categories NAME=A,B,tie`` applied. Labels are read with the kind's
    spellings (``response_a`` is A); a label already stored outside the new set is an error."""
    by_name = {c.name: c for c in criteria}
    for spec in specs:
        name, eq, text = spec.partition("=")
        name = name.strip()
        if not eq:
            raise UserError(f"--categories {spec!r}: write CRITERION=A,B,tie (CRITERION= clears)")
        if name not in by_name:
            raise UserError(
                f"--categories {spec!r}: no criterion {name!r} (criteria: {', '.join(by_name)})"
            )
        crit = by_name[name]
        the_kind = kinds.get(crit.kind)
        cats: tuple[str, ...] | None = None
        if text.strip():
            parts = [p.strip() for p in text.split(",")]
            if any(not p for p in parts):
                raise UserError(f"--categories {spec!r}: an empty label (two commas in a row?)")
            cats = tuple(the_kind.canonical(p) for p in parts)
        try:
            by_name[name] = Criterion.model_validate({**crit.model_dump(), "categories": cats})
        except ValueError as exc:
            errors = getattr(exc, "errors", None)
            why = errors()[0]["msg"] if callable(errors) else str(exc)
            raise UserError(f"--categories {spec!r}: {why.removeprefix('Value error, ')}") from None
        if cats is not None:
            outside = labels_outside(s, name, cats)
            if outside:
                said = ", ".join(f"{v!r} ({n:,})" for v, n in outside)
                raise UserError(
                    f"--categories {spec!r}: the study already holds {name} labels outside "
                    f"that set: {said}; declare them too, or change those labels first"
                )
    return [by_name[c.name] for c in criteria]


def _with_families(families: Mapping[str, str], specs: Sequence[str]) -> dict[str, str]:
    """The judge families with ``--judge-family VERSION=SOURCE`` applied (``VERSION=``
    removes one; a clear error for a spec without ``=`` or a version)."""
    out = dict(families)
    for spec in specs:
        version, eq, source = spec.partition("=")
        version, source = version.strip(), source.strip()
        if not eq or not version:
            raise UserError(f"--judge-family {spec!r}: write VERSION=SOURCE (VERSION= removes it)")
        if source:
            out[version] = source
        else:
            out.pop(version, None)
    return out


def _with_scales(criteria: Sequence[Criterion], specs: Sequence[str]) -> list[Criterion]:
    """The criteria with ``--scale NAME=LEVEL`` applied (a clear error for a bad one)."""
    levels = {"nominal", "ordinal", "interval"}
    by_name = {c.name: c for c in criteria}
    for spec in specs:
        name, _, level = spec.partition("=")
        name, level = name.strip(), level.strip()
        if not level or level not in levels:
            raise UserError(f"--scale {spec!r}: write CRITERION=nominal|ordinal|interval")
        if name not in by_name:
            raise UserError(
                f"--scale {spec!r}: no criterion {name!r} (criteria: {', '.join(by_name)})"
            )
        try:
            by_name[name] = Criterion.model_validate(
                {**by_name[name].model_dump(), "measurement": level}
            )
        except ValueError as exc:
            errors = getattr(exc, "errors", None)
            why = errors()[0]["msg"] if callable(errors) else str(exc)
            raise UserError(f"--scale {spec!r}: {why.removeprefix('Value error, ')}") from None
    return [by_name[c.name] for c in criteria]
