"""``medjudge requeue``: send a reviewer's too-fast items back to their queue (leads only)."""

from __future__ import annotations

from typing import Annotated

import typer

from medjudge.store.paths import login_name
from medjudge.store.requeue import withdraw
from medjudge.store.roles import require

from .common import OnlyStudyArg, UserError, opened, out


def requeue(
    study: OnlyStudyArg,
    fast: Annotated[
        bool,
        typer.Option(
            "--fast", help="The items the too-fast rule flags (settings --fast-rule FRACTION)."
        ),
    ] = False,
    reviewer: Annotated[
        str | None, typer.Option(help="Only this reviewer's items.", metavar="NAME")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be sent back; change nothing.")
    ] = False,
) -> None:
    """Send items back to their reviewers' queues (leads only): each reviewer's current labels
    on them are withdrawn — kept in the label history as action ``requeue``, never deleted —
    so the items show as not finished in the reviewer's app again.

    \b
    Example:
      medjudge requeue trial.db --fast --dry-run
      medjudge requeue trial.db --fast --reviewer drchen
    """
    if not fast:
        raise UserError("requeue: say which items: --fast (those the too-fast rule flags)")
    with opened(study, check=True) as s:
        require(s, login_name(), "requeue")
        fraction = s.settings.fast_rule
        if fraction is None:
            raise UserError(
                "--fast: the study sets no too-fast rule; a lead sets one with "
                f"`medjudge settings {study} --fast-rule FRACTION` (e.g. 0.33)"
            )
        from medjudge.judging.analysis.fast_labels import fast_flags  # numpy: not for --help

        flags = fast_flags(s, fraction)
        chosen = [f for f in flags.flagged if reviewer is None or f.reviewer == reviewer]
        if reviewer is not None and not chosen:
            known = sorted({f.reviewer for f in flags.flagged})
            out(
                f"{reviewer}: no too-fast items"
                + (f" (reviewers with some: {', '.join(known)})" if known else "")
            )
            return
        if not chosen:
            out("no too-fast items: nothing to send back")
            return
        done = {(f.reviewer, f.item) for f in chosen}
        if not dry_run:
            withdrawn = withdraw(s, [(f.reviewer, f.item) for f in chosen], actor=login_name())
            done = {(w.reviewer, w.item) for w in withdrawn}
    verb = "would send back" if dry_run else "sent back"
    for f in chosen:
        if (f.reviewer, f.item) in done:
            out(
                f"{f.reviewer}: {f.item} {verb} ({f.labels} label(s) withdrawn; {f.seconds:.1f} s, "
                f"their median {f.reviewer_median_s:.1f} s, the team's {f.team_median_s:.1f} s)"
            )
    n = len(done)
    out(f"{n} item(s) {verb}" + (" (dry run: nothing changed)" if dry_run else ""))
