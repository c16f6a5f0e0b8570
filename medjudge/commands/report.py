"""``medjudge report`` (a study's agreement report) and ``medjudge agreement`` (any label file)."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from medjudge.store.literal import json_escaped
from medjudge.store.paths import login_name
from medjudge.store.slices import metadata_fields
from medjudge.store.visibility import require_unblinded

from .common import UserError, opened, out, user_errors
from .output import atomic_output, refuse_study

if TYPE_CHECKING:  # the statistics (numpy, scipy) load only when a command runs
    from medjudge.judging.stats.agreement import Estimate, MultiRaterStats, TwoRaterStats
    from medjudge.judging.stats.label_file import SliceStats

StudyArg = Annotated[Path, typer.Argument(help="The study file (one SQLite file per study).")]


class ReportFormat(str, Enum):
    """Output formats of ``report``."""

    md = "md"
    html = "html"
    json = "json"
    csv = "csv"


def write_output(text: str, output: Path | None, study: Path | None = None) -> None:
    """Write to stdout, or to ``output`` via ``output.part`` and a rename (never half a file).

    Raises:
        UserError: the folder is missing or the file cannot be written.
    """
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_output(output, study=study) as fh:
        fh.write(text)


def report(
    study: StudyArg,
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
        Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
    ] = None,
    n_boot: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples for the intervals.")
    ] = 1000,
    seed: Annotated[
        int | None, typer.Option(help="Bootstrap seed (default: the study's own seed).")
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
        ),
    ] = None,
    project: Annotated[
        int,
        typer.Option(min=1, help="Project reviewer time and judge cost for this many more items."),
    ] = 100,
) -> None:
    """Write the study's report: agreement, judge consistency, win rates, K-QA, cost and time.

    Every figure has its n and a 95% interval (bootstrap over units with a fixed seed for
    whole-criterion figures); undefined figures say why. The protocol (judges, templates and
    their hashes, voting rules) and the judge spend and reviewer time are included.

    \b
    Example:
      medjudge report trial.db --format html -o trial-report.html
      medjudge report trial.db --format md > results.md
      medjudge report trial.db -f json | jq '.criteria[0].comparisons[0]'
    """
    if output is not None:
        with user_errors():  # before the study is even read
            refuse_study(output, study)
    from medjudge.judging.report.build import ReportOptions, build_report, render

    with opened(study) as s:
        require_unblinded(s, login_name(), "the report")
        fields = tuple(by or ())
        known = set(metadata_fields(s))
        unknown = [f for f in fields if f not in known]
        if unknown:
            there = ", ".join(sorted(known)) or "none"
            raise UserError(
                f"--by: no item has the field {unknown[0]!r} (metadata fields: {there})"
            )
        data = build_report(
            s,
            ReportOptions(
                n_boot=n_boot, seed=seed, slices=slices, project_items=project, by=fields
            ),
        )
        text = render(data, fmt.value)
        if fmt.value == "json":
            text = json_escaped(text)  # same JSON; C1 controls and bidi overrides as \uXXXX
        write_output(text, output, study)
    if output is not None:
        out(f"wrote the {fmt.value} report to {output}")


# --------------------------------------------------------------------------- agreement


def _fmt(e: Estimate | None, pct: bool = False) -> str:
    if e is None:
        return "–"
    if e.value is None:
        return f"undefined ({e.reason})"
    scale, unit, digits = (100.0, "%", 1) if pct else (1.0, "", 3)
    text = f"{e.value * scale:.{digits}f}{unit}"
    if e.ci_low is not None and e.ci_high is not None:
        text += f" [{e.ci_low * scale:.{digits}f}, {e.ci_high * scale:.{digits}f}]"
    return text


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _print_two(s: TwoRaterStats) -> None:
    dropped = f" ({s.n_dropped} with a missing label left out)" if s.n_dropped else ""
    rows = [
        ["n", f"{s.n} units labelled by both{dropped}"],
        ["% agreement", _fmt(s.percent, pct=True)],
        ["Cohen's κ", _fmt(s.cohen)],
        ["Gwet's AC1", _fmt(s.gwet_ac1)],
    ]
    if s.ordinal:
        rows += [
            [f"weighted κ ({s.weights})", _fmt(s.weighted_kappa)],
            ["Spearman ρ", _fmt(s.spearman)],
            ["Pearson r", _fmt(s.pearson)],
        ]
    for line in _columns(rows):
        out("  " + line)


def _print_multi(m: MultiRaterStats) -> None:
    rows = [
        ["units", f"{m.n_units} ({m.n_complete} labelled by every rater)"],
        ["Fleiss' κ", f"{_fmt(m.fleiss)}  n={m.fleiss.n}"],
        [
            "Krippendorff's α" + (" (ordinal)" if m.ordinal else ""),
            f"{_fmt(m.krippendorff_alpha)}  n={m.krippendorff_alpha.n}",
        ],
        [
            "mean pairwise % agreement",
            f"{_fmt(m.mean_pairwise_percent, pct=True)}  n={m.mean_pairwise_percent.n}",
        ],
    ]
    for line in _columns(rows):
        out("  " + line)
    out("  pairwise:")
    header = ["rater A", "rater B", "n", "% agreement", "Cohen's κ", "Gwet's AC1"]
    if m.ordinal:
        header += ["weighted κ", "Spearman ρ", "Pearson r"]
    table = [header]
    for (a, b), s in m.pairwise.items():
        row = [str(a), str(b), str(s.n), _fmt(s.percent, pct=True), _fmt(s.cohen), _fmt(s.gwet_ac1)]
        if m.ordinal:
            row += [_fmt(s.weighted_kappa), _fmt(s.spearman), _fmt(s.pearson)]
        table.append(row)
    for line in _columns(table):
        out("    " + line)
    out("  agreement with the majority of the others:")
    for line in _columns(
        [["rater", "n", "% agreement"]]
        + [[str(r), str(e.n), _fmt(e, pct=True)] for r, e in m.vs_majority.items()]
    ):
        out("    " + line)


AGREEMENT_JSON_HELP = (
    "Print JSON: {file, raters, unit, by, ordinal, confidence, slices: [{slice ('all' or the "
    "--by value), n_rows, kind ('two_raters' or 'multi_raters'), stats}]}. Two raters' stats: "
    "n, n_dropped, percent, chance, cohen, gwet_ac1, weighted_kappa, spearman, pearson (null "
    "unless --ordinal), confusion {categories, matrix}. Three or more: raters, categories, "
    "n_units, n_complete, fleiss, krippendorff_alpha, mean_pairwise_percent, pairwise [per "
    "pair: rater_a, rater_b + the two-rater keys], vs_majority [rater + estimate]. Every "
    "estimate is {value, ci_low, ci_high, n, reason, method, se}; undefined values are null "
    "with a reason."
)


def agreement(
    file: Annotated[
        Path,
        typer.Argument(help="A CSV, JSONL or JSON file: one row per unit, one column per rater."),
    ],
    raters: Annotated[
        str,
        typer.Option("--raters", "-r", help="The rater columns, comma separated (two or more)."),
    ],
    unit: Annotated[
        str | None,
        typer.Option(help="A column naming the unit (checked for duplicates; not a rater)."),
    ] = None,
    by: Annotated[
        str | None, typer.Option(help="Also compute the figures per value of this column.")
    ] = None,
    ordinal: Annotated[
        bool,
        typer.Option(
            help="Labels are numbers on an ordered scale: adds weighted κ, Spearman, Pearson and "
            "ordinal Krippendorff's α."
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help=AGREEMENT_JSON_HELP)] = False,
    n_boot: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples (α, mean pairwise agreement).")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
) -> None:
    """Agreement statistics for any file of labels — no study needed.

    Wide format: one row per unit, one column per rater; an empty cell (CSV) or null / absent
    key (JSONL) is a missing label. Two raters: percent agreement, Cohen's κ and Gwet's AC1.
    Three or more: Fleiss' κ, Krippendorff's α, mean pairwise agreement, the pairwise table
    and each rater against the majority of the others. 95% intervals throughout.

    \b
    Example:
      medjudge agreement labels.csv --raters ann,bob,cy
      medjudge agreement ratings.jsonl -r dr1,dr2 --ordinal --by batch
      medjudge agreement labels.csv -r ann,bob --unit id --json | jq '.slices[0].stats.cohen'
    """
    with user_errors():
        names = [r.strip() for r in raters.split(",")]
        from medjudge.judging.stats.label_file import read_label_table, table_stats

        table = read_label_table(file, names, unit=unit, by=by, ordinal=ordinal)
        try:
            results = table_stats(
                table, by=by is not None, ordinal=ordinal, n_boot=n_boot, seed=seed
            )
        except ValueError as exc:
            raise UserError(f"{file}: {exc}") from None
    if json_output:
        data: dict[str, Any] = {
            "file": str(file),
            "raters": table.raters,
            "unit": unit,
            "by": by,
            "ordinal": ordinal,
            "confidence": 0.95,
            "slices": [r.to_dict() for r in results],
        }
        sys.stdout.write(
            json_escaped(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
        )
        return
    out(
        f"{file}: {len(table.rows)} units, raters {', '.join(table.raters)}"
        + (" (ordinal)" if ordinal else "")
        + "; 95% intervals in brackets"
    )
    for r in results:
        _print_slice(r, by)


def _print_slice(r: SliceStats, by: str | None) -> None:
    from medjudge.judging.stats.agreement import TwoRaterStats  # noqa: F811 - at run time

    if by is not None:
        out("")
        out(f"{'all rows' if r.slice == 'all' else f'{by} = {r.slice}'} ({r.n_rows} units)")
    if isinstance(r.stats, TwoRaterStats):
        _print_two(r.stats)
    else:
        _print_multi(r.stats)
