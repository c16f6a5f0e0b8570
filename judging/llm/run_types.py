"""What a judge run is given and what it reports: :class:`RunOptions`, :class:`RunSummary`,
:class:`CallEvent` and the :class:`RunDisplay` a run reports to (the run itself:
:mod:`.runner`). :func:`account` adds one finished call to a summary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from medjudge.judging.llm.key_routing import KeyRing
from medjudge.store.judgments import CallOutcome
from medjudge.store.kinds import ITEM_KINDS


@dataclass
class RunOptions:
    """How to run."""

    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 4
    local_context: int = 4096
    """The context window, in tokens, of ``local:`` judges (a request longer than it is "too
    long for the context", never retried)."""
    parse_retries: int = 1
    """Extra requests for a reply that does not parse, before it is a failed sample."""
    max_cost: float | None = None
    dry_run: bool = False
    panel_rule: str = "conservative"
    kinds: tuple[str, ...] = ITEM_KINDS
    item_ids: Sequence[int] | None = None
    price_override: tuple[float, float] | None = None
    keys: KeyRing = field(default_factory=KeyRing)
    """The keys the run may send, and where (:mod:`.key_routing`; default: none)."""
    api_version: str | None = None
    """The API version for providers that have one (Azure; ``judge --api-version``)."""
    actor: str = "medjudge"
    workers: int | None = None
    """Worker processes for the calls (None: automatic, see :mod:`judging.workers`)."""
    retry_failed: bool = False
    """Ask again the samples whose reply never parsed (``failed``); by default they are cached
    like any paid call. The new attempt's cost is added to the old one's."""
    batch: bool = False
    """Send the calls through the providers' batch APIs (:mod:`.batching`)."""
    batch_wait: bool = False
    """With ``batch``: poll until every batch is collected (else return once submitted)."""
    batch_poll_s: float = 30.0
    """Seconds between polls of open batches."""
    batch_max_requests: int | None = None
    """Requests per batch (None: the provider's limit)."""
    batch_max_bytes: int | None = None
    """Bytes per batch (None: the provider's limit)."""
    before_calls: Callable[[], None] | None = None
    """Called once, just before the first call is made (not when everything is cached): the
    CLI loads the judges' SDK there with garbage collection still paused."""
    verbose: bool = False
    """Log each retry (worker processes too: see :func:`.workers.show_retries`)."""
    cancel: threading.Event | None = None
    """Set it to stop cleanly: no new calls start, calls in flight finish and are stored, and
    the items whose calls are all in get their verdicts."""


@dataclass
class CallEvent:
    """One finished call, for progress displays."""

    judge: str
    task: str
    status: str
    cost: float


@dataclass
class RunSummary:
    """What a run did (or, for a dry run, would do)."""

    calls_needed: int = 0
    cached: int = 0
    to_call: int = 0
    requests: int = 0
    ok: int = 0
    failed: int = 0
    errors: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    est_input_tokens: int = 0
    est_output_tokens: int = 0
    est_cost_usd: float = 0.0
    """The estimate at the known prices (calls of judges without a price count $0)."""
    est_cost_known: bool = True
    """Whether every judge of the run has a price (else the estimate is a lower bound)."""
    unknown_prices: list[str] = field(default_factory=list)
    """The judges without a price."""
    price_notes: list[str] = field(default_factory=list)
    """Why each of them has none (``no price known for NAME (why)``)."""
    price_rules: dict[str, str] = field(default_factory=dict)
    """Which rule priced each judge version (:func:`~.pricing.price_for`), for ``--dry-run``."""
    concurrency: int = 0
    """The calls in flight asked for (``--concurrency``)."""
    concurrency_lowest: int | None = None
    """The fewest attempts a judge's server was allowed at once, when an overload lowered it
    (:mod:`.adaptive`) or the server reported fewer slots than ``--concurrency``
    (:mod:`.server_slots`)."""
    overload: str | None = None
    """What lowered it (``HTTP 429``, ``timeouts``, ``2 slots reported``)."""
    slot_notes: list[str] = field(default_factory=list)
    """What the run says before its calls about servers with fewer slots than
    ``--concurrency`` (``URL: server reports 2 slots: running 2 calls at a time, not 8``)."""
    server_slots: dict[str, int] = field(default_factory=dict)
    """The slots each self-hosted judge's server reported (``GET /props``), by endpoint URL:
    the run sends no more of an endpoint's calls at once (:mod:`.server_slots`)."""
    usage_unknown: int = 0
    """Calls whose server reported no usable token figures (left out, negative, not numbers,
    out of bounds): recorded as 0 tokens, their cost counted at the estimate
    (:func:`~.pricing.unreported_usage`)."""
    usage_estimated_usd: float = 0.0
    """What those calls were counted at (part of ``cost_usd``, and of ``--max-cost``)."""
    cut_off: int = 0
    """Failed samples whose reply stopped at ``--max-tokens``."""
    cut_off_note: str | None = None
    """What they were recorded as (``cut off at --max-tokens N (raise --max-tokens)``)."""
    verdicts_added: int = 0
    missing_verdicts: int = 0
    not_judged: int = 0
    """Units left without a verdict because a call of theirs ended in an error (the next run
    asks it again)."""
    not_judged_why: dict[str, int] = field(default_factory=dict)
    """Those units by reason (the error, shortened), most first."""
    position_inconsistent: int = 0
    stopped: str | None = None
    """Why the run stopped before every call was made (``--max-cost`` or a cancel)."""
    failure: str | None = None
    """Why the run failed: its calls kept failing (see :mod:`.failures`); no verdict is missing
    for lack of trying, the judge could not be reached or used."""
    lease_taken_over: list[str] = field(default_factory=list)
    """Run leases this run took over from a run that is gone (:mod:`medjudge.store.leases`)."""
    elapsed_s: float = 0.0
    run_id: int | None = None
    versions: list[str] = field(default_factory=list)
    """The judge versions of the run, by rater name (a panel's last)."""
    batches_planned: int = 0
    """``--batch --dry-run``: batches the missing calls would go in."""
    batches_submitted: int = 0
    batches_found: int = 0
    """Batches a killed run had submitted without recording their id, found at the provider."""
    batches_abandoned: list[str] = field(default_factory=list)
    """Batches the provider answered 404 for, abandoned by this run (their calls are asked
    again), one note each."""
    batches_collected: int = 0
    batches_pending: int = 0
    """Batches still at the provider when the run ended (run the command again to collect)."""
    to_call_batched: int = 0
    """Calls submitted in batches by this run."""
    in_batches: int = 0
    """Calls (of those needed) in batches still at the provider when the run started."""
    collect_s: float = 0.0


class RunDisplay(Protocol):
    """What a run reports as it goes (a progress bar, a TUI widget, a list in tests)."""

    def started(self, summary: RunSummary) -> None:
        """Planning is done: ``calls_needed``, ``cached`` and ``to_call`` are known."""

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """One call finished (ok, failed or error)."""

    def finished(self, summary: RunSummary) -> None:
        """The run is over (verdicts written)."""


def account(summary: RunSummary, row: CallOutcome) -> None:
    """Add one call's result to the run's counts."""
    summary.requests += row["attempts"]
    if "concurrency_lowest" in row:
        lowest = summary.concurrency_lowest
        summary.concurrency_lowest = min(row["concurrency_lowest"], lowest or 1 << 30)
        summary.overload = row.get("overload")
    summary.cost_usd += row["cost_usd"]
    if row.get("usage_unknown"):
        summary.usage_unknown += 1
        summary.usage_estimated_usd += row["cost_usd"]
    summary.input_tokens += row["input_tokens"]
    summary.output_tokens += row["output_tokens"]
    if row["status"] == "ok":
        summary.ok += 1
    elif row["status"] == "failed":
        summary.failed += 1
        if (row["error"] or "").startswith("cut off at --max-tokens"):
            summary.cut_off += 1
            summary.cut_off_note = row["error"]
    else:
        summary.errors += 1
