"""``medjudge report``: a study's agreement report (md, html, json, csv)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from medjudge.store.literal import json_escaped
from medjudge.store.paths import login_name
from medjudge.store.safe_write import refuse_protected, text_output
from medjudge.store.slices import BUILT_IN, metadata_fields
from medjudge.store.visibility import require_unblinded

from .common import (
    EpsilonOption,
    FdrQOption,
    OnlyStudyArg,
    UserError,
    opened,
    out,
    standard_output,
    user_errors,
)


class ReportFormat(str, Enum):
    """Output formats of ``report``."""

    md = "md"
    html = "html"
    json = "json"
    csv = "csv"


def write_output(text: str | Iterable[str], output: Path | None, study: Path | None = None) -> None:
    """Write text (or its pieces, as they come) to stdout, or to ``output`` through
    :func:`~medjudge.store.safe_write.text_output` (never over the study, never half a file).

    Raises:
        OutputError: the output is refused, its folder is missing or it cannot be written.
    """
    pieces = (text,) if isinstance(text, str) else text
    if output is None:
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    with text_output(output, studies=() if study is None else (study,)) as fh:
        for piece in pieces:
            fh.write(piece)


def report(
    study: OnlyStudyArg,
    fmt: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            "-f",
            help="md (tables for a paper), html (one self-contained file with "
            "charts), json (every figure), csv (long format: one row per figure).",
        ),
    ] = ReportFormat.md,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="File to write (default, or -: stdout)."),
    ] = None,
    n_boot: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples for the intervals.", metavar="N")
    ] = 2000,
    seed: Annotated[
        int | None,
        typer.Option(help="Bootstrap seed (default: the study's own seed).", metavar="SEED"),
    ] = None,
    slices: Annotated[
        bool, typer.Option(help="Include figures per batch, answer source and statement category.")
    ] = True,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Also give every figure per value of an item field: any metadata field of the "
            "import rows (specialty, test, p, …). Repeatable; numeric fields sort numerically.",
            metavar="FIELD",
        ),
    ] = None,
    project: Annotated[
        int,
        typer.Option(
            min=1,
            help="Project reviewer time and judge cost for this many more items.",
            metavar="N",
        ),
    ] = 100,
    target_halfwidth: Annotated[
        float,
        typer.Option(
            help="Corrected figures (judge audit): the 95% interval half-width that 'labels "
            "needed' aims at (0.05: ±5 percentage points).",
            metavar="H",
        ),
    ] = 0.05,
    epsilon: EpsilonOption = 0.2,
    fdr_q: FdrQOption = 0.05,
    alt_test_min_items: Annotated[
        int,
        typer.Option(
            min=2,
            help="The alternative annotator test leaves out physicians with fewer usable "
            "items (as agreement --min-items; the paper's 30: the t-test's normality).",
            metavar="N",
        ),
    ] = 30,
) -> None:
    """Write the study's report: agreement, judge consistency, win rates, K-QA, cost and time;
    with a random physician sample (assign --sample), the judge's figures corrected by it; per
    judge version and criterion, the alternative annotator test (may it stand in for the
    physicians?).

    Every figure has its n and a 95% interval (bootstrap over units with a fixed seed for
    whole-criterion figures); undefined figures say why. The protocol (judges, templates and
    their hashes, voting rules) and the judge spend and reviewer time are included.

    \b
    Example:
      medjudge report trial.db --format html -o trial-report.html
      medjudge report trial.db --format md > results.md
      medjudge report trial.db -f json | jq '.criteria[0].comparisons[0]'
    """
    if not 0 < target_halfwidth < float("inf"):
        raise typer.BadParameter(
            f"{target_halfwidth}: give a positive half-width, e.g. 0.05",
            param_hint="--target-halfwidth",
        )
    if not 0 <= epsilon < 1:
        raise typer.BadParameter(
            f"{epsilon}: give a margin in [0, 1), e.g. 0.2", param_hint="--epsilon"
        )
    if not 0 < fdr_q < 1:
        raise typer.BadParameter(f"{fdr_q}: give a rate in (0, 1), e.g. 0.05", param_hint="--fdr-q")
    output = standard_output(output)
    if output is not None:
        with user_errors():  # before the study is even read
            refuse_protected(output, (study,))
    with opened(study) as s:
        # refused before anything of the report is loaded or built (seconds on a busy server)
        require_unblinded(s, login_name(), "the report")
        from medjudge.judging.analysis.alt_tests import AltTestOptions
        from medjudge.judging.report.build import ReportOptions, build_report, render

        fields = tuple(by or ())
        known = {*BUILT_IN, *metadata_fields(s)}  # as status --by: batch, kind, metadata
        unknown = [f for f in fields if f not in known]
        if unknown:
            there = ", ".join(sorted(known)) or "none"
            raise UserError(f"--by: no item has the field {unknown[0]!r} (fields: {there})")
        data = build_report(
            s,
            ReportOptions(
                n_boot=n_boot,
                seed=seed,
                slices=slices,
                project_items=project,
                by=fields,
                target_halfwidth=target_halfwidth,
                alt_test=AltTestOptions(epsilon, fdr_q, alt_test_min_items),
            ),
        )
        if fmt.value == "json":  # written as it is made: never the whole text in memory
            from medjudge.judging.report.render.json import json_chunks

            # same JSON; C1 controls and bidi overrides as \uXXXX (one character at a time,
            # so escaping piece by piece equals escaping the whole)
            write_output((json_escaped(c) for c in json_chunks(data)), output, study)
        elif fmt.value == "csv":  # also written as it is made
            from medjudge.judging.report.render.csv import csv_chunks

            write_output(csv_chunks(data), output, study)
        else:
            write_output(render(data, fmt.value), output, study)
    if output is not None:
        out(f"wrote the {fmt.value} report to {output}")
