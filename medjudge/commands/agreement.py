"""``medjudge agreement``: agreement statistics for any file of labels, no study needed."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from medjudge.judging.stats.figures import LABELS
from medjudge.store.literal import json_escaped
from medjudge.store.settings import DEFAULT_SEED

from . import alt_test as alt_test_cli
from .agreement_labels import option_units, read_categories, read_tie, study_categories
from .agreement_show import figure_row, print_slice
from .alt_test import ALT_TEST_JSON_HELP
from .common import EpsilonOption, FdrQOption, UserError, out, user_errors

if TYPE_CHECKING:  # the statistics (numpy, scipy) load only when the command runs
    from medjudge.judging.stats.label_file import LabelTable


class Scale(str, Enum):
    """Levels of measurement for ``agreement --scale``."""

    nominal = "nominal"
    ordinal = "ordinal"
    interval = "interval"


AGREEMENT_JSON_HELP = (
    "Print JSON: {file, raters, unit, by, scale, categories, categories_inferred, categories_source, tie, "
    "confidence, intervals {figure: method}, slices: [{slice ('all' or the --by value), "
    "without_ties, n_rows, kind ('two_raters' or 'multi_raters'), stats}]}. Two raters: n, "
    "n_dropped, scale, categories, percent, chance, cohen, gwet_ac1, bennett_s, "
    "weighted_kappa_linear, weighted_kappa_quadratic, spearman, pearson (null on a nominal "
    "scale), icc (interval scale), confusion {categories, cells [[row, column, count], ...] "
    "(the non-empty cells, as indices into categories), matrix (the full table; null past 200 "
    "categories)}. Three or more: n_units, n_pairable, n_complete, "
    "units_note, fleiss, fleiss_per_category, krippendorff_alpha, gwet_ac1_all_units, "
    "bennett_s_all_units (as irrCAC's gwet and bp), mean_pairwise_percent "
    "(pooled), per_unit_pairwise_percent, randolph_kappa, unanimous_share, icc, pairwise, "
    "vs_majority. Every estimate is {value, ci_low, ci_high, n, reason, method, se, unstable}; "
    "undefined values are null with a reason."
)


def agreement(
    file: Annotated[
        Path | None,
        typer.Argument(
            metavar="FILE",
            help="A CSV, JSONL or JSON file: one row per unit, one column per rater; - reads "
            "standard input (JSON if it starts with [, JSONL with {, else CSV). Required "
            "unless --alt-test-plan plans from options.",
        ),
    ] = None,
    raters: Annotated[
        str | None,
        typer.Option(
            "--raters",
            "-r",
            help="The rater columns, comma separated (two or more); required with a file.",
        ),
    ] = None,
    unit: Annotated[
        str | None,
        typer.Option(help="A column naming the unit (checked for duplicates; not a rater)."),
    ] = None,
    by: Annotated[
        str | None, typer.Option(help="Also compute the figures per value of this column.")
    ] = None,
    categories: Annotated[
        str | None,
        typer.Option(
            help="The declared label set, comma separated; for ordinal and interval data the "
            "scale in order (e.g. 1,2,3,4,5 or poor,fair,good). It sets the categories of AC1, "
            "Bennett's S, Randolph's κ and the weight positions of weighted κ. Without it the "
            "observed labels are used, and the output says so."
        ),
    ] = None,
    scale: Annotated[
        Scale,
        typer.Option(
            help="nominal (κ, AC1, α), ordinal (+ weighted κ linear and quadratic, Spearman, "
            "Pearson, ordinal α) or interval (+ ICC(2,1), interval α)."
        ),
    ] = Scale.nominal,
    ordinal: Annotated[bool, typer.Option(help="Shorthand for --scale ordinal.")] = False,
    tie: Annotated[
        str | None,
        typer.Option(
            help="A label meaning 'tie': also print every figure without the units where any "
            "rater said it (as the long-form medical QA benchmark reports). Read as the scale "
            "reads the labels (on a numeric scale 0 and 0.0 are the same label); a label no "
            "rater gave is an error."
        ),
    ] = None,
    sets: Annotated[
        bool,
        typer.Option(
            "--sets",
            help="Labels are sets of ticked options (multi-select: 'A,C'; '-' or empty set: "
            "none), the options declared by --categories. Each option of each unit is a binary "
            "unit (ticked / not ticked), sliced by option, and the sets as wholes get "
            "Krippendorff's α with the MASI distance.",
        ),
    ] = False,
    study: Annotated[
        Path | None,
        typer.Option(
            help="A study file: with --criterion, its declared (or default) categories and "
            "scale, as the study's report counts them (--categories and --scale still win)."
        ),
    ] = None,
    criterion: Annotated[
        str | None, typer.Option(help="The study criterion whose categories --study gives.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help=AGREEMENT_JSON_HELP + ALT_TEST_JSON_HELP)
    ] = False,
    n_boot: Annotated[
        int, typer.Option(min=200, help="Bootstrap resamples (the BCa intervals).", metavar="N")
    ] = 2000,
    seed: Annotated[
        int,
        typer.Option(
            help="Bootstrap seed (the default is a new study's, so figures match); also the "
            "--alt-test-plan simulations' seed.",
            metavar="SEED",
        ),
    ] = DEFAULT_SEED,
    alt_test: Annotated[
        str | None,
        typer.Option(
            "--alt-test",
            metavar="RATER",
            help="Also run the alternative annotator test (Calderon, Reichart & Dror 2025) of "
            "this --raters column, the judge, against the other columns, the physicians: per "
            "physician left out, does the judge match the others at least as well, up to "
            "--epsilon? Scored by accuracy on a nominal scale, by −RMSE on an ordinal or "
            "interval one. Over all rows, whatever --by.",
        ),
    ] = None,
    epsilon: EpsilonOption = 0.2,
    fdr_q: FdrQOption = 0.05,
    min_items: Annotated[
        int,
        typer.Option(
            min=2,
            help="The alt-test leaves out physicians with fewer usable items (the paper's 30: "
            "the t-test's normality).",
            metavar="N",
        ),
    ] = 30,
    min_raters: Annotated[
        int,
        typer.Option(
            min=2,
            help="Physicians an item needs for the alt-test, the left-out one included (2: "
            "one other to compare with).",
            metavar="N",
        ),
    ] = 2,
    alt_test_plan: Annotated[
        bool,
        typer.Option(
            "--alt-test-plan",
            help="Instead of the figures, simulate studies to see how many items the alt-test "
            "needs: the chance to pass per item count. Figures from a pilot FILE with "
            "--raters and --alt-test, or (before a study, no FILE) from --physician-agreement, "
            "--judge-agreement, --physicians and --categories or --label-shares; options given "
            "win over the pilot's.",
        ),
    ] = False,
    physician_agreement: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="--alt-test-plan: the physicians' pairwise agreement (0.7).",
            metavar="X",
        ),
    ] = None,
    judge_agreement: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="--alt-test-plan: the judge's agreement with one physician (0.7).",
            metavar="X",
        ),
    ] = None,
    physicians: Annotated[
        int | None,
        typer.Option(min=3, help="--alt-test-plan: physicians (default 3).", metavar="N"),
    ] = None,
    label_shares: Annotated[
        str | None,
        typer.Option(
            help="--alt-test-plan: how often each label occurs, comma separated (e.g. "
            "0.6,0.3,0.1); default: --categories equally often."
        ),
    ] = None,
    plan_items: Annotated[
        str,
        typer.Option(help="--alt-test-plan: item counts, FROM:TO:STEP or comma separated."),
    ] = "30:200:10",
    sims: Annotated[
        int,
        typer.Option(
            min=100, help="--alt-test-plan: simulated studies per item count.", metavar="N"
        ),
    ] = 1000,
) -> None:
    """Agreement statistics for any file of labels — no study needed.

    Wide format: one row per unit, one column per rater; an empty cell (CSV) or null / absent
    key (JSONL) is a missing label. Two raters: percent agreement, Cohen's κ (with pₑ), Gwet's
    AC1, Bennett's S. Three or more: Fleiss' κ (overall and per category), Krippendorff's α,
    Gwet's AC1 and Bennett's S (as irrCAC computes them), mean pairwise agreement (pooled over
    every pair of labels on a unit) and the per-unit mean, Randolph's κ, the unanimous share,
    the pairwise table and each rater against the majority of the others. Each figure prints
    its n: α and the pairwise figures use every unit with at least two labels, Fleiss' κ only
    units labelled by every rater. 95% intervals, one method per figure (named in the output);
    figures from fewer than 20 units are flagged unstable.

    \b
    Example:
      medjudge agreement labels.csv --raters ann,bob,cy --categories A,B,tie,neither --tie tie
      medjudge agreement ratings.jsonl -r dr1,dr2 --scale ordinal --categories 1,2,3,4,5
      medjudge agreement labels.csv -r ann,bob --unit id --json | jq '.slices[0].stats.cohen'
      medjudge agreement labels.csv -r dr1,dr2,dr3,gpt --alt-test gpt
      medjudge agreement --alt-test-plan --categories A,B,tie --physician-agreement 0.7 \\
        --judge-agreement 0.7 --physicians 3
    """
    level = "ordinal" if ordinal and scale is Scale.nominal else scale.value
    asked = _PlanAsked(
        physician_agreement,
        judge_agreement,
        physicians,
        label_shares,
        plan_items,
        epsilon,
        fdr_q,
        sims,
        seed,
        json_output,
    )
    source = "declared"
    with user_errors():
        if (study is None) != (criterion is None):
            raise UserError("--study and --criterion go together")
        if study is not None and criterion is not None:
            text, study_level, source = study_categories(study, criterion)
            if categories is None:
                categories = text
            else:
                source = "declared"
            if scale is Scale.nominal and not ordinal:
                level = study_level
        declared, numeric = read_categories(categories, level)
        if alt_test_plan and file is None:
            _plan(None, None, level, declared, asked)
            return
        if file is None:
            raise typer.BadParameter(
                "a file of labels is needed (or --alt-test-plan)", param_hint="FILE"
            )
        if raters is None:
            raise typer.BadParameter("name the rater columns", param_hint="'--raters' / '-r'")
        names = [r.strip() for r in raters.split(",")]
        judge = None if alt_test is None else alt_test_cli.judge_column(alt_test, names)
        if judge is not None and sets:
            raise UserError("--alt-test does not go with --sets (options, not labels)")
        from medjudge.judging.stats.conventions import INTERVAL_METHODS
        from medjudge.judging.stats.label_file import read_label_table, table_stats

        table = read_label_table(file, names, unit=unit, by=by, numeric=numeric)
        if alt_test_plan:
            _plan(table, judge, level, declared, asked)
            return
        masi = None
        if sets:
            from medjudge.judging.stats.agreement.sets import OPTION_CATEGORIES

            table, masi = option_units(table, declared, n_boot, seed)
            declared, level = list(OPTION_CATEGORIES), "nominal"
            by = by or "option"
        else:  # labels that are all numbers compare as numbers ("1.0" is 1)
            from medjudge.judging.stats.label_file import numeric_labels

            try:
                table, declared = numeric_labels(table, declared)
            except ValueError as exc:
                raise UserError(str(exc)) from None
        if declared is not None and source.startswith("the default"):
            # as the study's report: labels outside the default set that raters gave count too
            extra = sorted(set(table.labels()) - set(declared), key=str)
            if extra:
                declared = [*declared, *extra]
                source += f", and {', '.join(map(str, extra))} given in the file"
        tie_label = read_tie(tie, table, numeric)
        try:
            results = table_stats(
                table,
                by=by is not None,
                scale=level,
                categories=declared,
                tie=tie_label,
                n_boot=n_boot,
                seed=seed,
            )
        except ValueError as exc:
            raise UserError(f"{file}: {exc}") from None
        alt = None
        if judge is not None:
            alt = alt_test_cli.run(
                table, judge, level, declared, epsilon, fdr_q, min_items, min_raters
            )
    from medjudge.judging.stats.agreement.core import TwoRaterStats
    from medjudge.judging.stats.agreement.labels import json_label

    first = results[0].stats
    cats = first.confusion.categories if isinstance(first, TwoRaterStats) else first.categories
    if json_output:
        data: dict[str, Any] = {
            "file": str(file),
            "raters": table.raters,
            "unit": unit,
            "by": by,
            "scale": level,
            "categories": cats,
            "categories_inferred": declared is None,
            "categories_source": source if declared is not None else "inferred",
            "tie": json_label(tie_label),
            "confidence": 0.95,
            "intervals": INTERVAL_METHODS,  # figure -> its one interval method
            "slices": [r.to_dict() for r in results],
        }
        if masi is not None:
            data["masi_alpha"] = masi.to_dict()
        if alt is not None:
            data["alt_test"] = alt.to_dict()
        sys.stdout.write(
            json_escaped(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
        )
        return
    out(
        f"{file}: {table.n_units} units, raters {', '.join(table.raters)}; {level} scale; "
        "95% intervals in brackets, their method after n"
    )
    if declared is None:
        source = "inferred from the labels; declare them with --categories"
    out(f"categories: {', '.join(map(str, cats))} ({source})")
    if masi is not None:
        out(
            f"option sets as wholes: {figure_row(LABELS['masi_alpha'], masi)[1]} (n={masi.n} units)"
        )
    for r in results:
        print_slice(r, by)
    if alt is not None:
        alt_test_cli.show(alt, level, by)


@dataclass(frozen=True)
class _PlanAsked:
    """The options of ``--alt-test-plan`` (given ones win over a pilot file's figures)."""

    physician_agreement: float | None
    judge_agreement: float | None
    physicians: int | None
    label_shares: str | None
    plan_items: str
    epsilon: float
    fdr_q: float
    sims: int
    seed: int
    json_output: bool


def _plan(
    table: LabelTable | None,
    judge: str | None,
    level: str,
    declared: list[Any] | None,
    asked: _PlanAsked,
) -> None:
    """``--alt-test-plan``: simulate, then print the plan."""
    options = {
        "physician_agreement": asked.physician_agreement,
        "judge_agreement": asked.judge_agreement,
        "n_physicians": asked.physicians,
        "label_shares": None
        if asked.label_shares is None
        else alt_test_cli.label_shares(asked.label_shares),
        "item_counts": alt_test_cli.item_counts(asked.plan_items),
        "epsilon": asked.epsilon,
        "q": asked.fdr_q,
        "n_sims": asked.sims,
        "seed": asked.seed,
    }
    plan, source = alt_test_cli.plan(table, judge, level, declared, options)
    alt_test_cli.show_plan(plan, source, asked.json_output)
