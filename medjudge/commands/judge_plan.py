"""``medjudge judge`` in the open study: the judge versions asked for (the request) and how
they are run (the plan: which items, the keys, the limits, the settings' defaults)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medjudge.store import user_settings
from medjudge.store.literal import plural, printable
from medjudge.store.paths import login_name
from medjudge.store.retirements import retirements
from medjudge.store.roles import require

from .common import UserError, err_console, only_items, out, resume_collection
from .judge_options import JudgeOptions, Scope, parse_price

if TYPE_CHECKING:  # the runner (and the SDKs it loads) only when a run starts
    from medjudge.judging.llm.key_routing import KeyRing
    from medjudge.judging.llm.runner import RunOptions
    from medjudge.judging.llm.specs import JudgeSpec
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.judging.protocol.templates import Template
    from medjudge.store.study import Study


@dataclass(frozen=True)
class JudgeRequest:
    """The judge versions to run, the keys their calls may send, and the user's settings."""

    configs: list[JudgeConfig]
    keys: KeyRing
    settings: user_settings.UserSettings


def request(s: Study, options: JudgeOptions) -> JudgeRequest:
    """The judge versions of ``-j`` with their prompts and parameters, and their keys.

    A run (not a dry run) spends money and writes verdicts: the lead's, as the app's J. A bad
    spec is a usage error (exit 2), like any bad option; the notices about endpoints and keys
    are said once, before anything else.
    """
    from medjudge.judging.llm.key_routing import prepare_access
    from medjudge.judging.llm.providers import ProviderError
    from medjudge.judging.llm.specs import SpecError, parse_judge_spec
    from medjudge.judging.protocol.plan import JudgeConfig

    panel = options.panel
    if not options.execution.dry_run:
        require(s, login_name(), "judge")
    prompts = custom_prompts(s, list(panel.prompts), options.scope.kinds, panel.statements_protocol)
    try:
        parsed = [parse_judge_spec(j) for j in panel.specs]
    except SpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--judge") from None
    prefs = user_settings.load()
    if prefs.notice:
        err_console.print("note: " + printable(prefs.notice))
    try:
        access = prepare_access(parsed, prefs, panel.key_env)
    except SpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--judge") from None
    except ProviderError as exc:
        raise UserError(str(exc)) from None
    configs = [
        JudgeConfig(
            spec,
            samples=panel.samples,
            temperature=panel.temperature,
            max_tokens=panel.max_tokens,
            statements_protocol=panel.statements_protocol,
            name=panel.name,
            prompts=prompts,
        )
        for spec in access.specs
    ]
    for notice in access.notices:
        _note(notice, options.execution.json_output)
    return JudgeRequest(configs, access.keys, prefs)


def plan(s: Study, options: JudgeOptions, asked: JudgeRequest) -> RunOptions:
    """How the run goes: the items in scope (retired ones left out, said once), the calls in
    flight, the time and money it may take, the batches."""
    from medjudge.judging.llm.runner import RunOptions

    scope, execution, limits = options.scope, options.execution, options.limits
    left_out = sum(1 for r in retirements(s) if r.kind in scope.kinds)
    if left_out:  # never judged (list_items leaves them out); said like the notices
        _note(
            f"{plural(left_out, 'retired item')} left out (medjudge retire)", execution.json_output
        )
    items = _pilot_items(s, scope) if scope.pilot else None
    configs = asked.configs
    return RunOptions(
        item_ids=items,
        local_context=options.panel.context_size,
        concurrency=execution.concurrency or asked.settings.concurrency,
        timeout_s=execution.timeout or asked.settings.timeout_s,
        max_cost=limits.max_cost,
        dry_run=execution.dry_run,
        panel_rule=options.panel.panel_rule,
        kinds=scope.kinds,
        price_override=parse_price(limits.price),
        keys=asked.keys,
        api_version=options.panel.api_version,
        actor=login_name(),
        retry_failed=execution.retry_failed,
        batch=execution.batch,
        batch_wait=execution.wait,
        batch_poll_s=execution.poll_interval,
        batch_max_requests=execution.batch_size,
        workers=execution.workers,
        verbose=execution.verbose,
        before_calls=lambda: load_sdks([c.spec for c in configs]),
    )


def _note(text: str, json_output: bool) -> None:
    """A note before the run: on stdout, unless stdout is for the JSON summary."""
    if json_output:
        err_console.print("note: " + printable(text))
    else:
        out("note: " + text)


def _pilot_items(s: Study, scope: Scope) -> list[int]:
    """A pilot (``--items``, ``--first``): the ids of the items it judges."""
    from medjudge.store.items import list_items

    items = [i.id for i in list_items(s) if i.kind in scope.kinds]
    if scope.item_ids is not None:
        items = only_items(s, scope.item_ids, items)
    items = items[: scope.first]
    if not items:
        raise UserError("no items match (check --kind and --items)")
    return items


def custom_prompts(
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


def load_sdks(specs: list[JudgeSpec]) -> None:
    """Load the judges' SDK (a third of a second of imports) while garbage collection is still
    paused, then resume it (see ``medjudge.cli.main``)."""
    from medjudge.judging.llm.providers import load_provider_modules

    load_provider_modules(specs)
    resume_collection()
