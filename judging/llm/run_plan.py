"""A judge run's plan, worked out before anything is sent: :func:`make_plan` versions the
judges, lists the calls they need, skips what is cached (or in a batch still at the provider),
prices the rest and estimates it (:class:`RunPlan`).

A real run takes a lease on each of its judge versions before it plans
(:mod:`medjudge.store.leases`): a second run of the same versions is refused before it sends
anything, unless the holder is gone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from medjudge.judging.llm.pricing import (
    Price,
    check_max_cost,
    estimate_reply_tokens,
    estimate_tokens,
    price_for,
    unknown_notes,
)
from medjudge.judging.llm.run_types import RunOptions, RunSummary
from medjudge.judging.protocol.plan import CallSpec, JudgeConfig, plan_item
from medjudge.judging.protocol.versions import name_versions, register_judges
from medjudge.store import leases
from medjudge.store.batches import keys_in_flight, open_batches
from medjudge.store.items import Item, get_item, list_items
from medjudge.store.judgments import ask_again, cached_calls
from medjudge.store.study import Study


def plan(
    study: Study, judges: Sequence[JudgeConfig], options: RunOptions
) -> tuple[list[Item], list[CallSpec]]:
    """Items in scope and every call the judges need for them."""
    refs = list_items(study)
    wanted = set(options.item_ids) if options.item_ids is not None else None
    items = [
        get_item(study, r.id)
        for r in refs
        if r.kind in options.kinds and (wanted is None or r.id in wanted)
    ]
    calls = [c for j in judges for it in items for c in plan_item(it, j, study.settings)]
    return items, calls


@dataclass
class RunPlan:
    """What a run is to do, worked out before anything is sent."""

    judges: list[JudgeConfig]
    """The judges as versions (registered, or for a dry run only named)."""
    items: list[Item]
    """The items in scope."""
    calls: list[CallSpec]
    """Every call the judges need for them."""
    todo: list[CallSpec]
    """The calls to make: neither cached nor in a batch still at the provider."""
    prices: dict[str, Price]
    """Each judge version's price (list price; batches halve it)."""
    lease: leases.Taken | None = None
    """The run's leases on its judge versions (a real run: one run per version at a time)."""


def make_plan(
    study: Study, judges: Sequence[JudgeConfig], options: RunOptions
) -> tuple[RunPlan, RunSummary]:
    """The run's judges, calls and prices, and its summary with the counts and estimates.

    A real run refuses a cost limit it cannot keep before its judge versions are recorded.

    Raises:
        UnknownPriceError: ``max_cost`` with a judge whose price is unknown.
        LeaseHeld: another live run holds one of the judge versions (nothing was sent).
    """
    if not options.dry_run:
        check_max_cost(
            {j.spec.name: price_for(j.spec, options.price_override) for j in judges},
            options.max_cost,
        )
    if options.dry_run:
        versions = name_versions(study, judges)
        lease = None
    else:
        versions = register_judges(study, judges, actor=options.actor)
        # Before the plan reads what is cached: a second run of these versions is refused
        # here, before it plans or sends anything.
        lease = leases.take(study, [(j.version_key(), j.rater) for j in versions])
    try:
        return _planned(study, versions, options, lease)
    except BaseException:
        if lease is not None:
            with contextlib.suppress(Exception):
                leases.release(study, lease.token)
        raise


def _planned(
    study: Study, versions: list[JudgeConfig], options: RunOptions, lease: leases.Taken | None
) -> tuple[RunPlan, RunSummary]:
    """:func:`make_plan` once the judges are versions (and, for a real run, leased)."""
    items, calls = plan(study, versions, options)
    summary = RunSummary(
        calls_needed=len(calls),
        versions=[j.rater for j in versions],
        concurrency=options.concurrency,
        lease_taken_over=list(lease.taken_over) if lease is not None else [],
    )
    todo = _to_make(study, versions, calls, options, summary)
    prices = {j.rater: price_for(j.spec, options.price_override) for j in versions}
    summary.unknown_prices = sorted(name for name, p in prices.items() if not p.known)
    summary.price_notes = unknown_notes(prices)
    summary.price_rules = {name: p.rule for name, p in sorted(prices.items())}
    summary.est_cost_known = not summary.unknown_prices
    estimate_todo(summary, todo, prices)
    return RunPlan(versions, items, calls, todo, prices, lease), summary


def _to_make(
    study: Study,
    judges: list[JudgeConfig],
    calls: list[CallSpec],
    options: RunOptions,
    summary: RunSummary,
) -> list[CallSpec]:
    """The calls that are neither cached (``error`` rows, and with ``retry_failed`` the
    ``failed`` ones, are asked again) nor in a batch still at the provider (paid for
    already, never sent again here); ``summary`` gets the counts."""
    stored = cached_calls(study, [c.key for c in calls])
    flying = keys_in_flight(study, [j.rater for j in judges])
    todo = [
        c
        for c in calls
        if c.key not in flying and ask_again(stored.get(c.key), options.retry_failed)
    ]
    if flying and not options.batch:
        summary.batches_pending = len(open_batches(study, [j.rater for j in judges]))
    summary.in_batches = sum(1 for c in calls if c.key in flying and c.key not in stored)
    summary.cached = len(calls) - len(todo) - summary.in_batches
    summary.to_call = len(todo)
    return todo


def estimate_todo(
    summary: RunSummary, todo: list[CallSpec], prices: dict[str, Price], *, batch: bool = False
) -> None:
    """Estimated tokens and cost of ``todo`` (at batch prices with ``batch``)."""
    summary.est_input_tokens = summary.est_output_tokens = 0
    summary.est_cost_usd = 0.0
    for c in todo:
        tin = estimate_tokens(c.system + c.user)
        tout = estimate_reply_tokens(c.judge.max_tokens, len(c.parse_args.get("criteria", [1])))
        summary.est_input_tokens += tin
        summary.est_output_tokens += tout
        price = prices[c.judge.rater]
        summary.est_cost_usd += (price.batch() if batch else price).cost(tin, tout)
