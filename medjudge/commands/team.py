"""Team commands: roles, assignments and study settings (leads only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from medjudge import kinds
from medjudge.store.assignments import assign as assign_items
from medjudge.store.assignments import assignment_counts, unassign
from medjudge.store.items import list_items
from medjudge.store.kinds import ItemKind
from medjudge.store.labels import labels_outside
from medjudge.store.literal import plural, printable
from medjudge.store.paths import login_name
from medjudge.store.people import given_name
from medjudge.store.retirements import retire as retire_items
from medjudge.store.retirements import retired_ids
from medjudge.store.roles import grant, members, require, revoke
from medjudge.store.settings import Criterion
from medjudge.store.study import Study

from .common import OnlyStudyArg, UserError, only_items, opened, out, user_errors

StudyArg = Annotated[Path, typer.Argument(help="The study file.")]


class Action(str, Enum):
    """What ``role`` does."""

    add = "add"
    remove = "remove"
    list = "list"


class Role(str, Enum):
    """The roles of a study."""

    lead = "lead"
    reviewer = "reviewer"
    adjudicator = "adjudicator"


class AnswerOrder(str, Enum):
    """``settings --order``: whose display order of a pairwise item's answers."""

    per_item = "per-item"
    per_reviewer = "per-reviewer"


def role(
    study: StudyArg,
    action: Annotated[Action, typer.Argument(help="add, remove or list.")],
    login: Annotated[str | None, typer.Argument(help="The login name.")] = None,
    as_: Annotated[Role | None, typer.Option("--as", help="The role.")] = None,
) -> None:
    """Give, take or list roles: leads, reviewers, adjudicators.

    \b
    Example:
      medjudge role trial.db add drchen --as adjudicator
      medjudge role trial.db list
    """
    with opened(study, check=True) as s:
        if action is Action.list:
            for r, logins in members(s).items():
                out(f"{r}s: " + (", ".join(logins) if logins else "-"))
            return
        if login is None or as_ is None:
            raise UserError(f"`role {action.value}` needs a LOGIN and --as ROLE")
        if action is Action.add:
            login = given_name(login, "LOGIN")  # a new name: no control characters
            new = grant(s, login, as_.value, by=login_name())
            out(f"{login} is {'now' if new else 'already'} {as_.value} of {study}")
        else:
            gone = revoke(s, login, as_.value, by=login_name())
            out(f"{login} {'is no longer' if gone else 'was not'} {as_.value} of {study}")


def assign(
    study: StudyArg,
    reviewers: Annotated[
        list[str], typer.Argument(help="Login names of the reviewers.", metavar="REVIEWER")
    ],
    batch: Annotated[
        str | None, typer.Option(help="Only items of this batch (and name the assignment so).")
    ] = None,
    kind: Annotated[ItemKind | None, typer.Option(help="Only items of this kind.")] = None,
    first: Annotated[
        int | None, typer.Option(min=1, help="Only the first N matching items.", metavar="N")
    ] = None,
    item_ids: Annotated[
        str | None,
        typer.Option(
            "--items",
            help="Only these items: their ids in the import file, comma separated "
            "(e.g. a pilot: --items pw-01,pw-07).",
        ),
    ] = None,
    overlap: Annotated[
        int | None, typer.Option(min=1, help="Reviewers per item (default: all).", metavar="N")
    ] = None,
    remove: Annotated[
        bool, typer.Option(help="Remove these reviewers' assignments instead.")
    ] = False,
    sample: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Draw a uniform random sample of N of the matching items that no earlier "
            "sample holds, record it (the report's corrected figures rely on it) and assign it.",
            metavar="N",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="The sample's random seed (default: a new one, printed and recorded).",
            metavar="SEED",
        ),
    ] = None,
) -> None:
    """Assign items to reviewers (a reviewer with assignments sees only those in the app).

    \b
    Example:
      medjudge assign trial.db drchen drpatel --batch week-1
      medjudge assign trial.db drchen drpatel drlee --kind pairwise --overlap 2
      medjudge assign trial.db drchen --kind pairwise --sample 80 --seed 7
      medjudge assign trial.db drchen drpatel --items pw-01,pw-07,st-03
    """
    if seed is not None and sample is None:
        raise typer.BadParameter("--seed goes with --sample N", param_hint="--seed")
    if remove and sample is not None:
        raise typer.BadParameter("--remove takes no --sample", param_hint="--sample")
    with opened(study, check=True) as s:
        if remove:
            for r in reviewers:
                out(f"{r}: {unassign(s, r, by=login_name(), batch=batch)} assignment(s) removed")
            return
        require(s, login_name(), "assign")
        reviewers = [given_name(r, "REVIEWERS: the login") for r in reviewers]
        items = [i.id for i in list_items(s, kind=kind, batch=batch, retired=True)]
        if item_ids is not None:
            items = only_items(s, item_ids, items)
        gone = retired_ids(s)
        skipped = sum(1 for i in items if i in gone)
        items = [i for i in items if i not in gone][:first]
        if skipped:
            out(f"{plural(skipped, 'retired item')} skipped (medjudge retire)")
        if not items:
            raise UserError("no items match (check --batch, --kind and --items)")
        if sample is not None:
            _assign_sample(s, reviewers, items, sample, seed, batch, overlap, kind, first)
        else:
            added = assign_items(s, reviewers, items, by=login_name(), batch=batch, overlap=overlap)
            _print_assigned(s, reviewers, added)


def _assign_sample(
    s: Study,
    reviewers: list[str],
    items: list[int],
    size: int,
    seed: int | None,
    batch: str | None,
    overlap: int | None,
    kind: ItemKind | None,
    first: int | None,
) -> None:
    """``assign --sample``: draw, record and assign a random sample; say what was drawn."""
    from medjudge.store.samples import draw_sample, new_seed

    chosen = new_seed() if seed is None else seed
    filters = {"kind": kind.value if kind else None, "batch": batch, "first": first}
    drawn, added = draw_sample(
        s,
        reviewers,
        items,
        size,
        chosen,
        by=login_name(),
        batch=batch,
        overlap=overlap,
        filters={k: v for k, v in filters.items() if v is not None},
    )
    out(
        f"sample {drawn.id}: {drawn.size:,} of {len(drawn.frame):,} items drawn at random "
        f"(seed {drawn.seed}{'' if seed is not None else ', chosen now'}; inclusion "
        f"probability {drawn.inclusion_probability:.4f}); recorded in the study"
    )
    _print_assigned(s, reviewers, added)


def _print_assigned(s: Study, reviewers: list[str], added: dict[str, int]) -> None:
    totals = assignment_counts(s)
    for r in reviewers:
        out(f"{r}: {added[r]} new, {totals.get(r, 0)} assigned in all")


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


def doctor(
    study: OnlyStudyArg,
) -> None:
    """Check a study for a team on a shared server, and print what to run to fix each problem.

    Checks the folder (the team's group, setgid, group-writable), the study and its
    -wal/-shm/-journal files (the folder's group, group read and write; owner and mode shown; a
    file another login owns is named with what you can run instead), this shell's umask, the
    roles (a lead is named), the file's integrity (its pages, and every table, view, trigger
    and index of the schema), and that the group's members can run this medjudge. Changes
    nothing. Exit 0 when every check passes, 1 otherwise.

    \b
    Example:
      medjudge doctor /srv/cardio/trial.db
    """
    from medjudge.store.doctor import findings

    with user_errors():
        if not study.exists():
            raise UserError(f"{study}: no such study file")
    problems = 0
    for f in findings(study):
        mark = "ok " if f.ok else "FIX"
        out(f"{mark} {f.check}: {printable(f.detail)}")
        if not f.ok:
            problems += 1
            if f.fix:
                out(f"      run: {printable(f.fix)}")
    if problems:
        out(
            f"{problems} problem{'s' if problems != 1 else ''}; run the commands above (a lead, "
            "or the files' owner)"
        )
        raise typer.Exit(1)
    out("the study is ready for the team")


def retire(
    study: StudyArg,
    item_ids: Annotated[
        str,
        typer.Argument(
            metavar="ID[,ID…]", help="The items' ids in the import file, comma separated."
        ),
    ],
    reason: Annotated[
        str,
        typer.Option(help="Why (required; one line): recorded with your login and the time."),
    ],
    undo: Annotated[bool, typer.Option("--undo", help="Bring retired items back instead.")] = False,
) -> None:
    """Retire items: keep them in the study, out of every queue and every figure (leads only).

    A retired item's labels, verdicts, calls and adjudications stay; it leaves the review and
    adjudication queues, assignments, judge runs, status counts and the report's figures, and
    the report lists it under "Retired items". --undo brings it back.

    \b
    Example:
      medjudge retire trial.db pw-07 --reason "question duplicates pw-03"
      medjudge retire trial.db pw-07,st-02 --reason "wrong reference"
      medjudge retire trial.db pw-07 --undo --reason "duplicate was pw-08, not pw-03"
    """
    with opened(study, check=True) as s:
        done = retire_items(s, item_ids.split(","), reason, by=login_name(), undo=undo)
    verb = "brought back" if undo else "retired"
    state = "not retired" if undo else "already retired"
    for ext in done.changed:
        out(f"{printable(ext)}: {verb}")
    for ext in done.unchanged:
        out(f"{printable(ext)}: {state}, unchanged")
