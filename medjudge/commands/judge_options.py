"""``medjudge judge``'s options: each one's declaration (its help is ``judge --help``), and
the typed groups the command reads them into — what to judge, which judges, how to run, what
it may cost — with the usage checks made before the study is opened."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

import typer

from medjudge.judging.llm.provider_registry import spec_forms
from medjudge.kinds.votes import PanelRule, StatementsProtocol
from medjudge.store import user_settings
from medjudge.store.kinds import ITEM_KINDS, ItemKind
from medjudge.store.literal import control_character
from medjudge.store.people import given_name

from .common import VERBOSE_ENV, UserError, user_errors


def complete_judge_spec(incomplete: str) -> list[str]:
    """Shell completion of ``-j``: the registered providers (``openai:``, ``local:smollm2``,
    …) that start with what is typed; after the colon nothing is guessed (a model name)."""
    from medjudge.judging.llm.provider_registry import entries

    if ":" in incomplete:
        return ["local:smollm2"] if "local:smollm2".startswith(incomplete) else []
    names = [f"{e.name}:" for e in entries()] + ["local:smollm2"]
    return [n for n in names if n.startswith(incomplete)]


def judge_spec_help() -> str:
    """``-j``'s help: every registered provider's spec forms (built from the registry, so it
    names each provider there is)."""
    *first, last = spec_forms()
    return (
        f"A judge: {', '.join(first)} or {last} (@URL: any OpenAI- or Anthropic-compatible "
        "server). Repeat for a panel."
    )


# The options, in ``judge --help`` order (the defaults are the command's).

JudgesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--judge",
        "-j",
        metavar="SPEC",
        help=judge_spec_help(),
        autocompletion=complete_judge_spec,
    ),
]

SamplesOption = Annotated[
    int,
    typer.Option(min=1, max=25, help="Samples per order (pairwise) or per prompt.", metavar="N"),
]

TemperatureOption = Annotated[
    float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.", metavar="T")
]

MaxTokensOption = Annotated[int, typer.Option(min=16, help="Longest reply per call.", metavar="N")]

ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=512,
        help="Calls in flight at once.  [default: "
        f"{user_settings.UserSettings.model_fields['concurrency'].default}, or settings.toml's "
        "concurrency]",
        metavar="N",
    ),
]

TimeoutOption = Annotated[
    float | None,
    typer.Option(
        min=1.0,
        help="Per-call timeout in seconds.  [default: "
        f"{user_settings.UserSettings.model_fields['timeout_s'].default:g}, or settings.toml's "
        "timeout_s]",
        metavar="SECONDS",
    ),
]

StatementsProtocolOption = Annotated[
    StatementsProtocol,
    typer.Option(help="nli: one 3-way prompt per statement; kqa: K-QA's entails/contradicts pair."),
]

PanelRuleOption = Annotated[
    PanelRule, typer.Option(help="conservative (split → null verdict) or plurality.")
]

KindOption = Annotated[
    list[ItemKind] | None, typer.Option(help="Only these item kinds (repeat).", metavar="KIND")
]

ItemIdsOption = Annotated[
    str | None,
    typer.Option(
        "--items",
        help="Only these items: their ids in the import file, comma separated (a pilot: "
        "--items pw-01,pw-07).",
    ),
]

FirstOption = Annotated[
    int | None,
    typer.Option(
        min=1, help="Only the first N items in scope (in import order): a pilot.", metavar="N"
    ),
]

ContextSizeOption = Annotated[
    int,
    typer.Option(
        min=512,
        help="local: judges: the model's context window in tokens; a longer request is "
        "not judged (too long for the context).",
        metavar="N",
    ),
]

MaxCostOption = Annotated[
    float | None,
    typer.Option(min=0.0, help="Stop cleanly before spending more (USD).", metavar="USD"),
]

PriceOption = Annotated[
    str | None,
    typer.Option(
        help="The price of this run's judges: IN,OUT USD per 1M tokens (0 to 1,000). "
        "Known without it: the providers' own APIs (medjudge's dated price table) and "
        "servers on this machine or a private network (free, unless they serve a model the "
        "table lists: a gateway, priced as that model); anything else is unknown, and "
        "--max-cost then refuses to start.",
    ),
]

DryRunOption = Annotated[
    bool, typer.Option(help="Only count the calls and estimate tokens and cost.")
]

RetryFailedOption = Annotated[
    bool,
    typer.Option(
        "--retry-failed",
        help="Ask again the samples whose reply never parsed (cached as failed otherwise); "
        "nothing that succeeded is asked or paid again.",
    ),
]

NameOption = Annotated[
    str | None,
    typer.Option(
        "--name",
        help="A readable name for this judge version (one -j only); default: the model "
        "spec, plus a short hash when another version of the model exists.",
    ),
]

PromptOption = Annotated[
    list[str] | None,
    typer.Option(
        "--prompt",
        help="A custom prompt template: FILE, or TASK=FILE when the run has several tasks "
        "(pairwise, nli, kqa_entails, kqa_contradicts, rating, match). It makes a new judge "
        "version.",
        metavar="[TASK=]FILE",
    ),
]

BatchOption = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the calls through the provider's batch API (OpenAI Batch, Anthropic "
        "Message Batches; half price, results within 24 h). Without --wait the command "
        "returns once submitted; the same command again collects (exit 5 until then).",
    ),
]

WaitOption = Annotated[
    bool, typer.Option("--wait", help="With --batch: poll until every batch is collected.")
]

PollIntervalOption = Annotated[
    float,
    typer.Option(min=0.01, help="With --batch --wait: seconds between polls.", metavar="SECONDS"),
]

BatchSizeOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="With --batch: requests per batch (default: the provider's limit).",
        metavar="N",
    ),
]

WorkersOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=16,
        help="Processes making the calls (default: 1, or one per core for runs with more "
        "calls in flight than one process keeps up with).",
        metavar="N",
    ),
]

KeyEnvOption = Annotated[
    str | None,
    typer.Option(
        "--key-env",
        metavar="NAME",
        help="The environment variable holding the API key for this run's @URL judges "
        '(PROVIDER:MODEL@URL). Without it (or an [endpoints."URL"] key_env entry in '
        "settings.toml) an @URL server is called without a key: OPENAI_API_KEY and the "
        "other providers' own keys go only to their own API.",
    ),
]

ApiVersionOption = Annotated[
    str | None,
    typer.Option(
        "--api-version",
        help="The api-version of azure: judges (default: AZURE_OPENAI_API_VERSION, else "
        "the version medjudge was tested with).",
    ),
]

AbandonBatchOption = Annotated[
    str | None,
    typer.Option(
        "--abandon-batch",
        metavar="ID",
        help="Mark a recorded batch dead (its provider id, e.g. batch_abc…, or its number "
        "in the study) so that its calls are asked again by the next run, and run nothing "
        "else. Its results are never collected: cancel it at the provider if it still runs.",
    ),
]

JsonOutputOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]

VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show each retry on stderr (the call, the attempt, why, the wait) and each "
        "time the run lowers its concurrency for an overloaded server (also medjudge -v).",
        envvar=VERBOSE_ENV,
        show_envvar=False,
    ),
]


@dataclass(frozen=True)
class Scope:
    """What to judge: the item kinds in scope and, for a pilot, some items only."""

    kinds: tuple[str, ...]
    item_ids: str | None
    """``--items``: ids of the import file, comma separated (read in the open study)."""
    first: int | None
    """``--first N``: only the first N items in scope."""

    @classmethod
    def of(cls, kind: list[ItemKind] | None, item_ids: str | None, first: int | None) -> Scope:
        """The scope of ``--kind`` (every kind when none is given), ``--items`` and
        ``--first``."""
        kinds = tuple(k.value for k in kind) if kind else ITEM_KINDS
        return cls(kinds, item_ids, first)

    @property
    def pilot(self) -> bool:
        """Some items only (``--items`` or ``--first``)."""
        return self.item_ids is not None or self.first is not None


@dataclass(frozen=True)
class Panel:
    """Which judges, and how each is asked (together: the judge versions)."""

    specs: tuple[str, ...]
    """The ``-j`` specs, as given."""
    name: str | None
    prompts: tuple[str, ...]
    """``--prompt [TASK=]FILE``, as given."""
    samples: int
    temperature: float
    max_tokens: int
    statements_protocol: str
    panel_rule: str
    context_size: int
    key_env: str | None
    api_version: str | None


@dataclass(frozen=True)
class Execution:
    """How to run: calls in flight, batches, retries, and what is printed."""

    concurrency: int | None
    """None: settings.toml's (or its default)."""
    timeout: float | None
    """None: settings.toml's (or its default)."""
    dry_run: bool
    retry_failed: bool
    batch: bool
    wait: bool
    poll_interval: float
    batch_size: int | None
    workers: int | None
    json_output: bool
    verbose: bool


@dataclass(frozen=True)
class Limits:
    """What the run may spend, and at what price."""

    max_cost: float | None
    price: str | None
    """``--price IN,OUT`` as given: read (:func:`parse_price`) when the run is planned."""


@dataclass(frozen=True)
class JudgeOptions:
    """Every option of one ``medjudge judge`` run, grouped."""

    scope: Scope
    panel: Panel
    execution: Execution
    limits: Limits


def check_usage(options: JudgeOptions) -> None:
    """The usage errors (exit 2) and unprintable names (exit 1) found before the study is
    opened, in the order they are reported."""
    panel, execution = options.panel, options.execution
    if not panel.specs:
        raise typer.BadParameter("give at least one judge", param_hint="'--judge' / '-j'")
    if panel.name is not None and len(panel.specs) != 1:
        raise typer.BadParameter("--name names one judge version: give one -j", param_hint="--name")
    check_max_cost(options.limits.max_cost)
    if (execution.wait or execution.batch_size) and not execution.batch:
        raise typer.BadParameter("--wait and --batch-size go with --batch", param_hint="--wait")
    with user_errors():  # a judge's name (its spec by default) is a rater name: printable only
        if panel.name is not None:
            given_name(panel.name, "--name")
        for j in panel.specs:
            bad = control_character(j)
            if bad is not None:
                raise UserError(
                    f"--judge {j!r} contains the control character U+{ord(bad):04X}; "
                    "a judge's spec names it in the study and must be printable text"
                )


def check_max_cost(max_cost: float | None) -> None:
    """``--max-cost nan`` would compare false with every spend: a run without a limit."""
    if max_cost is not None and not math.isfinite(max_cost):
        raise typer.BadParameter(
            f"{max_cost} is no limit: give USD, e.g. --max-cost 5", param_hint="--max-cost"
        )


def parse_price(text: str | None) -> tuple[float, float] | None:
    """``--price IN,OUT`` → (input, output) USD per million tokens (None without it)."""
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
