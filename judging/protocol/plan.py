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

from medjudge.judging.llm.specs import JudgeSpec
from medjudge.judging.protocol.templates import Template, load
from medjudge.store.items import Item
from medjudge.store.json_types import JsonObject
from medjudge.store.kinds import ItemKind
from medjudge.store.settings import Criterion, StudySettings

KIND_TASKS = {
    "pairwise": ("pairwise",),
    "statements/nli": ("nli",),
    "statements/kqa": ("kqa_entails", "kqa_contradicts"),
    "rating": ("rating",),
    "match": ("match",),
}
"""Item kind (statements: with its protocol) → the prompt tasks it needs."""


def tasks_for(kind: str, statements_protocol: str = "nli") -> tuple[str, ...]:
    """The prompt tasks one item kind needs under a statements protocol."""
    if kind == ItemKind.statements:
        return KIND_TASKS[f"statements/{statements_protocol}"]
    return KIND_TASKS[kind]


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
        """Every task this version can run → its template's name and hash."""
        tasks = [*tasks_for("pairwise"), *tasks_for("statements", self.statements_protocol)]
        tasks += ["rating", "match"]
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


def _context(item: Item) -> str:
    if not item.context:
        return ""
    passages = "\n".join(f"[{i}] {p}" for i, p in enumerate(item.context, start=1))
    return f"\n<context>\n{passages}\n</context>\n"


def _criteria_text(criteria: list[Criterion]) -> str:
    lines = []
    for c in criteria:
        if c.kind == ItemKind.pairwise:
            kind = "which is better?" if c.polarity == "benefit" else "which is worse?"
            lines.append(f"- {c.name} ({kind}): {c.question}")
        elif c.options:
            lines.append(f"- {c.name} (options): {c.question}")
        else:
            assert c.scale is not None
            lines.append(f"- {c.name} (whole number {c.scale[0]}–{c.scale[1]}): {c.question}")
    return "\n".join(lines)


def pairwise_schema(criteria: list[str]) -> JsonObject:
    """JSON schema of a pairwise reply, for endpoints with structured output."""
    entry = {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["A", "B", "tie", "neither"]},
            "reason": {"type": "string"},
        },
        "required": ["verdict", "reason"],
    }
    return {
        "name": "pairwise_verdict",
        "schema": {
            "type": "object",
            "properties": {c: entry for c in criteria},
            "required": criteria,
        },
    }


def _label_schema(name: str, key: str, values: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "schema": {
            "type": "object",
            "properties": {key: {"type": "string", "enum": values}, "reason": {"type": "string"}},
            "required": [key, "reason"],
        },
    }


def rating_schema(criteria: list[Criterion], options: list[str]) -> JsonObject:
    """JSON schema of a rating reply."""
    props: dict[str, Any] = {}
    for c in criteria:
        value: dict[str, Any]
        if c.options:
            value = {"type": "array", "items": {"type": "string", "enum": options}}
        else:
            assert c.scale is not None
            value = {"type": "integer", "minimum": c.scale[0], "maximum": c.scale[1]}
        props[c.name] = {
            "type": "object",
            "properties": {"value": value, "reason": {"type": "string"}},
            "required": ["value", "reason"],
        }
    return {
        "name": "rating",
        "schema": {"type": "object", "properties": props, "required": [c.name for c in criteria]},
    }


def plan_item(item: Item, judge: JudgeConfig, settings: StudySettings) -> list[CallSpec]:
    """Every call one judge needs for one item (all orders, statements and samples)."""
    if item.kind == ItemKind.pairwise:
        return _plan_pairwise(item, judge, settings)
    if item.kind == ItemKind.statements:
        return _plan_statements(item, judge)
    if item.kind == ItemKind.match:
        return _plan_match(item, judge)
    return _plan_rating(item, judge, settings)


def _make(
    judge: JudgeConfig,
    item: Item,
    task: str,
    template: Template,
    values: dict[str, str],
    schema: dict[str, Any] | None,
    parse_args: dict[str, Any],
) -> list[CallSpec]:
    system, user = template.render(**values)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    keys = sample_keys(judge.spec, judge, schema, template.hash, messages)
    return [
        CallSpec(key, judge, item.id, task, sample, template, system, user, schema, parse_args)
        for sample, key in enumerate(keys)
    ]


def _plan_pairwise(item: Item, judge: JudgeConfig, settings: StudySettings) -> list[CallSpec]:
    criteria = settings.criteria_for("pairwise")
    names = [c.name for c in criteria]
    template = judge.template("pairwise")
    a, b = item.answers["A"].text, item.answers["B"].text
    calls: list[CallSpec] = []
    for order, (first, second) in (("AB", (a, b)), ("BA", (b, a))):
        values = {
            "question": item.question,
            "context": _context(item),
            "response_a": first,
            "response_b": second,
            "criteria": _criteria_text(criteria),
            "keys": ", ".join(names),
        }
        calls += _make(
            judge,
            item,
            f"pairwise/{order}",
            template,
            values,
            pairwise_schema(names),
            {"criteria": names},
        )
    return calls


def _plan_statements(item: Item, judge: JudgeConfig) -> list[CallSpec]:
    calls: list[CallSpec] = []
    answer = item.answers["answer"].text
    tasks = ["nli"] if judge.statements_protocol == "nli" else ["kqa_entails", "kqa_contradicts"]
    for st in item.statements:
        values = {
            "question": item.question,
            "context": _context(item),
            "answer": answer,
            "statement": st.text or "(empty statement)",
        }
        for task in tasks:
            schema = (
                _label_schema("nli", "label", ["entailed", "neutral", "contradicted"])
                if task == "nli"
                else _label_schema(task, "answer", ["yes", "no"])
            )
            calls += _make(judge, item, f"{task}/{st.id}", judge.template(task), values, schema, {})
    return calls


def _plan_rating(item: Item, judge: JudgeConfig, settings: StudySettings) -> list[CallSpec]:
    criteria = settings.criteria_for("rating")
    options: dict[str, str] = item.data.get("options", {})
    values = {
        "question": item.question,
        "context": _context(item),
        "options": "\n".join(f"{k}. {v}" for k, v in options.items()),
        "correct": str(item.data.get("correct", "")),
        "explanation": item.answers["explanation"].text,
        "criteria": _criteria_text(criteria),
        "keys": ", ".join(c.name for c in criteria),
    }
    scales = {c.name: c.scale for c in criteria}
    return _make(
        judge,
        item,
        "rating",
        judge.template("rating"),
        values,
        rating_schema(criteria, list(options)),
        {"scales": scales, "options": list(options)},
    )


MATCH_SCHEMA = {
    "name": "match",
    "schema": {
        "type": "object",
        "properties": {"score": {"enum": [1, 0.5, 0]}, "reason": {"type": "string"}},
        "required": ["score", "reason"],
    },
}
"""JSON schema of a match reply."""


def _plan_match(item: Item, judge: JudgeConfig) -> list[CallSpec]:
    """The prediction against the ground truth (task ``match``), then each sub-answer against
    its reference (``match/<statement id>``); the same template, the same rubric."""
    options: dict[str, str] = item.data.get("options", {})
    shown_options = (
        "<options>\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) + "\n</options>"
        if options
        else ""
    )
    template = judge.template("match")
    values = {
        "question": item.question,
        "options": shown_options,
        "context": _context(item),
        "ground_truth": str(item.data.get("ground_truth", "")),
        "prediction": item.answers["answer"].text,
    }
    calls = _make(judge, item, "match", template, values, MATCH_SCHEMA, {})
    subs: list[dict[str, str]] = item.data.get("subquestions", [])
    for st, sub in zip(item.statements, subs, strict=False):
        sub_values = {
            "question": st.text,
            "options": "",
            "context": _context(item),
            "ground_truth": sub.get("reference", ""),
            "prediction": sub.get("prediction", ""),
        }
        calls += _make(judge, item, f"match/{st.id}", template, sub_values, MATCH_SCHEMA, {})
    return calls
