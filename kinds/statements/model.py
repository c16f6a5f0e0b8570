"""``statements``: one answer checked against physician statements (entailed / neutral /
contradicted) — K-QA's comprehensiveness and hallucination figures come from these labels.

Import fields: id, question, answer, source, and either ``statements`` (a list of {text,
category}) or ``must_have`` / ``nice_to_have`` lists; optional context, batch, labels (a label
names its statement by number: ``{"rater": ..., "statement": 0, "value": "entailed"}``). K-QA's
own files are read by ``store.importing.kqa`` into the same items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import fields, votes
from ..base import COMMON_FIELDS, CriterionLike, Kind, keyed
from ..judged import (
    Ask,
    ItemLike,
    JudgePlan,
    Prompt,
    Samples,
    UnitLike,
    Verdict,
    context_block,
    first_reason,
    label_reply,
    label_schema,
)

if TYPE_CHECKING:
    from medjudge.store.importing.parsed import ItemIn
    from medjudge.store.importing.problems import Record
    from medjudge.store.settings import StudySettings

LABELS = ("entailed", "neutral", "contradicted")
SPELLINGS = {
    "entailed": "entailed", "entailment": "entailed", "entails": "entailed",
    "neutral": "neutral",
    "contradicted": "contradicted", "contradiction": "contradicted", "contradicts": "contradicted",
}  # fmt: skip
"""Accepted spellings of statement labels (lower case) → the canonical label."""
CRITERION = "entailment"
"""The one criterion of a statements item; its units are the item's statements."""
CATEGORIES = ("must_have", "nice_to_have")
MAX_STATEMENTS = 100_000
"""The most statements one item holds (the review app pages them; more is a broken file)."""
_STATEMENT = frozenset({"question", "answer", "statement"})
NLI_REPLY = label_reply("label", SPELLINGS, "entailed, neutral or contradicted")
"""How a 3-way (``nli``) reply is read."""
YES_NO_REPLY = label_reply(
    "answer", {"yes": "yes", "no": "no", "true": "yes", "false": "no"}, "yes or no"
)
"""How a K-QA yes/no reply (``kqa_entails``, ``kqa_contradicts``) is read."""


@dataclass(frozen=True)
class Statements(Kind):
    """An answer and its statements."""

    def judge_asks(
        self, item: ItemLike, criteria: Sequence[CriterionLike], statements_protocol: str
    ) -> list[Ask]:
        """Each statement on its own: one 3-way prompt (``nli``), or K-QA's two yes/no
        prompts (``kqa``)."""
        prompts = [p.task for p in self.judge_prompts(statements_protocol)]
        answer = item.answers["answer"].text
        asks = []
        for st in item.statements:
            values = {
                "question": item.question,
                "context": context_block(item),
                "answer": answer,
                "statement": st.text or "(empty statement)",
            }
            for task in prompts:
                if task == "nli":
                    schema = label_schema("nli", "label", LABELS)
                    reply = NLI_REPLY
                else:
                    schema = label_schema(task, "answer", ["yes", "no"])
                    reply = YES_NO_REPLY
                asks.append(Ask(f"{task}/{st.id}", task, values, schema, reply))
        return asks

    def judge_resolve(
        self, item: ItemLike, samples: Mapping[str, Samples], criteria: Sequence[CriterionLike]
    ) -> list[Verdict]:
        """Per statement: the strict majority of the samples' labels, else neutral; a K-QA
        sample is a pair of yes/no answers ("contradicts: yes" wins)."""
        out = []
        for st in item.statements:
            unit = item.unit_for(CRITERION, st.id)
            trail: dict[str, Any] = {"statement": st.position}
            labels: list[str]
            reasons: list[str]
            if f"nli/{st.id}" in samples:
                got = samples[f"nli/{st.id}"]
                labels = [s.parsed["label"] for s in got.valid]
                reasons = [s.parsed["reason"] for s in got.valid]
                trail.update(protocol="3-way NLI majority", calls=got.keys, failed=got.failed)
            else:
                ent_got = samples.get(f"kqa_entails/{st.id}", Samples())
                con_got = samples.get(f"kqa_contradicts/{st.id}", Samples())
                ent = {s.sample: s.parsed for s in ent_got.valid}
                con = {s.sample: s.parsed for s in con_got.valid}
                paired = sorted(set(ent) & set(con))
                labels = [votes.kqa_label(ent[i]["answer"], con[i]["answer"]) for i in paired]
                reasons = [
                    con[i]["reason"] if con[i]["answer"] == "yes" else ent[i]["reason"]
                    for i in paired
                ]
                trail.update(
                    protocol="K-QA entails/contradicts pair, majority",
                    calls=ent_got.keys + con_got.keys,
                    failed=ent_got.failed + con_got.failed,
                    pairs=[
                        {"sample": i, "entails": ent[i]["answer"], "contradicts": con[i]["answer"]}
                        for i in paired
                    ],
                )
            result = votes.statement_majority(labels)
            trail.update(
                votes=labels,
                reasons=reasons,
                verdict=result.verdict,
                rule=result.rule,
                samples_disagreed=result.disagreed,
            )
            out.append(
                Verdict(
                    unit.id, result.verdict, first_reason(labels, reasons, result.verdict), trail
                )
            )
        return out

    def panel_null(
        self, item: ItemLike, unit: UnitLike, criterion: CriterionLike, values: Sequence[str]
    ) -> str:
        """Neutral: judges who split neither support nor contradict the statement together."""
        return "neutral"

    def parse(self, rec: Record, settings: StudySettings, batch: str | None) -> ItemIn:
        """One generic statements record."""
        statements: list[tuple[str, str]] = []
        raw = rec.data.get("statements")
        if raw not in (None, "", []):
            if isinstance(raw, str) and raw.strip().startswith("["):
                raw = rec.json_cell("statements", raw, "a JSON list")
            if not isinstance(raw, list):
                raise rec.problem("expected a list of {text, category}", "statements")
            for i, s in enumerate(raw):
                where = f"statements[{i}]"
                if (
                    not isinstance(s, dict)
                    or not isinstance(s.get("text"), str)
                    or not s["text"].strip()
                ):
                    raise rec.problem('expected {"text": ..., "category": ...}', where)
                cat = str(s.get("category", "")).strip().lower().replace("-", "_")
                if cat not in CATEGORIES:
                    raise rec.problem(
                        "category must be must_have or nice_to_have", f"{where}.category"
                    )
                statements.append((s["text"].strip(), cat))
        else:
            statements += [(t, "must_have") for t in rec.text_list("must_have")]
            statements += [(t, "nice_to_have") for t in rec.text_list("nice_to_have")]
        if not statements:
            raise rec.problem(
                "an item needs at least one statement (statements, or must_have/nice_to_have)",
                "statements",
            )
        if len(statements) > MAX_STATEMENTS:
            raise rec.problem(
                f"{len(statements):,} statements; an item holds at most {MAX_STATEMENTS:,}",
                "statements",
            )
        return fields.item(
            rec,
            self,
            settings,
            batch,
            answers=[("answer", "answer", "source")],
            statements=statements,
        )


KIND = Statements(
    name="statements",
    doc="One answer checked against physician statements (entailed / neutral / contradicted).",
    fields=COMMON_FIELDS | {"answer", "source", "statements", "must_have", "nice_to_have"},
    values=LABELS,
    spellings=SPELLINGS,
    value_words="entailed, neutral or contradicted",
    keys=keyed(
        [
            ("e", "entailed", "Entailed", "entailed: the answer says it"),
            ("n", "neutral", "Neutral", "neutral: the answer does not address it"),
            ("c", "contradicted", "Contradicted", "contradicted: the answer says the opposite"),
        ]
    ),
    abstains=True,
    answered_values=("entailed", "contradicted"),
    help_title="Statements items (then on to the next statement)",
    listed_criterion=CRITERION,
    listed_field="statement",
    item_criteria=False,
    lists_entries=True,
    default_criteria=(
        {
            "name": CRITERION,
            "kind": "statements",
            "question": "Does the answer entail, contradict, or not address the statement?",
        },
    ),
    judge=JudgePlan(
        prompts=(
            Prompt("nli", "nli_v1", _STATEMENT, protocol="nli", reply_before_forms=NLI_REPLY),
            Prompt(
                "kqa_entails",
                "kqa_entails_v1",
                _STATEMENT,
                protocol="kqa",
                reply_before_forms=YES_NO_REPLY,
            ),
            Prompt(
                "kqa_contradicts",
                "kqa_contradicts_v1",
                _STATEMENT,
                protocol="kqa",
                reply_before_forms=YES_NO_REPLY,
            ),
        )
    ),
)
