"""``medjudge judge``: run LLM judges over a study, with a progress bar.

The command reads its options into typed groups (:mod:`.judge_options`), checks them, asks for
the judge versions and plans the run in the open study (:mod:`.judge_plan`), runs it
(:mod:`.judge_run`) and prints the summary with its exit code (:mod:`.judge_summary`).
"""

from __future__ import annotations

from medjudge.kinds.votes import PanelRule, StatementsProtocol

from .common import OnlyStudyArg, opened
from .judge_options import (
    AbandonBatchOption,
    ApiVersionOption,
    BatchOption,
    BatchSizeOption,
    ConcurrencyOption,
    ContextSizeOption,
    DryRunOption,
    Execution,
    FirstOption,
    ItemIdsOption,
    JsonOutputOption,
    JudgeOptions,
    JudgesOption,
    KeyEnvOption,
    KindOption,
    Limits,
    MaxCostOption,
    MaxTokensOption,
    NameOption,
    Panel,
    PanelRuleOption,
    PollIntervalOption,
    PriceOption,
    PromptOption,
    RetryFailedOption,
    SamplesOption,
    Scope,
    StatementsProtocolOption,
    TemperatureOption,
    TimeoutOption,
    VerboseOption,
    WaitOption,
    WorkersOption,
    check_usage,
)
from .judge_plan import plan, request
from .judge_run import abandon_batch as abandon
from .judge_run import run
from .judge_summary import finish


def judge(
    study: OnlyStudyArg,
    judges: JudgesOption = None,
    samples: SamplesOption = 3,
    temperature: TemperatureOption = 0.7,
    max_tokens: MaxTokensOption = 800,
    concurrency: ConcurrencyOption = None,
    timeout: TimeoutOption = None,
    statements_protocol: StatementsProtocolOption = StatementsProtocol.nli,
    panel_rule: PanelRuleOption = PanelRule.conservative,
    kind: KindOption = None,
    item_ids: ItemIdsOption = None,
    first: FirstOption = None,
    context_size: ContextSizeOption = 4096,
    max_cost: MaxCostOption = None,
    price: PriceOption = None,
    dry_run: DryRunOption = False,
    retry_failed: RetryFailedOption = False,
    name: NameOption = None,
    prompt: PromptOption = None,
    batch: BatchOption = False,
    wait: WaitOption = False,
    poll_interval: PollIntervalOption = 30.0,
    batch_size: BatchSizeOption = None,
    workers: WorkersOption = None,
    key_env: KeyEnvOption = None,
    api_version: ApiVersionOption = None,
    abandon_batch: AbandonBatchOption = None,
    json_output: JsonOutputOption = False,
    verbose: VerboseOption = False,
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
    if abandon_batch is not None:
        abandon(study, abandon_batch, judges)
        return
    options = JudgeOptions(
        scope=Scope.of(kind, item_ids, first),
        panel=Panel(
            specs=tuple(judges or ()),
            name=name,
            prompts=tuple(prompt or ()),
            samples=samples,
            temperature=temperature,
            max_tokens=max_tokens,
            statements_protocol=statements_protocol.value,
            panel_rule=panel_rule.value,
            context_size=context_size,
            key_env=key_env,
            api_version=api_version,
        ),
        execution=Execution(
            concurrency=concurrency,
            timeout=timeout,
            dry_run=dry_run,
            retry_failed=retry_failed,
            batch=batch,
            wait=wait,
            poll_interval=poll_interval,
            batch_size=batch_size,
            workers=workers,
            json_output=json_output,
            verbose=verbose,
        ),
        limits=Limits(max_cost=max_cost, price=price),
    )
    check_usage(options)
    with opened(study, check=True) as s:
        asked = request(s, options)
        summary = run(s, asked.configs, plan(s, options, asked), options)
    finish(summary, options)
