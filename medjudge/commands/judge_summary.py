"""``medjudge judge``'s end: the summary it prints and the exit code it picks."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import typer

from .common import fail, out
from .judge_options import JudgeOptions

if TYPE_CHECKING:
    from medjudge.judging.llm.runner import RunSummary

EXIT_STOPPED = 3
"""Stopped at a limit (``--max-cost``): run again with a higher limit to finish."""
EXIT_MISSING = 4
"""Finished, but some units have no verdict (a call ended in an error, or every sample failed
to parse): see the summary."""
EXIT_PENDING = 5
"""``--batch``: batches were submitted (or are still running) and their results are not in yet;
the same command again collects them. Not an error, not finished either."""


def finish(summary: RunSummary, options: JudgeOptions) -> None:
    """Print the summary (as JSON with ``--json``) and exit with the run's code."""
    if options.execution.json_output:
        sys.stdout.write(json.dumps(summary.__dict__, indent=2) + "\n")
    else:
        print_summary(summary, options.execution.dry_run, options.limits.max_cost)
    code = exit_code(summary)
    if code == 1:
        fail(f"the judge run failed: {summary.failure}")
    if code:
        raise typer.Exit(code)


def exit_code(summary: RunSummary) -> int:
    """docs/design.md §5: 1 the run failed (its calls kept failing, or none of them succeeded),
    3 stopped at ``--max-cost``, 5 batches still at the provider, 4 finished with units not
    judged (a call ended in an error) or missing verdicts, 0 otherwise (a dry run is always
    0)."""
    if summary.failure:
        return 1
    if summary.stopped and summary.stopped.startswith("--max-cost"):
        return EXIT_STOPPED
    if summary.batches_pending:
        return EXIT_PENDING
    if summary.not_judged or summary.missing_verdicts:
        return EXIT_MISSING
    return 0


def print_summary(s: RunSummary, dry_run: bool, max_cost: float | None = None) -> None:
    """The run's summary in lines (``--json`` gives it as one object): for a run, what it
    did and spent; for a dry run, what it would do and cost."""
    for version in s.versions:
        out(f"judge version: {version}")
    if dry_run:
        _print_estimate(s, max_cost)
    else:
        _print_run(s)


def _print_estimate(s: RunSummary, max_cost: float | None) -> None:
    """A dry run: the calls needed, the tokens and cost estimated, each judge's price."""
    if s.batches_planned:
        out(
            f"{s.calls_needed} calls needed: {s.cached} cached, {s.to_call} to send in "
            f"{s.batches_planned} batch(es)"
        )
        out(
            f"estimated tokens: {s.est_input_tokens:,} in, ≤{s.est_output_tokens:,} out; "
            f"estimated cost at batch prices: {_estimate(s)}"
        )
    else:
        out(f"{s.calls_needed} calls needed: {s.cached} cached, {s.to_call} to make")
        out(
            f"estimated tokens: {s.est_input_tokens:,} in, ≤{s.est_output_tokens:,} out; "
            f"estimated cost: {_estimate(s)}"
        )
    for rater, rule in s.price_rules.items():
        if not rule.startswith("unknown: "):  # the unknown ones: the notes below
            out(f"price of {rater}: {rule}")
    for note in s.price_notes:
        out(f"note: {note}; {PRICE_NOTE}")
    if s.price_notes and max_cost is not None:
        out(f"note: --max-cost {max_cost:g} would refuse to start without a price")


def _print_run(s: RunSummary) -> None:
    """A run: its counts and spend, why units were not judged, its batches."""
    adapted = ""
    if s.concurrency_lowest is not None:
        adapted = (
            f"; concurrency lowered from {s.concurrency} to {s.concurrency_lowest} "
            f"({s.overload} from the server)"
        )
    out(
        f"{s.calls_needed} calls: {s.cached} cached, {s.ok} ok, {s.failed} failed samples, "
        f"{s.errors} errors; {s.requests} HTTP requests; "
        f"{s.input_tokens + s.output_tokens:,} tokens; ${s.cost_usd:.4f}; {s.elapsed_s:.1f} s"
        + adapted
    )
    out(
        f"verdicts written: {s.verdicts_added}; missing: {s.missing_verdicts}; "
        f"not judged: {s.not_judged}; AB/BA inconsistent: {s.position_inconsistent}"
    )
    if s.not_judged:
        reasons = s.not_judged_why
        if s.failure and len(reasons) == 1 and next(iter(reasons)).rstrip("…") in s.failure:
            why = "the error below"  # said once, where the run says why it stopped
        else:
            why = "; ".join(f"{n} × {reason}" for reason, n in reasons.items())
        out(f"not judged: {s.not_judged} (why: {why})")
    if s.missing_verdicts:
        out(
            f"{s.missing_verdicts} unit(s) have no verdict: no sample of theirs gave a "
            "usable reply (see `medjudge export STUDY calls`; --retry-failed asks again)"
        )
    if s.usage_unknown:
        from medjudge.judging.llm.provider_types import MAX_TOKENS_PER_CALL

        out(
            f"{s.usage_unknown} call(s) came back without usable token figures (left out, "
            f"negative, not numbers or above {MAX_TOKENS_PER_CALL:,}): their tokens are "
            f"recorded as unknown (0) and their cost counted at the estimate "
            f"(${s.usage_estimated_usd:.4f} of the spend, toward --max-cost too)"
        )
    if s.cut_off:
        out(
            f"{s.cut_off} failed sample(s) were {s.cut_off_note}: a longer limit makes a "
            "new judge version"
        )
    if s.errors:
        out("calls that failed to reach the model are retried by the next run")
        if s.overload:
            out(
                "the server was overloaded or slow: a lower --concurrency gives it fewer "
                "calls at once, a longer --timeout more time per call"
            )
    if s.stopped:
        out(f"stopped: {s.stopped}; run again with a higher limit to finish")
    for note in s.batches_abandoned:
        out(note)
    if s.batches_submitted or s.batches_collected or s.batches_pending or s.batches_found:
        out(
            f"batches: {s.batches_submitted} submitted ({s.to_call_batched} calls), "
            f"{s.batches_found} found at the provider, {s.batches_collected} collected, "
            f"{s.batches_pending} still at the provider"
        )
    if s.batches_pending:
        out(
            f"{s.batches_pending} batch(es) still at the provider: their results are not in; "
            "run with --batch again to collect them (add --wait to stay until they are)"
        )


PRICE_NOTE = "give one with --price IN,OUT, USD per million input and output tokens"


def _estimate(s: RunSummary) -> str:
    """The estimated cost, or that it is unknown (with what the judges with a price cost)."""
    if s.est_cost_known:
        return f"${s.est_cost_usd:.4f}"
    if s.est_cost_usd > 0:
        return f"unknown (${s.est_cost_usd:.4f} for the judges with a price)"
    return "unknown"
