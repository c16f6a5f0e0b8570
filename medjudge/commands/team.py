"""Team commands: roles, assignments, retired items and the shared-server check (the study's
settings: :mod:`.study_settings`)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from medjudge.store.assignments import assign as assign_items
from medjudge.store.assignments import assignment_counts, unassign
from medjudge.store.items import list_items
from medjudge.store.kinds import ItemKind
from medjudge.store.literal import plural, printable
from medjudge.store.paths import login_name
from medjudge.store.people import given_name
from medjudge.store.retirements import retire as retire_items
from medjudge.store.retirements import retired_ids
from medjudge.store.roles import grant, members, require, revoke
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
