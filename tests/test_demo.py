"""The bundled demo: real judge verdicts from the bundled model, without loading it."""

from __future__ import annotations

import json
from pathlib import Path

from medjudge.demo.build import build_demo
from medjudge.store.summary import summary


def test_demo_has_recorded_verdicts_of_the_local_model(tmp_path: Path) -> None:
    study = build_demo(tmp_path / "demo.sqlite", actor="tester")
    data = summary(study)
    assert data["items"] == {
        "total": 28,
        "pairwise": 12,
        "statements": 6,
        "rating": 4,
        "match": 2,
        "rubric": 2,
        "ranking": 2,
    }  # every kind, so a newcomer can try them all
    judges = {j["name"]: j for j in data["judges"]}
    assert set(judges) == {"local:smollm2"}
    # every unit of the demo got a verdict or is recorded as missing — none silently absent
    assert (
        judges["local:smollm2"]["units_labelled"] + judges["local:smollm2"]["missing_verdicts"]
        == 134
    )
    calls = study.conn.execute(
        "SELECT DISTINCT provider, model, template FROM judge_calls"
    ).fetchall()
    assert {(r[0], r[1]) for r in calls} == {("local", "smollm2")}
    assert {r[2] for r in calls} == {
        "pairwise_v1",
        "nli_v1",
        "rating_v1",
        "match_v1",
        "rubric_v1",
        "ranking_v1",
    }
    raw = study.conn.execute("SELECT raw FROM judge_calls WHERE status = 'ok' LIMIT 1").fetchone()[
        0
    ]
    assert isinstance(json.loads(raw[raw.index("{") : raw.rindex("}") + 1]), dict)
    roles = data["roles"]
    assert roles == {"adjudicator": ["tester"], "lead": ["tester"], "reviewer": ["tester"]}
    study.close()


def test_demo_content_is_marked_illustrative() -> None:
    from importlib.resources import files

    readme = (files("medjudge.demo") / "README.md").read_text(encoding="utf-8")
    assert "illustrative" in readme and "nothing here is medical advice" in readme
    assert "for trying the workflow" in readme
