"""The kind x surface matrix's studies (``tests/test_kind_matrix.py``): one study per kind,
built the way a team builds it — items imported with gold values and an external judge's
labels, three reviewers' labels with disagreements, notes and a flag, a judge version run
against the fake server — and what the tests ask each kind (its values, the keys that give a
label, the words that are its own). Nothing here names a kind."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from medjudge import kinds
from medjudge.cli import app as cli_app
from medjudge.kinds import orders
from medjudge.store.importing.problems import Record
from medjudge.store.items import get_item, list_items
from medjudge.store.labels import set_label, set_note
from medjudge.store.paths import login_name
from medjudge.store.reviewer_aids import set_flag
from medjudge.store.roles import grant
from medjudge.store.settings import Criterion
from medjudge.store.study import Study

from .fakellm import FakeLLMServer
from .kind_rows import ROWS, write_jsonl

cli = CliRunner()
REVIEWERS = ("drA", "drB", "drC")
N_ITEMS = 4
LEAD = login_name()
"""``init`` makes whoever runs it the lead; the lead adjudicates here too."""


def values_of(item: Any, crit: Criterion) -> list[str]:
    """The values a criterion of this item can take, in order (option sets: a few)."""
    slots = orders.slots_of(getattr(item, "answers", {}))
    fixed = kinds.get(crit.kind).item_values(crit, slots)
    if fixed is not None:
        return list(fixed)
    letters = sorted(item.data.get("options", {}))
    return [letters[0], ",".join(letters[:2]), letters[1]]


def import_row(kind: kinds.Kind, i: int, settings: Any) -> dict[str, Any]:
    """The kind's i-th row with gold values and an external judge's labels on its units."""
    row = ROWS[kind.name](i)
    criteria = settings.criteria_for(kind.name)
    labels: list[dict[str, Any]] = []
    gold: dict[str, Any] = {}
    for crit in criteria:
        parsed = kind.parse(Record("row", 1, dict(row)), settings, None)
        shape = {
            "data": {"options": row.get("options", {})},
            "answers": dict.fromkeys(pos for pos, _, _ in parsed.answers),
        }
        first = values_of(type("I", (), shape)(), crit)[0]
        if crit.name == kind.listed_criterion:
            if kind.listed_field is None:
                continue
            n = len(kind.parse(Record("row", 1, dict(row)), settings, None).statements)
            for pos in range(n):
                labels.append(
                    {"rater": "ext-judge", "type": "judge", kind.listed_field: pos, "value": first}
                )
            if not kind.item_criteria and i == 0:
                gold[crit.name] = [first] * n
            continue
        value: Any = first.split(",") if crit.options else first
        labels.append(
            {"rater": "ext-judge", "type": "judge", "criterion": crit.name, "value": value}
        )
        if i == 0:
            gold[crit.name] = value
    row["labels"] = labels
    if gold:
        row["gold"] = gold
    return row


def build(tmp: Path, kind: kinds.Kind, server: FakeLLMServer) -> Path:
    db = tmp / f"{kind.name}.db"
    r = cli.invoke(cli_app, ["init", str(db), "--name", f"{kind.name} matrix"])
    assert r.exit_code == 0, r.output
    r = cli.invoke(cli_app, ["settings", str(db), "--allow-reviewer-override"])
    assert r.exit_code == 0, r.output
    study = Study.open(db)
    rows = [import_row(kind, i, study.settings) for i in range(N_ITEMS)]
    study.close()
    src = write_jsonl(tmp / f"{kind.name}.jsonl", rows)
    r = cli.invoke(cli_app, ["import", str(db), str(src), "--kind", kind.name])
    assert r.exit_code == 0, r.output
    study = Study.open(db)
    try:
        grant(study, LEAD, "adjudicator", by=LEAD)
        for n, ref in enumerate(list_items(study)):
            item = get_item(study, ref.id)
            for u, unit in enumerate(item.units):
                crit = study.settings.criterion(unit.criterion)
                vals = values_of(item, crit)
                # drA and drB agree, drC differs on every other unit; drC leaves the last
                # item for the app.
                for rater in REVIEWERS:
                    if rater == "drC" and n == N_ITEMS - 1:
                        continue
                    shift = 1 if rater == "drC" and (u + n) % 2 else 0
                    set_label(study, unit.id, rater, vals[(u + n + shift) % len(vals)])
            set_note(study, item.id, "drA", f"note on {item.ext_id}")
            if n == 0:
                set_flag(study, item.id, "drB", True)
    finally:
        study.close()
    r = cli.invoke(
        cli_app,
        ["judge", str(db), "-j", f"openai:fake@{server.openai_url}", "--samples", "1"],
    )
    assert r.exit_code in (0, 4), r.output  # a fake reply may miss a unit; it is counted
    return db


def db_rows(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def first_key(kind: kinds.Kind, crit: Criterion, n_answers: int = 0) -> list[str]:
    """The keys that give a label to a unit of this criterion (an option set: tick, enter; a
    value built from several keys: the kind's keys until it is complete)."""
    if crit.options:
        return ["a", "enter"]
    keys = kind.value_keys(crit)
    if kind.composes:
        partial, pressed = "", []
        for k in keys:
            partial, done = kind.compose(partial, k.value, n_answers)
            pressed.append(k.key)
            if done:
                return pressed
        raise AssertionError(f"{kind.name}: its keys never complete a value")
    return [keys[0].key]


def own_words(kind: kinds.Kind) -> set[str]:
    """The words that are the kind's own on a screen: its listed entry's name and the import
    fields that name its answers (``answer_a``)."""
    own = {f for f in kind.fields if f.startswith("answer_")}
    if kind.listed_criterion is not None:
        own.add(kind.listed_name)
    return own


def foreign_words(kind: kinds.Kind) -> set[str]:
    """Other kinds' own words that are not this kind's too."""
    others = set().union(*(own_words(k) for k in kinds.KINDS.values() if k is not kind))
    return others - own_words(kind) - {w for w in others if any(w in o for o in own_words(kind))}
