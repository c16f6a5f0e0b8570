"""``medjudge agreement --alt-test RATER`` and ``--alt-test-plan``: the alternative annotator
test of a judge column against the other raters (the physicians), and its planner."""

from __future__ import annotations

import json
import sys
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from medjudge.store.literal import json_escaped

from .common import UserError, out

if TYPE_CHECKING:  # numpy and scipy load only when the command runs
    from medjudge.judging.stats.alt_test import AltTestResult
    from medjudge.judging.stats.alt_test_plan import AltTestPlan
    from medjudge.judging.stats.label_file import LabelTable

ALT_TEST_JSON_HELP = (
    " With --alt-test: alt_test {judge, scoring ('accuracy' or 'neg_rmse'), epsilon, q, "
    "min_items, min_raters, physicians [{name, n_items, rho_f, rho_h, t, p, rejected, "
    "excluded, note}], winning_rate, advantage_probability, passed, reason} (not computed: "
    "null figures and passed, with the reason). With --alt-test-plan, only the plan: "
    "{source, label_shares, physician_agreement, judge_agreement, n_physicians, epsilon, q, "
    "scoring, n_sims, seed, physician_accuracy, judge_accuracy, points [{n_items, "
    "pass_probability, mean_winning_rate, mean_advantage_probability}], items_needed}."
)
SCORING_OF_SCALE = {"nominal": "accuracy", "ordinal": "neg_rmse", "interval": "neg_rmse"}
SCORING_TEXT = {
    "accuracy": "accuracy, the share of equal labels",
    "neg_rmse": "−RMSE, minus the root mean squared difference",
}


def judge_column(judge: str, raters: Sequence[str]) -> str:
    """``--alt-test RATER``, checked against ``--raters``."""
    judge = judge.strip()
    if judge not in raters:
        raise UserError(f"--alt-test {judge!r}: not one of --raters ({', '.join(raters)})")
    return judge


def run(
    table: LabelTable,
    judge: str,
    scale: str,
    order: Sequence[Hashable] | None,
    epsilon: float,
    q: float,
    min_items: int,
    min_raters: int,
) -> AltTestResult:
    """The alt-test of ``judge`` over every row of ``table`` (the scale sets the scoring)."""
    from medjudge.judging.stats.alt_test import alt_test

    rows = list(zip(*table.columns, strict=True))
    try:
        return alt_test(
            rows,
            table.raters,
            judge,
            scoring=SCORING_OF_SCALE[scale],
            epsilon=epsilon,
            q=q,
            min_items=min_items,
            min_raters=min_raters,
            order=order,
        )
    except ValueError as exc:
        raise UserError(f"{table.path}: --alt-test: {exc}") from None


def show(r: AltTestResult, scale: str, by: str | None) -> None:
    """The alt-test section of the text output."""
    names = ", ".join(p.name for p in r.physicians) or "none"
    scope = " (over all rows, not per --by slice)" if by else ""
    out("")
    out(f"alternative annotator test{scope}: judge {r.judge} vs physicians {names}")
    out(f"  scoring: {SCORING_TEXT[r.scoring]} ({scale} scale)")
    out(
        f"  ε = {r.epsilon:g}, Benjamini–Yekutieli q = {r.q:g}; an item needs ≥ {r.min_raters} "
        f"physicians, a physician ≥ {r.min_items} items"
    )
    if r.physicians:
        rows = [["physician", "items", "ρ_f", "ρ_h", "t", "p", "judge wins"]]
        for p in r.physicians:
            if p.excluded is not None:
                rows.append([p.name, str(p.n_items), f"excluded: {p.excluded}", "", "", "", ""])
                continue
            t = "–" if p.t is None else f"{p.t:.3f}"
            wins = "yes" if p.rejected else "no"
            rows.append(
                [p.name, str(p.n_items), f"{p.rho_f:.3f}", f"{p.rho_h:.3f}", t, f"{p.p:.4g}", wins]
            )
        widths = [max(len(row[i]) for row in rows if row[3] or i < 2) for i in range(7)]
        for row in rows:
            if not row[3]:  # an excluded physician: its reason runs on
                out(f"    {row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}")
            else:
                out(
                    "    "
                    + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                )
        for p in r.physicians:
            if p.note:
                out(f"    {p.name}: {p.note}")
    if r.winning_rate is None or r.advantage_probability is None:
        out(f"  not computed: {r.reason}")
        return
    tested = [p for p in r.physicians if p.excluded is None]
    won = sum(bool(p.rejected) for p in tested)
    verdict = "passes (ω ≥ 0.5)" if r.passed else "fails (ω < 0.5)"
    out(
        f"  winning rate ω = {r.winning_rate:.2f} ({won} of {len(tested)} physicians), "
        f"advantage probability ρ = {r.advantage_probability:.3f}: the judge {verdict}"
    )


def plan(
    table: LabelTable | None,
    judge: str | None,
    scale: str,
    order: Sequence[Hashable] | None,
    options: dict[str, Any],
) -> tuple[AltTestPlan, str]:
    """``--alt-test-plan``: the plan and where its figures come from (the file's labels, or
    the options; an option given wins over the file's figure)."""
    from medjudge.judging.stats.alt_test_plan import pilot_figures, plan_alt_test

    given = {k: v for k, v in options.items() if v is not None}
    source = "options"
    shares: list[float] | None = None
    if table is not None:
        if judge is None:
            raise UserError("--alt-test-plan with a file needs --alt-test RATER (the judge)")
        rows = list(zip(*table.columns, strict=True))
        try:
            pilot = pilot_figures(rows, table.raters, judge, order)
        except ValueError as exc:
            raise UserError(f"{table.path}: {exc}") from None
        shares = list(pilot.label_shares)
        figures = {
            "physician_agreement": pilot.physician_agreement,
            "judge_agreement": pilot.judge_agreement,
            "n_physicians": pilot.n_physicians,
        }
        given = {**figures, **given}
        source = f"{table.path} (labels {', '.join(map(str, pilot.labels))})"
    elif order is not None:
        shares = [1.0] * len(order)
    if "label_shares" in given:
        shares = given.pop("label_shares")
    for key, flag in (
        ("physician_agreement", "--physician-agreement"),
        ("judge_agreement", "--judge-agreement"),
    ):
        if key not in given:
            raise UserError(f"--alt-test-plan needs {flag} (or a pilot file with --alt-test)")
    if shares is None:
        raise UserError("--alt-test-plan needs the categories: --categories or --label-shares")
    try:
        return plan_alt_test(**given, label_shares=shares, scoring=SCORING_OF_SCALE[scale]), source
    except ValueError as exc:
        raise UserError(f"--alt-test-plan: {exc}") from None


def show_plan(p: AltTestPlan, source: str, json_output: bool) -> None:
    """The plan, as text or ``--json``."""
    if json_output:
        data = {"source": source, **p.to_dict()}
        sys.stdout.write(
            json_escaped(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
        )
        return
    shares = ", ".join(f"{s:.2f}" for s in p.label_shares)
    out(f"alt-test plan: {p.n_sims} simulated studies per size (seed {p.seed}); figures: {source}")
    out(
        f"  {p.n_physicians} physicians agreeing {p.physician_agreement:.1%} of pairs; the judge "
        f"agreeing with a physician {p.judge_agreement:.1%}; label shares {shares}"
    )
    out(
        f"  scoring: {SCORING_TEXT[p.scoring]}; ε = {p.epsilon:g}, q = {p.q:g}; model: a "
        f"physician gives the true label with chance {p.physician_accuracy:.3f}, the judge "
        f"{p.judge_accuracy:.3f}, else a label drawn from the shares"
    )
    rows = [["items", "P(pass)", "mean ω", "mean ρ"]]
    rows += [
        [str(x.n_items), f"{x.pass_probability:.3f}", f"{x.mean_winning_rate:.3f}",
         f"{x.mean_advantage_probability:.3f}"]
        for x in p.points
    ]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        out("    " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    needed = p.items_needed()
    if needed is None:
        out("  no simulated size passes in 80% of the studies: more items, or a better judge")
    else:
        out(f"  items needed for an 80% chance to pass: {needed}")


def item_counts(text: str) -> list[int]:
    """``--plan-items``: ``FROM:TO:STEP`` (TO included) or counts, comma separated."""
    try:
        if ":" in text:
            start, stop, step = (int(x) for x in text.split(":"))
            counts = list(range(start, stop + 1, step)) if step > 0 else []
        else:
            counts = [int(x) for x in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 2:
        raise UserError(
            f"--plan-items {text!r}: FROM:TO:STEP (e.g. 30:200:10) or counts (e.g. 30,50,100), "
            "each at least 2"
        )
    return counts


def label_shares(text: str) -> list[float]:
    """``--label-shares``: non-negative numbers, comma separated (normalised to sum to 1)."""
    try:
        shares = [float(x) for x in text.split(",")]
    except ValueError:
        shares = []
    if len(shares) < 2 or any(not 0 <= s < float("inf") for s in shares) or sum(shares) <= 0:
        raise UserError(
            f"--label-shares {text!r}: two or more non-negative numbers, e.g. 0.5,0.3,0.2"
        )
    return shares
