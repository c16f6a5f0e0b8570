"""``medjudge judge``: run LLM judges over a study, with a progress bar."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from medjudge.kinds.votes import PanelRule, StatementsProtocol
from medjudge.store import user_settings
from medjudge.store.kinds import ITEM_KINDS, ItemKind
from medjudge.store.literal import control_character, plural, printable
from medjudge.store.paths import login_name
from medjudge.store.people import given_name
from medjudge.store.retirements import retirements
from medjudge.store.roles import require

from .common import (
    VERBOSE_ENV,
    OnlyStudyArg,
    UserError,
    console,
    err_console,
    fail,
    is_tty,
    only_items,
    opened,
    out,
    resume_collection,
    user_errors,
)

if TYPE_CHECKING:  # the runner (and the SDKs it loads) only when a run starts
    from medjudge.judging.llm.runner import CallEvent, RunSummary
    from medjudge.judging.llm.specs import JudgeSpec
    from medjudge.judging.protocol.templates import Template
    from medjudge.store.study import Study


class _Counts(ProgressColumn):
    """done/total, cached, failed and spend."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.summary = summary

    def render(self, task: Task) -> Text:
        s = self.summary
        return Text(
            f"{int(task.completed)}/{int(task.total or 0)} calls · {s.cached} cached · "
            f"{s.failed} failed · {s.errors} errors · ${s.cost_usd:.4f}"
        )


class ProgressDisplay:
    """A rich progress bar on a terminal; a line every few seconds otherwise."""

    def __init__(self) -> None:
        self.progress: Progress | None = None
        self.task = TaskID(0)
        self.done = 0
        self.last_line = 0.0

    def started(self, summary: RunSummary) -> None:
        """Say which judges have no price, then show the bar (cached calls count as done from
        the start)."""
        for note in summary.lease_taken_over:
            out(f"note: {note}")
        for note in summary.price_notes:
            out(f"note: {note}: its calls are counted as $0 ({PRICE_NOTE})")
        if is_tty():
            self.progress = Progress(
                TextColumn("judging {task.description}"),
                BarColumn(),
                _Counts(summary),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self.progress.start()
            self.task = self.progress.add_task(
                "", total=summary.calls_needed, completed=summary.cached
            )
        else:
            out(
                f"{summary.calls_needed} calls needed, {summary.cached} cached, {summary.to_call} to make"
            )

    def call_done(self, event: CallEvent, summary: RunSummary) -> None:
        """Advance the bar."""
        self.done += 1
        if self.progress is not None:
            self.progress.advance(self.task)
        elif time.monotonic() - self.last_line > 5:
            self.last_line = time.monotonic()
            out(f"{self.done}/{summary.to_call} calls made, ${summary.cost_usd:.4f} spent")

    def batch_progress(self, done: int, total: int, pending: int) -> None:
        """Batches in progress: what the provider reports done (results come when one ends)."""
        text = f"· {pending} batch(es) at the provider, {done}/{total} done" if pending else ""
        if self.progress is not None:
            self.progress.update(self.task, description=text)
        elif pending and time.monotonic() - self.last_line > 5:
            self.last_line = time.monotonic()
            out(f"{pending} batch(es) at the provider: {done}/{total} requests done")

    def finished(self, summary: RunSummary) -> None:
        """Stop the bar."""
        if self.progress is not None:
            self.progress.stop()


def _parse_price(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise UserError("--price takes IN,OUT in USD per million tokens, e.g. 2.5,10") from None
    from medjudge.judging.llm.pricing import check_price

    try:  # float() reads nan and inf; a price per thousand tokens is a typo
        check_price(text, (a, b))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return a, b


def _check_max_cost(max_cost: float | None) -> None:
    """``--max-cost nan`` would compare false with every spend: a run without a limit."""
    if max_cost is not None and not math.isfinite(max_cost):
        raise typer.BadParameter(
            f"{max_cost} is no limit: give USD, e.g. --max-cost 5", param_hint="--max-cost"
        )


def _custom_prompts(
    study: Study, given: list[str], kinds: tuple[str, ...], statements_protocol: str
) -> tuple[tuple[str, Template], ...]:
    """``--prompt FILE`` / ``--prompt TASK=FILE`` → (task, checked template) pairs.

    A bare FILE is for the one prompt task of this run (the kinds in scope that the study has);
    with several tasks the user must say which.
    """
    from medjudge.judging.protocol.plan import tasks_for
    from medjudge.judging.protocol.templates import PLACEHOLDERS, TemplateError, read_template
    from medjudge.store.items import count_items

    present = count_items(study)
    tasks = [t for k in kinds if present.get(k) for t in tasks_for(k, statements_protocol)]
    out: dict[str, Template] = {}
    for text in given:
        task, sep, file = text.partition("=")
        if not sep or task not in PLACEHOLDERS:
            task, file = "", text
        if not task:
            if len(tasks) != 1:
                which = ", ".join(tasks) if tasks else "no task: the study has no items in scope"
                raise typer.BadParameter(
                    f"{file}: say which task it is for, e.g. --prompt pairwise={file} "
                    f"(this run has {which})",
                    param_hint="--prompt",
                )
            task = tasks[0]
        if task in out:
            raise typer.BadParameter(f"two templates for {task}", param_hint="--prompt")
        try:
            out[task] = read_template(Path(file), task)
        except TemplateError as exc:
            raise UserError(str(exc)) from None
    return tuple(out.items())


def _load_sdks(specs: list[JudgeSpec]) -> None:
    """Load the judges' SDK (a third of a second of imports) while garbage collection is still
    paused, then resume it (see ``medjudge.cli.main``)."""
    from medjudge.judging.llm.providers import load_provider_modules

    load_provider_modules(specs)
    resume_collection()


def complete_judge_spec(incomplete: str) -> list[str]:
    """Shell completion of ``-j``: the registered providers (``openai:``, ``local:smollm2``,
    …) that start with what is typed; after the colon nothing is guessed (a model name)."""
    from medjudge.judging.llm.provider_registry import entries

    if ":" in incomplete:
        return ["local:smollm2"] if "local:smollm2".startswith(incomplete) else []
    names = [f"{e.name}:" for e in entries()] + ["local:smollm2"]
    return [n for n in names if n.startswith(incomplete)]


def judge(
    study: OnlyStudyArg,
    judges: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            "-j",
            metavar="SPEC",
            help="A judge: openai:MODEL, anthropic:MODEL, openai:MODEL@URL (any OpenAI-compatible "
            "server), anthropic:MODEL@URL, azure:DEPLOYMENT@https://RESOURCE.openai.azure.com, "
            "gemini:MODEL, openrouter:MODEL, vllm:MODEL, ollama:MODEL, local:PATH.gguf or "
            "local:smollm2. Repeat for a panel.",
            autocompletion=complete_judge_spec,
        ),
    ] = None,
    samples: Annotated[
        int,
        typer.Option(
            min=1, max=25, help="Samples per order (pairwise) or per prompt.", metavar="N"
        ),
    ] = 3,
    temperature: Annotated[
        float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.", metavar="T")
    ] = 0.7,
    max_tokens: Annotated[
        int, typer.Option(min=16, help="Longest reply per call.", metavar="N")
    ] = 800,
    concurrency: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=512,
            help="Calls in flight at once.  [default: "
            f"{user_settings.UserSettings.model_fields['concurrency'].default}, or settings.toml's "
            "concurrency]",
            metavar="N",
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=1.0,
            help="Per-call timeout in seconds.  [default: "
            f"{user_settings.UserSettings.model_fields['timeout_s'].default:g}, or settings.toml's "
            "timeout_s]",
            metavar="SECONDS",
        ),
    ] = None,
    statements_protocol: Annotated[
        StatementsProtocol,
        typer.Option(
            help="nli: one 3-way prompt per statement; kqa: K-QA's entails/contradicts pair."
        ),
    ] = StatementsProtocol.nli,
    panel_rule: Annotated[
        PanelRule, typer.Option(help="conservative (split → null verdict) or plurality.")
    ] = PanelRule.conservative,
    kind: Annotated[
        list[ItemKind] | None, typer.Option(help="Only these item kinds (repeat).", metavar="KIND")
    ] = None,
    item_ids: Annotated[
        str | None,
        typer.Option(
            "--items",
            help="Only these items: their ids in the import file, comma separated (a pilot: "
            "--items pw-01,pw-07).",
        ),
    ] = None,
    first: Annotated[
        int | None,
        typer.Option(
            min=1, help="Only the first N items in scope (in import order): a pilot.", metavar="N"
        ),
    ] = None,
    context_size: Annotated[
        int,
        typer.Option(
            min=512,
            help="local: judges: the model's context window in tokens; a longer request is "
            "not judged (too long for the context).",
            metavar="N",
        ),
    ] = 4096,
    max_cost: Annotated[
        float | None,
        typer.Option(min=0.0, help="Stop cleanly before spending more (USD).", metavar="USD"),
    ] = None,
    price: Annotated[
        str | None,
        typer.Option(
            help="The price of this run's judges: IN,OUT USD per 1M tokens (0 to 1,000). "
            "Known without it: the providers' own APIs (medjudge's dated price table) and "
            "servers on this machine or a private network (free, unless they serve a model the "
            "table lists: a gateway, priced as that model); anything else is unknown, and "
            "--max-cost then refuses to start.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="Only count the calls and estimate tokens and cost.")
    ] = False,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Ask again the samples whose reply never parsed (cached as failed otherwise); "
            "nothing that succeeded is asked or paid again.",
        ),
    ] = False,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            help="A readable name for this judge version (one -j only); default: the model "
            "spec, plus a short hash when another version of the model exists.",
        ),
    ] = None,
    prompt: Annotated[
        list[str] | None,
        typer.Option(
            "--prompt",
            help="A custom prompt template: FILE, or TASK=FILE when the run has several tasks "
            "(pairwise, nli, kqa_entails, kqa_contradicts, rating, match). It makes a new judge "
            "version.",
            metavar="[TASK=]FILE",
        ),
    ] = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Send the calls through the provider's batch API (OpenAI Batch, Anthropic "
            "Message Batches; half price, results within 24 h). Without --wait the command "
            "returns once submitted; the same command again collects (exit 5 until then).",
        ),
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="With --batch: poll until every batch is collected.")
    ] = False,
    poll_interval: Annotated[
        float,
        typer.Option(
            min=0.01, help="With --batch --wait: seconds between polls.", metavar="SECONDS"
        ),
    ] = 30.0,
    batch_size: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="With --batch: requests per batch (default: the provider's limit).",
            metavar="N",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=16,
            help="Processes making the calls (default: 1, or one per core for runs with more "
            "calls in flight than one process keeps up with).",
            metavar="N",
        ),
    ] = None,
    key_env: Annotated[
        str | None,
        typer.Option(
            "--key-env",
            metavar="NAME",
            help="The environment variable holding the API key for this run's @URL judges "
            '(PROVIDER:MODEL@URL). Without it (or an [endpoints."URL"] key_env entry in '
            "settings.toml) an @URL server is called without a key: OPENAI_API_KEY and the "
            "other providers' own keys go only to their own API.",
        ),
    ] = None,
    api_version: Annotated[
        str | None,
        typer.Option(
            "--api-version",
            help="The api-version of azure: judges (default: AZURE_OPENAI_API_VERSION, else "
            "the version medjudge was tested with).",
        ),
    ] = None,
    abandon_batch: Annotated[
        str | None,
        typer.Option(
            "--abandon-batch",
            metavar="ID",
            help="Mark a recorded batch dead (its provider id, e.g. batch_abc…, or its number "
            "in the study) so that its calls are asked again by the next run, and run nothing "
            "else. Its results are never collected: cancel it at the provider if it still runs.",
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Show each retry on stderr (the call, the attempt, why, the wait) and each "
            "time the run lowers its concurrency for an overloaded server (also medjudge -v).",
            envvar=VERBOSE_ENV,
            show_envvar=False,
        ),
    ] = False,
) -> None:
    """Run LLM judges: AB and BA orders × samples, majority vote, every call cached.

    Keys: OPENAI_API_KEY, ANTHROPIC_API_KEY (or settings.toml) and the other providers' own
    variables go only to their provider's own API. An @URL server gets a key only when one is
    named for it (--key-env NAME, or settings.toml), never over plain http to another machine
    (a private-network gateway may be opted in: settings.toml allow_http = true).
    OPENAI_BASE_URL / ANTHROPIC_BASE_URL move openai:/anthropic: judges to that URL, which is
    then recorded as the judge's endpoint (a new judge version), and OPENAI_API_KEY /
    ANTHROPIC_API_KEY go with it.

    Exit codes: 0 done, every unit judged; 1 the run failed (a server that cannot be reached,
    a rejected key, an unknown model: the run stops after the first such error, or after 5
    identical errors in a row, and says why; or every call this run made ended in an error;
    or another run of the same judge version is under way: one run per judge version at a
    time, a run whose process is gone is taken over);
    3 stopped at --max-cost; 4 finished with units not judged (a call ended in an error: the
    next run asks it again) or with missing verdicts (no sample gave a usable reply); 5 calls
    are in batches still at the provider (--batch): run with --batch again to collect them.

    \b
    Example:
      medjudge judge trial.db -j openai:gpt-4o --dry-run
      medjudge judge trial.db -j openai:gpt-4o -j anthropic:claude-3-5-sonnet-20241022 --max-cost 5
      medjudge judge trial.db -j openai:llama3@http://127.0.0.1:8000/v1 --concurrency 16
      medjudge judge trial.db -j openai:meta-llama/llama-3.1-70b@https://openrouter.ai/api/v1 \\
          --key-env OPENROUTER_API_KEY
      medjudge judge trial.db -j azure:gpt-4o@https://myresource.openai.azure.com
      medjudge judge trial.db -j local:smollm2 --samples 1
      medjudge judge trial.db -j openai:gpt-4o --prompt my_pairwise.txt --name strict-prompt
      medjudge judge trial.db -j openai:gpt-4o-mini --batch        # submit; again to collect
      medjudge judge trial.db -j openai:gpt-4o-mini --batch --wait
      medjudge judge trial.db --abandon-batch batch_abc123   # its calls are asked again
    """
    from medjudge.judging.llm.key_routing import prepare_access
    from medjudge.judging.llm.providers import ProviderError
    from medjudge.judging.llm.runner import RunOptions, run_judges
    from medjudge.judging.llm.specs import SpecError, parse_judge_spec
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.judging.protocol.versions import VersionError

    if abandon_batch is not None:
        if judges:
            raise typer.BadParameter(
                "--abandon-batch runs no judge: give it without -j", param_hint="--abandon-batch"
            )
        _abandon_batch(study, abandon_batch)
        return
    if not judges:
        raise typer.BadParameter("give at least one judge", param_hint="'--judge' / '-j'")
    if name is not None and len(judges) != 1:
        raise typer.BadParameter("--name names one judge version: give one -j", param_hint="--name")
    _check_max_cost(max_cost)
    if (wait or batch_size) and not batch:
        raise typer.BadParameter("--wait and --batch-size go with --batch", param_hint="--wait")
    kinds = tuple(k.value for k in kind) if kind else ITEM_KINDS
    with user_errors():  # a judge's name (its spec by default) is a rater name: printable only
        if name is not None:
            given_name(name, "--name")
        for j in judges:
            bad = control_character(j)
            if bad is not None:
                raise UserError(
                    f"--judge {j!r} contains the control character U+{ord(bad):04X}; "
                    "a judge's spec names it in the study and must be printable text"
                )
    with opened(study, check=True) as s:
        if not dry_run:  # a run spends money and writes verdicts: the lead's, as the app's J
            require(s, login_name(), "judge")
        prompts = _custom_prompts(s, prompt or [], kinds, statements_protocol.value)
        try:
            parsed = [parse_judge_spec(j) for j in judges]
        except SpecError as exc:  # a usage error: exit 2, like any bad option
            raise typer.BadParameter(str(exc), param_hint="--judge") from None
        prefs = user_settings.load()
        if prefs.notice:
            err_console.print("note: " + printable(prefs.notice))
        try:
            access = prepare_access(parsed, prefs, key_env)
        except SpecError as exc:
            raise typer.BadParameter(str(exc), param_hint="--judge") from None
        except ProviderError as exc:
            raise UserError(str(exc)) from None
        configs = [
            JudgeConfig(
                spec,
                samples=samples,
                temperature=temperature,
                max_tokens=max_tokens,
                statements_protocol=statements_protocol.value,
                name=name,
                prompts=prompts,
            )
            for spec in access.specs
        ]
        for notice in access.notices:  # said once, before anything else (like the run's
            # other notes on stdout, unless stdout is for the JSON summary)
            if json_output:
                err_console.print("note: " + printable(notice))
            else:
                out("note: " + notice)
        left_out = sum(1 for r in retirements(s) if r.kind in kinds)
        if left_out:  # never judged (list_items leaves them out); said like the notices
            note = f"{plural(left_out, 'retired item')} left out (medjudge retire)"
            if json_output:
                err_console.print("note: " + note)
            else:
                out("note: " + note)
        scope: list[int] | None = None
        if item_ids is not None or first is not None:  # a pilot: some items only
            from medjudge.store.items import list_items

            scope = [i.id for i in list_items(s) if i.kind in kinds]
            if item_ids is not None:
                scope = only_items(s, item_ids, scope)
            scope = scope[:first]
            if not scope:
                raise UserError("no items match (check --kind and --items)")
        options = RunOptions(
            item_ids=scope,
            local_context=context_size,
            concurrency=concurrency or prefs.concurrency,
            timeout_s=timeout or prefs.timeout_s,
            max_cost=max_cost,
            dry_run=dry_run,
            panel_rule=panel_rule.value,
            kinds=kinds,
            price_override=_parse_price(price),
            keys=access.keys,
            api_version=api_version,
            actor=login_name(),
            retry_failed=retry_failed,
            batch=batch,
            batch_wait=wait,
            batch_poll_s=poll_interval,
            batch_max_requests=batch_size,
            workers=workers,
            verbose=verbose,
            before_calls=lambda: _load_sdks([c.spec for c in configs]),
        )
        try:
            display = None if dry_run or json_output else ProgressDisplay()
            with _retries_shown(verbose):
                summary = asyncio.run(run_judges(s, configs, options, display))
        except (ProviderError, VersionError) as exc:
            raise UserError(str(exc)) from None
    if json_output:
        sys.stdout.write(json.dumps(summary.__dict__, indent=2) + "\n")
    else:
        _print_summary(summary, dry_run, max_cost)
    code = exit_code(summary)
    if code == 1:
        fail(f"the judge run failed: {summary.failure}")
    if code:
        raise typer.Exit(code)


def _abandon_batch(study: Path, ident: str) -> None:
    """``--abandon-batch ID``: mark the open batch ``ID`` dead and say how many calls it
    released (exit 1 when the study has no such open batch)."""
    from medjudge.store import batches

    with opened(study, check=True) as s:
        require(s, login_name(), "judge")
        b = batches.find_open_batch(s, ident.strip())
        if b is None:
            known = [x.provider_id or str(x.id) for x in batches.open_batches_all(s)]
            which = ", ".join(known) if known else "none"
            fail(f"{study}: no open batch {ident!r} (open batches: {which})")
        released = batches.abandon_batch(s, b.id, f"by {login_name()} (--abandon-batch)")
    name = b.provider_id or f"{b.id} (never submitted)"
    out(
        f"batch {name} of {b.judge} abandoned: {released} call(s) released; the next run "
        "asks them again (with --batch, in a new batch)"
    )
    if b.provider_id is not None:
        out("note: if it still runs at the provider, cancel it there: its results are not read")


@contextlib.contextmanager
def _retries_shown(verbose: bool) -> Iterator[None]:
    """With ``-v``: the judge calls' log (retries, concurrency lowered) on stderr, one line
    each, for the time of the run (errors are redacted where they are made: no key)."""
    if not verbose:
        yield
        return
    from medjudge.judging.llm.workers import show_retries

    handler = show_retries()
    try:
        yield
    finally:
        logger = logging.getLogger(handler.name)
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)


EXIT_STOPPED = 3
"""Stopped at a limit (``--max-cost``): run again with a higher limit to finish."""
EXIT_MISSING = 4
"""Finished, but some units have no verdict (a call ended in an error, or every sample failed
to parse): see the summary."""
EXIT_PENDING = 5
"""``--batch``: batches were submitted (or are still running) and their results are not in yet;
the same command again collects them. Not an error, not finished either."""


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


def _print_summary(s: RunSummary, dry_run: bool, max_cost: float | None = None) -> None:
    for version in s.versions:
        out(f"judge version: {version}")
    if dry_run and s.batches_planned:
        out(
            f"{s.calls_needed} calls needed: {s.cached} cached, {s.to_call} to send in "
            f"{s.batches_planned} batch(es)"
        )
        out(
            f"estimated tokens: {s.est_input_tokens:,} in, ≤{s.est_output_tokens:,} out; "
            f"estimated cost at batch prices: {_estimate(s)}"
        )
    elif dry_run:
        out(f"{s.calls_needed} calls needed: {s.cached} cached, {s.to_call} to make")
        out(
            f"estimated tokens: {s.est_input_tokens:,} in, ≤{s.est_output_tokens:,} out; "
            f"estimated cost: {_estimate(s)}"
        )
    else:
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
    if dry_run:
        for rater, rule in s.price_rules.items():
            if not rule.startswith("unknown: "):  # the unknown ones: the notes below
                out(f"price of {rater}: {rule}")
        for note in s.price_notes:
            out(f"note: {note}; {PRICE_NOTE}")
        if s.price_notes and max_cost is not None:
            out(f"note: --max-cost {max_cost:g} would refuse to start without a price")


PRICE_NOTE = "give one with --price IN,OUT, USD per million input and output tokens"


def _estimate(s: RunSummary) -> str:
    """The estimated cost, or that it is unknown (with what the judges with a price cost)."""
    if s.est_cost_known:
        return f"${s.est_cost_usd:.4f}"
    if s.est_cost_usd > 0:
        return f"unknown (${s.est_cost_usd:.4f} for the judges with a price)"
    return "unknown"
