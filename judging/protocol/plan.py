"""Planning judge calls: which calls an item needs, their rendered messages and cache keys.

A call's cache key hashes only what shapes its answer: provider, model, endpoint, sampling
parameters, the template's hash, the rendered messages and the sample index — not timeouts
or retry settings. Two runs that would send the same request share the key, so the second
pays nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from medjudge import kinds
from medjudge.judging.llm.specs import JudgeSpec
from medjudge.judging.protocol.templates import Template, load
from medjudge.kinds.judged import Ask
from medjudge.store.items import Item
from medjudge.store.json_types import JsonObject
from medjudge.store.settings import StudySettings


def tasks_for(kind: str, statements_protocol: str = "nli") -> tuple[str, ...]:
    """The prompt tasks one item kind needs under a statements protocol."""
    return tuple(p.task for p in kinds.get(kind).judge_prompts(statements_protocol))


def identity_key(body: JsonObject) -> str:
    """SHA-256 of a canonical JSON rendering (judge-version keys)."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class JudgeConfig:
    """One judge version: a model with the templates and protocol settings it runs under."""

    spec: JudgeSpec
    samples: int = 3
    temperature: float = 0.7
    max_tokens: int = 800
    statements_protocol: str = "nli"
    """``nli`` (one 3-way prompt per statement) or ``kqa`` (two yes/no prompts per statement)."""
    name: str | None = None
    """The version's rater name in the study (``--name``, or given by
    :func:`medjudge.store.judge_versions.register_version`); None: the spec."""
    prompts: tuple[tuple[str, Template], ...] = ()
    """Custom templates (``--prompt``) as (task, template) pairs; other tasks use the bundled
    ones."""

    @property
    def spec_name(self) -> str:
        """The model spec as text (stable across machines for local models)."""
        s = self.spec
        if s.provider == "local":
            return f"local:{s.model}"
        return f"{s.provider}:{s.model}" + (f"@{s.base_url}" if s.base_url else "")

    @property
    def rater(self) -> str:
        """The judge version's rater name in the study."""
        return self.name or self.spec_name

    def template(self, task: str) -> Template:
        """The template this version uses for a task (custom, else the bundled one)."""
        for t, template in self.prompts:
            if t == task:
                return template
        return load(task)

    def templates(self) -> dict[str, dict[str, str]]:
        """Every task this version can run → its template's name and hash: the prompts of
        every kind, less a bundled template of a kind added after version keys existed
        (:attr:`kinds.judged.Prompt.keyed`), so that no older judge becomes a new version."""
        custom = {t for t, _ in self.prompts}
        tasks = [
            p.task
            for kind in kinds.KINDS.values()
            for p in kind.judge_prompts(self.statements_protocol)
            if p.keyed or p.task in custom
        ]
        return {
            t: {"template": self.template(t).name, "hash": self.template(t).hash} for t in tasks
        }

    def params(self) -> JsonObject:
        """The parameters that make a version (beside model and templates)."""
        return {
            "samples": self.samples,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "statements_protocol": self.statements_protocol,
        }

    def version_key(self) -> str:
        """SHA-256 of provider, model, endpoint, templates and parameters: the version's id."""
        s = self.spec
        return identity_key(
            {
                "provider": s.provider,
                "model": s.model,
                "endpoint": s.base_url if s.provider != "local" else None,
                "templates": {t: v["hash"] for t, v in self.templates().items()},
                "params": self.params(),
            }
        )

    def describe(self) -> JsonObject:
        """The judge's configuration as stored with its rater row and in reports."""
        return {
            "spec": self.spec_name,
            "provider": self.spec.provider,
            "model": self.spec.model,
            **self.params(),
            "templates": {t: v["template"] for t, v in self.templates().items()},
        }


@dataclass(frozen=True)
class CallSpec:
    """One planned judge call."""

    key: str
    judge: JudgeConfig
    item_id: int
    task: str
    """``pairwise/AB``, ``pairwise/BA``, ``nli/<statement id>``, ``kqa_entails/<id>``,
    ``kqa_contradicts/<id>`` or ``rating``."""
    sample: int
    template: Template
    system: str
    user: str
    json_schema: dict[str, Any] | None
    parse_args: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The task without its order/statement suffix."""
        return self.task.split("/")[0]

    def params(self) -> JsonObject:
        """Sampling parameters that shape the answer (part of the key)."""
        return call_params(self.judge, self.sample, self.json_schema)

    def messages(self) -> list[dict[str, str]]:
        """The rendered messages as stored with the call."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


def call_params(judge: JudgeConfig, sample: int, schema: JsonObject | None) -> JsonObject:
    """The sampling parameters of one call; the sample index doubles as the seed."""
    return {
        "temperature": judge.temperature,
        "max_tokens": judge.max_tokens,
        "seed": sample,
        "json_schema": schema is not None,
    }


def _dump(value: object) -> str:
    """The canonical JSON a cache key hashes (sorted keys, no spaces, UTF-8 as is)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(
    spec: JudgeSpec,
    params: JsonObject,
    template_hash: str,
    messages: list[dict[str, str]],
    sample: int,
) -> str:
    """SHA-256 over everything that determines a call's answer."""
    body = _dump(
        {
            "provider": spec.provider,
            "model": spec.model,
            "endpoint": spec.base_url if spec.provider != "local" else None,
            "params": params,
            "template": template_hash,
            "messages": messages,
            "sample": sample,
        }
    )
    return hashlib.sha256(body.encode()).hexdigest()


def sample_keys(
    spec: JudgeSpec,
    judge: JudgeConfig,
    schema: JsonObject | None,
    template_hash: str,
    messages: list[dict[str, str]],
) -> list[str]:
    """:func:`cache_key` of every sample of one prompt, byte for byte, with the shared part
    (the messages: most of the bytes) encoded and hashed once instead of once per sample."""
    endpoint = spec.base_url if spec.provider != "local" else None
    # The keys of cache_key's body in sorted order: endpoint, messages, model, params,
    # provider, sample, template.
    head = hashlib.sha256(
        (
            f'{{"endpoint":{_dump(endpoint)},"messages":{_dump(messages)},'
            f'"model":{_dump(spec.model)},"params":'
        ).encode()
    )
    tail_provider = f',"provider":{_dump(spec.provider)},"sample":'
    tail_template = f',"template":{_dump(template_hash)}}}'
    keys = []
    for sample in range(judge.samples):
        h = head.copy()
        params = _dump(call_params(judge, sample, schema))
        h.update(f"{params}{tail_provider}{sample}{tail_template}".encode())
        keys.append(h.hexdigest())
    return keys


def plan_item(item: Item, judge: JudgeConfig, settings: StudySettings) -> list[CallSpec]:
    """Every call one judge needs for one item (all orders, listed entries and samples), as
    the item's kind asks (:meth:`kinds.base.Kind.judge_asks`)."""
    kind = kinds.get(item.kind)
    asks = kind.judge_asks(item, settings.criteria_for(item.kind), judge.statements_protocol)
    return [call for ask in asks for call in _make(judge, item, ask)]


def _make(judge: JudgeConfig, item: Item, ask: Ask) -> list[CallSpec]:
    template = judge.template(ask.prompt)
    system, user = template.render(**ask.values)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    keys = sample_keys(judge.spec, judge, ask.schema, template.hash, messages)
    return [
        CallSpec(
            key, judge, item.id, ask.task, sample, template, system, user, ask.schema, ask.reply
        )
        for sample, key in enumerate(keys)
    ]
