"""The rich study: every kind, three reviewers (one named like an attack), a judge with
realistic trails, adjudications, judge calls and reviewer time (the report tests' subject)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from medjudge.kinds import votes as protocol
from medjudge.store.importing.run import import_file
from medjudge.store.items import get_item, list_items
from medjudge.store.judgments import NewVerdict, write_verdicts
from medjudge.store.labels import add_time, set_label
from medjudge.store.study import Study, dumps, utcnow

from .kind_rows import write_jsonl
from .trails import CONFIG, JUDGE, adjudicate, pairwise_trail

EVIL = "<script>alert(1)</script>"


ODD = "=dr|`x`\x1b[2J"  # a formula, a pipe, backticks and a terminal escape in one name


REVIEWERS = ["ann", EVIL, ODD]


NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


SMALL = "local:smollm2"


PANEL = f"panel:{SMALL}+{JUDGE}"


def add_calls(
    study: Study, judge: str, model: str, template: str, thash: str, n: int, failed: int = 0
) -> None:
    with study.tx() as conn:
        for i in range(n):
            conn.execute(
                "INSERT INTO judge_calls (key, judge, provider, model, template, template_hash, "
                "params, messages, item_id, task, sample, status, raw, input_tokens, "
                "output_tokens, cost_usd, latency_s, created_at) VALUES "
                "(?, ?, 'openai', ?, ?, ?, '{}', '[]', NULL, 'pairwise/AB', ?, ?, 'raw', 900, 120, "
                "0.0005, 1.5, ?)",
                (
                    f"{template}-{i}",
                    judge,
                    model,
                    template,
                    thash,
                    i,
                    "failed" if i < failed else "ok",
                    utcnow(),
                ),
            )


def build_rich_study(tmp: Path, seed: int = 7) -> Path:
    """Pairwise, statements and rating items; three reviewers (one named like an attack), a
    judge with realistic trails, adjudications, judge calls, reviewer time, K-QA count."""
    rnd = random.Random(seed)
    path = tmp / "rich.db"
    s = Study.create(path, actor="lead")
    pw = [
        {
            "id": EVIL if i == 0 else f"p{i}",
            "question": f"Q{i}?",
            "answer_a": f"A{i}",
            "answer_b": f"B{i}",
            "source_a": "model-x",
            "source_b": "model-y" if i % 2 else "model-z",
            "batch": "b1" if i < 8 else "b2",
        }
        for i in range(16)
    ]
    import_file(s, write_jsonl(tmp / "pw.jsonl", pw), "pairwise", actor="lead")
    st = [
        {
            "id": f"s{i}",
            "question": f"Q{i}?",
            "answer": f"Answer {i}",
            "source": "model-x" if i % 2 else "model-y",
            "must_have": [f"M{i}.1", f"M{i}.2"],
            "nice_to_have": [f"N{i}.1"],
        }
        for i in range(6)
    ]
    import_file(s, write_jsonl(tmp / "st.jsonl", st), "statements", actor="lead")
    rt = [
        {
            "id": f"r{i}",
            "question": f"Case {i}",
            "options": {"A": "a", "B": "b"},
            "correct": "A",
            "explanation": f"Because {i}",
            "source": "model-x",
        }
        for i in range(6)
    ]
    import_file(s, write_jsonl(tmp / "rt.jsonl", rt), "rating", actor="lead")
    verdicts, biased, panel = [], [], []
    for ref in list_items(s):
        item = get_item(s, ref.id)
        for unit in item.units:
            crit = s.settings.criterion(unit.criterion)
            options = list(crit.labels() or ["A", "A,B"])
            truth = rnd.choice(options)
            if crit.name == "bias":
                truth = "neither"  # one category only: κ is undefined
            for r in REVIEWERS:
                keep = crit.name == "bias" or rnd.random() < 0.8
                set_label(s, unit.id, r, truth if keep else rnd.choice(options))
            if item.kind == "pairwise":
                ab = [truth if rnd.random() < 0.8 else rnd.choice(options) for _ in range(3)]
                ba = [truth if rnd.random() < 0.8 else rnd.choice(options) for _ in range(3)]
                value, trail = pairwise_trail(s, crit.name, ab, ba, failed=int(ref.id == 3))
                verdicts.append(NewVerdict(unit.id, value, "r", trail))
                # A second judge with pure position bias: always the answer shown first.
                other, trail2 = pairwise_trail(s, crit.name, ["A"] * 3, ["B"] * 3, judge=SMALL)
                biased.append(NewVerdict(unit.id, other, "r", trail2))
                members = {SMALL: other, JUDGE: value}
                split = len(set(members.values())) > 1
                panel.append(
                    NewVerdict(
                        unit.id,
                        crit.null_verdict if split else value,
                        "",
                        {
                            "protocol": "panel (conservative)",
                            "members": members,
                            "verdict": crit.null_verdict if split else value,
                            "judges_disagreed": split,
                        },
                    )
                )
            elif item.kind == "statements":
                votes = [truth, truth, rnd.choice(options)]
                res = protocol.statement_majority(votes)
                verdicts.append(
                    NewVerdict(
                        unit.id,
                        res.verdict,
                        "r",
                        {
                            "votes": votes,
                            "verdict": res.verdict,
                            "samples_disagreed": res.disagreed,
                            "failed": [],
                        },
                    )
                )
    write_verdicts(s, JUDGE, CONFIG, verdicts, run_id=None, actor="lead")
    write_verdicts(
        s,
        SMALL,
        {**CONFIG, "spec": SMALL, "provider": "local", "model": "smollm2"},
        biased,
        run_id=None,
        actor="lead",
    )
    write_verdicts(
        s,
        PANEL,
        {"panel": [SMALL, JUDGE], "rule": "conservative"},
        panel,
        run_id=None,
        actor="lead",
    )
    add_calls(s, JUDGE, "gpt-4o-mini", "pairwise_v1", "3f2a9c1d", 12, failed=2)
    add_calls(s, JUDGE, "gpt-4o-mini", "nli_v1", "77aa01bc", 6)
    for ref in list_items(s)[:5]:
        add_time(s, ref.id, "ann", 30.0)
    for unit_id in [
        r[0]
        for r in s.conn.execute(
            "SELECT id FROM units WHERE criterion = 'correctness' ORDER BY id LIMIT 3"
        )
    ]:
        adjudicate(s, unit_id, "A")
    with s.tx() as conn:
        conn.execute(
            "INSERT INTO study_settings (key, value) VALUES ('kqa_questions', ?)", (dumps(8),)
        )
    s.close()
    return path
