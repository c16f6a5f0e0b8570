"""Study commands: init, import, status, export, backup."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import asdict
from enum import Enum
from pathlib import Path
from typing import IO, Annotated, Any, cast

import typer
from pydantic import ValidationError

from medjudge import kinds
from medjudge.store import export as exporting
from medjudge.store import export_wide
from medjudge.store.backup import backup as backup_study
from medjudge.store.db import StudyError
from medjudge.store.importing.run import KINDS as IMPORT_KINDS
from medjudge.store.importing.run import import_file
from medjudge.store.importing.writer import ImportSummary
from medjudge.store.literal import json_escaped, printable
from medjudge.store.paths import login_name
from medjudge.store.roles import grant
from medjudge.store.safe_write import refuse_protected, text_output
from medjudge.store.settings import DEFAULT_CRITERIA, StudySettings, parse_criterion_option
from medjudge.store.slices import StatusSlice, UnknownField, status_by
from medjudge.store.study import Study
from medjudge.store.summary import describe_version, summary
from medjudge.store.visibility import require_unblinded, sees_everything

from .common import (
    OnlyStudyArg,
    UserError,
    console,
    is_tty,
    opened,
    out,
    standard_output,
    user_errors,
)
from .fast_rule import fast_status, fast_status_line

StudyArg = Annotated[Path, typer.Argument(help="The study file (one SQLite file per study).")]


Kind = Enum(  # type: ignore[misc]
    "Kind", {name: name for name in IMPORT_KINDS}, type=str
)
"""Input formats for ``import``: every registered item kind, and K-QA's own files."""


class InputFormat(str, Enum):
    """File formats for ``import --format``."""

    jsonl = "jsonl"
    csv = "csv"
    json = "json"


class Table(str, Enum):
    """Tables for ``export``."""

    labels = "labels"
    verdicts = "verdicts"
    calls = "calls"
    history = "history"
    adjudications = "adjudications"
    ledger = "ledger"
    assignments = "assignments"


class Format(str, Enum):
    """Row formats for ``export``."""

    jsonl = "jsonl"
    csv = "csv"


def init(
    study: StudyArg,
    name: Annotated[str | None, typer.Option(help="A human name for the study.")] = None,
    criteria: Annotated[
        list[str] | None,
        typer.Option(
            "--criterion",
            "-c",
            help="A pairwise criterion: a built-in name (correctness, helpfulness, harmfulness, "
            "reasoning, efficiency, bias) or NAME:benefit|risk[:QUESTION]. Repeat; replaces the "
            "built-in pairwise set.",
            metavar="CRITERION",
        ),
    ] = None,
    show_verdicts: Annotated[
        bool, typer.Option(help="Show judge verdicts to reviewers from the start (not blind).")
    ] = False,
    allow_reviewer_override: Annotated[
        bool, typer.Option(help="Let reviewers pick a name with --reviewer instead of their login.")
    ] = False,
) -> None:
    """Create a new, empty study file.

    \b
    Example:
      medjudge init trial.db --name "Cardiology answers, round 1"
      medjudge init overall.db -c overall:benefit:"Which answer is better overall?"
    """
    with user_errors():
        settings = StudySettings(
            name=name or study.stem,
            blind=not show_verdicts,
            allow_reviewer_override=allow_reviewer_override,
        )
        if criteria:
            try:
                pairwise = [parse_criterion_option(c) for c in criteria]
            except ValueError as exc:
                raise UserError(f"--criterion: {exc}") from None
            names = [c.name for c in pairwise]
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise UserError(f"--criterion: {', '.join(twice)} given more than once")
            # -c replaces the criteria of the kind it defines; every other kind keeps its own.
            given = {c.kind for c in pairwise}
            others = [c for c in DEFAULT_CRITERIA if c.kind not in given]
            clash = sorted(set(names) & {c.name for c in others})
            if clash:
                raise UserError(
                    f"--criterion: {', '.join(clash)} is the name of a built-in rating or "
                    "statements criterion; choose another name"
                )
            settings = settings.model_copy(update={"criteria": pairwise + others})
            try:
                settings = StudySettings.model_validate(settings.model_dump())
            except ValidationError as exc:
                why = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
                raise UserError(f"--criterion: {why}") from None
        created = Study.create_complete(
            study,
            settings,
            actor=login_name(),
            fill=lambda s: grant(s, login_name(), "lead", by=login_name()),
        )
        if created is None:
            raise StudyError(f"{study}: a file exists there already")
        created.close()
    out(f"created {study}; the criteria each kind of item is labelled on:")
    for kind_name in kinds.NAMES:
        labelled_on = settings.criteria_for(kind_name)
        if labelled_on:
            out(f"  {kind_name}: " + ", ".join(c.name for c in labelled_on))


def import_(
    study: StudyArg,
    file: Annotated[
        Path, typer.Argument(help="The file to import (.jsonl, .csv, .json); - reads stdin.")
    ],
    kind: Annotated[Kind, typer.Option("--kind", "-k", help="What the file holds.")],
    fmt: Annotated[
        InputFormat | None,
        typer.Option(
            "--format", "-f", help="The file's format (default: by extension; stdin: jsonl)."
        ),
    ] = None,
    answers: Annotated[
        Path | None, typer.Option(help="kqa only: the model's answers ([{Question, result}]).")
    ] = None,
    source: Annotated[str | None, typer.Option(help="kqa only: the model that wrote them.")] = None,
    batch: Annotated[str | None, typer.Option(help="Batch name for items that name none.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Import items (and any labels they carry). All or nothing; the study is created if missing.

    \b
    Example:
      medjudge import trial.db answers.jsonl --kind pairwise
      jq -c '.[]' answers.json | medjudge import trial.db - --kind pairwise
      medjudge import kqa.db questions_w_answers.jsonl --kind kqa \\
          --answers gpt4_results.json --source gpt-4
    """
    with user_errors(study):

        def run(s: Study) -> ImportSummary:
            return import_file(
                s,
                file,
                kind.value,
                actor=login_name(),
                answers=answers,
                source=source,
                batch=batch,
                fmt=fmt.value if fmt else None,
            )

        found: list[ImportSummary] = []

        def first(s: Study) -> None:  # a new study: its lead, then the import, then in place
            grant(s, login_name(), "lead", by=login_name())
            found.append(run(s))

        # a failed first import leaves no study; two first imports at once end in one study
        made = (
            None if study.exists() else Study.create_complete(study, actor=login_name(), fill=first)
        )
        if made is not None:
            made.close()
            result = found[0]
        else:
            with Study.open(study, check=True) as s:
                result = run(s)
    if json_output:
        console.print_json(data=result.__dict__)
    else:
        out(result.describe())


def _add_endpoints(judges: list[dict[str, Any]]) -> None:
    """Each judge version's endpoint (the URL its calls went to), from its model spec."""
    from medjudge.judging.llm.specs import SpecError, parse_judge_spec

    for j in judges:
        version = j.get("version")
        if not version or version.get("members"):
            continue
        try:
            endpoint = parse_judge_spec(version["spec"]).endpoint
        except SpecError:  # a spec this version of medjudge does not know
            endpoint = None
        if endpoint:
            version["endpoint"] = endpoint


def status(
    study: OnlyStudyArg,
    json_output: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Also give the figures per value of an item field: batch, kind or any metadata "
            "field of the import rows (specialty, p, …). Repeatable.",
            metavar="FIELD",
        ),
    ] = None,
) -> None:
    """Show items, labels per reviewer, judge coverage and spend.

    \b
    Example:
      medjudge status trial.db
      medjudge status trial.db --json | jq .reviewers
      medjudge status trial.db --by specialty --by p
    """
    with opened(study) as s:
        data = summary(s)
        _add_endpoints(data["judges"])
        fast = fast_status(s)
        if fast is not None:
            data["fast_labels"] = fast
        try:
            sliced = {name: status_by(s, name) for name in by or []}
        except UnknownField as exc:
            raise UserError(f"--by: {exc}") from None
    if sliced:
        data["by"] = {name: [asdict(x) for x in rows] for name, rows in sliced.items()}
    if json_output:
        sys.stdout.write(json_escaped(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")
        return
    items = data["items"]
    out(f"study {data['study']} — {data['path']}")
    out(
        f"items: {items['total']} ("
        + ", ".join(f"{k} {v}" for k, v in items.items() if k != "total")
        + ")"
        + (f"; {data['retired_items']} retired" if data["retired_items"] else "")
        + f"; units to label: {data['units']['total']}; blind: {'yes' if data['blind'] else 'no'}"
    )
    out("reviewers:" if data["reviewers"] else "reviewers: none yet")
    for r in data["reviewers"]:
        assigned = f", {r['items_assigned']} assigned" if r["items_assigned"] else ""
        out(
            f"  {r['name']}: {r['units_labelled']} labels, {r['items_done']} items complete"
            + assigned
        )
    out("judges:" if data["judges"] else "judges: none yet")
    for j in data["judges"]:
        out(f"  {j['name']}: {j['units_labelled']} verdicts, {j['missing_verdicts']} missing")
        if j["not_judged_items"]:
            why = "; ".join(f"{n} × {reason}" for reason, n in j["not_judged_why"].items())
            out(
                f"    not judged: {j['not_judged_items']} item(s) (why: {printable(why)}); "
                "the next run asks again"
            )
        endpoint = (j["version"] or {}).get("endpoint")
        out(
            f"    {describe_version(j['version'])}" + (f"; endpoint {endpoint}" if endpoint else "")
        )
    c = data["judge_calls"]
    if c["total"]:
        out(
            f"judge calls: {c['total']} ({c['failed_samples']} failed samples, {c['errors']} errors), "
            f"{c['input_tokens'] + c['output_tokens']:,} tokens, ${c['cost_usd']:.4f}"
        )
    for b in data["batches_pending"]:
        out(
            f"batch at the provider: {b['judge']} {b['id'] or '(submission unconfirmed)'}, "
            f"{b['calls']} calls, {b['provider_status'] or b['state']} — `judge --batch` collects it"
        )
    for role, logins in data["roles"].items():
        out(f"{role}s: " + ", ".join(logins))
    if data["adjudications"]:
        out(f"adjudicated units: {data['adjudications']}")
    if fast is not None:
        out(fast_status_line(fast))
    for name, rows in sliced.items():
        _print_slices(name, rows)


def _print_slices(name: str, rows: list[StatusSlice]) -> None:
    """One line per value of a field: items, units, labels per reviewer, verdicts, spend."""
    out(f"by {name}:")
    for r in rows:
        labels = ", ".join(f"{k} {v}" for k, v in sorted(r.labels.items())) or "no labels"
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r.verdicts.items()))
        line = f"  {name} = {r.value}: {r.items} items, {r.units} units; labels: {labels}"
        if verdicts:
            line += f"; verdicts: {verdicts}"
        if r.calls:
            line += f"; {r.calls} calls, ${r.cost_usd:.4f}"
        out(line)


class _TerminalSafe(io.TextIOBase):
    """Export rows for a terminal: control and bidi characters in the data are escaped
    (``\\uXXXX`` in JSONL, which stays the same JSON; visible escapes in CSV)."""

    def __init__(self, target: IO[str], fmt: Format) -> None:
        self.target = target
        self.clean = json_escaped if fmt is Format.jsonl else printable

    def write(self, text: str) -> int:
        self.target.write(self.clean(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()


def export(
    study: StudyArg,
    table: Annotated[Table, typer.Argument(help="What to export.")],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Row format.")] = Format.jsonl,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="File (default, or -: stdout).")
    ] = None,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide",
            help="labels only: one row per unit, one column per reviewer and judge — the input "
            "of `medjudge agreement` (--unit unit --by criterion).",
        ),
    ] = False,
) -> None:
    """Export labels, verdicts (with their trail), judge calls, adjudications, the history,
    the ledger (per item: each reviewer's active seconds, each judge's calls, tokens and cost)
    or the assignments (item, reviewer, batch, and `manual` or `sample:SEED`).

    \b
    Example:
      medjudge export trial.db labels --format csv -o labels.csv
      medjudge export trial.db verdicts | head -1 | jq .trail
      medjudge export trial.db labels --wide -f csv -o wide.csv
      medjudge export trial.db assignments -f csv
      medjudge agreement wide.csv -r drchen,drpatel --unit unit --by criterion
    """
    if wide and table is not Table.labels:
        raise typer.BadParameter("--wide applies to the labels table only", param_hint="--wide")
    output = standard_output(output)

    def write(s: Study, stream: IO[str]) -> int:
        # While blind, a reviewer exports only their own labels; the rest needs a role.
        me = login_name()
        only = None
        if not sees_everything(s, me):
            if table is not Table.labels and table is not Table.ledger:
                require_unblinded(s, me, f"export {table.value}")
            only = me
        if wide:
            try:
                return export_wide.write_wide(s, fmt.value, stream, only_rater=only)
            except ValueError as exc:
                raise UserError(f"{study}: cannot export wide labels: {exc}") from None
        return exporting.write(s, table.value, fmt.value, stream, only_rater=only)

    if output is not None:
        with user_errors():  # before the study is even read
            refuse_protected(output, (study,))
    with opened(study) as s:
        if output is None:
            # Piped, the rows are the data, byte for byte; on a terminal they cannot act on it.
            stream = cast(IO[str], _TerminalSafe(sys.stdout, fmt)) if is_tty() else sys.stdout
            write(s, stream)
            return
        with text_output(output, studies=(study,)) as fh:  # never the study; never half a file
            n = write(s, fh)
    out(f"wrote {n} {'wide ' if wide else ''}{table.value} rows to {output}")


def backup(
    study: StudyArg,
    dest: Annotated[Path, typer.Argument(help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option("--force", help="Replace DEST if it exists.")] = False,
) -> None:
    """Copy the study safely while reviewers may be working (SQLite's online backup).

    Copying the file with cp while it is in use can lose the latest labels; this copies a
    consistent snapshot, checks it and writes it as one self-contained file.

    \b
    Example:
      medjudge backup trial.db backups/trial-2024-06-01.db
    """
    with opened(study) as s:
        try:
            size = backup_study(s, dest, overwrite=force)
        except StudyError as exc:
            raise UserError(str(exc)) from None
    out(f"backed up {study} to {dest} ({size:,} bytes, integrity checked)")
