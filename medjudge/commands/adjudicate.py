"""``medjudge adjudicate``: the queue of disagreements, and recording final labels.

Pairwise letters are in the file frame (docs/design.md §2 "Answer-letter frame"): ``A`` is the import
file's ``answer_a`` in ``--list``, ``--json`` and ``--value``, as in the app's queue and detail.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Annotated, Any

import typer

from medjudge import kinds
from medjudge.judging.analysis.queue_kinds import DisagreementKind
from medjudge.store.adjudications import adjudicate as record
from medjudge.store.frames import FILE, frame_hint
from medjudge.store.items import find_item, get_item
from medjudge.store.labels import LabelError, canonical_value
from medjudge.store.literal import json_escaped
from medjudge.store.paths import login_name
from medjudge.store.reads import unit_criterion
from medjudge.store.roles import require
from medjudge.store.study import Study
from medjudge.store.visibility import require_unblinded

from .common import OnlyStudyArg, UserError, opened, out
from .review import run_app


def final_value(study: Study, unit_id: int, value: str) -> str:
    """``--value`` as typed → the canonical label, with the spellings imports accept."""
    try:
        return canonical_value(study.settings, unit_criterion(study, unit_id), value)
    except LabelError as exc:
        raise UserError(f"--value {value!r}: {exc}") from None


def resolve_unit(study: Study, ref: str) -> int:
    """``ITEM/CRITERION`` or ``ITEM/N`` (the N-th statement, sub-question or rubric criterion,
    numbered from 1 as in the app) → unit id."""
    item_ref, _, part = ref.rpartition("/")
    item_id = find_item(study, item_ref) if item_ref else None
    if item_id is None:
        raise UserError(
            f"--unit {ref!r}: give ITEM/CRITERION or ITEM/STATEMENT-NUMBER with an existing item id"
        )
    item = get_item(study, item_id)
    listed = kinds.get(item.kind).listed_criterion
    if part.isdigit() and listed is not None:
        # the N-th listed entry (statement, sub-question, rubric criterion), as the app numbers
        entries = sorted(item.statements, key=lambda st: st.position)
        if 1 <= int(part) <= len(entries):
            return item.unit_for(listed, entries[int(part) - 1].id).id
    else:
        for u in item.units:
            if u.criterion == part and u.statement_id is None:
                return u.id
    raise UserError(f"--unit {ref!r}: item {item_ref} has no {part!r}")


def adjudicate(
    study: OnlyStudyArg,
    list_: Annotated[
        bool, typer.Option("--list", help="Print the queue instead of opening the app.")
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the queue as JSON.")] = False,
    kind: Annotated[
        DisagreementKind | None, typer.Option(help="Only this kind of disagreement.")
    ] = None,
    criterion: Annotated[str | None, typer.Option(help="Only one criterion.")] = None,
    source: Annotated[
        str | None, typer.Option(help="Only items with an answer from this model.")
    ] = None,
    reviewer: Annotated[str | None, typer.Option(help="Only units this reviewer labelled.")] = None,
    unresolved: Annotated[bool, typer.Option(help="Leave out units already adjudicated.")] = False,
    unit: Annotated[
        str | None,
        typer.Option(help="Record a final label: ITEM/CRITERION or ITEM/N (statement N, from 1)."),
    ] = None,
    value: Annotated[
        str | None,
        typer.Option(
            help="With --unit: the final label; pairwise A/B are the file's answer_a/answer_b "
            "(also answer_b, response_b, b …)."
        ),
    ] = None,
    rationale: Annotated[str | None, typer.Option(help="With --unit: why (required).")] = None,
) -> None:
    """Walk the disagreements and record final labels with a rationale (adjudicators only).

    \b
    Example:
      medjudge adjudicate trial.db                      # the queue in the app
      medjudge adjudicate trial.db --list --kind reviewer_vs_judge
      medjudge adjudicate trial.db --unit pw-03/harmfulness --value B --rationale "B delays antibiotics"
    """
    from medjudge.judging.analysis.disagreements import counts, queue  # numpy: at run time

    with opened(study, check=value is not None) as s:
        if unit is not None:
            if not value or rationale is None:
                raise UserError("--unit needs --value and --rationale")
            uid = resolve_unit(s, unit)
            final = final_value(s, uid, value)
            settles = next((d.kinds for d in queue(s) if d.unit_id == uid), [])
            record(s, uid, final, rationale, actor=login_name(), settles=settles)
            crit = s.settings.criterion(unit_criterion(s, uid))
            reordered = kinds.get(crit.kind).shuffles_answers
            frame = f" ({frame_hint(crit.kind)})" if reordered else ""
            out(f"{unit}: final label {final} recorded{frame}")
            return
        if not (list_ or json_output):
            require(s, login_name(), "adjudicate")  # a clear error before the UI loads
        else:
            require_unblinded(s, login_name(), "the adjudication list")
            entries = queue(
                s,
                kind=kind,
                criterion=criterion,
                source=source,
                reviewer=reviewer,
                unresolved_only=unresolved,
            )
            if json_output:
                data = {
                    "frame": FILE,
                    "counts": counts(entries),
                    "units": [asdict(e) for e in entries],
                }
                sys.stdout.write(
                    json_escaped(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"
                )
                return
            c = counts(entries)
            out(" · ".join(f"{k}: {v}" for k, v in c.items()))
            for lettered in sorted({e.item_kind for e in entries}):
                if kinds.get(lettered).shuffles_answers:
                    out(f"{lettered} answer letters: {frame_hint(lettered)}")
            for e in entries:
                votes = ", ".join(
                    f"{r}={v if v is not None else 'missing'}" for r, v in e.votes.items()
                )
                ref = f" → {e.reference}" if e.reference else ""
                out(f"{e.where} [{', '.join(e.kinds)}] split {e.split:.2f}: {votes}{ref}")
            return
    # The app opens its own connection; the one above is closed first.
    from medjudge.tui.adjudication.screen import QueueFilters  # the UI only for this path

    def configure(app: Any) -> None:
        app.queue_filters = QueueFilters(kind, criterion, source, reviewer, unresolved)

    run_app(study, "adjudication", configure, start="adjudicate")
