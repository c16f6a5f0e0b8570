"""Judge versions: each configuration of a judge is its own rater; nothing is replaced.

Real SDKs against the scripted loopback server, a real study file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medjudge.store.judge_versions import list_versions
from medjudge.store.judgments import latest_verdicts
from medjudge.store.study import Study

from .support.checks import some
from .support.fakellm import FakeLLMServer
from .support.judges import flip_sample, pairwise_responder, prefer_marked, routing
from .support.kind_rows import pairwise_row
from .support.old_studies import old_study
from .support.runs import judge_for, judged_study, run


def current(study: Study, rater: str) -> dict[tuple[str, str], str | None]:
    """A rater's current labels by (item, criterion)."""
    rows = study.conn.execute(
        "SELECT i.ext_id, u.criterion, l.value FROM labels l JOIN units u ON u.id = l.unit_id "
        "JOIN items i ON i.id = u.item_id JOIN raters r ON r.id = l.rater_id WHERE r.name = ?",
        (rater,),
    )
    return {(r[0], r[1]): r[2] for r in rows}


# Sample 0 votes for the plain answer, samples 1 and 2 for the GOOD one: one sample gives the
# wrong verdict, three samples the right one — so the two versions' verdicts differ.
FLIPPED_FIRST = routing(pairwise_responder(flip_sample(prefer_marked("GOOD"), flipped=0)))


def test_two_versions_of_one_judge_keep_both_sets_of_verdicts(tmp_path: Path) -> None:
    """a re-run with other settings used to overwrite the rater's config and verdicts."""
    study = judged_study(tmp_path, n=3)
    with FakeLLMServer(FLIPPED_FIRST) as server:
        run(study, [judge_for(server, samples=1)])
        run(study, [judge_for(server, samples=3)])
        spec = judge_for(server).spec_name
    versions = list_versions(study)
    assert [v.params["samples"] for v in versions] == [1, 3]
    first, second = versions
    assert first.name == spec
    assert second.name == f"{spec}#{some(second.key)[:6]}" and second.key != first.key
    config = study.conn.execute("SELECT config FROM raters WHERE name = ?", (spec,)).fetchone()[0]
    assert json.loads(config)["samples"] == 1  # the first version's settings are untouched
    one, three = current(study, first.name), current(study, second.name)
    assert len(one) == len(three) == 3 * 6
    assert set(one.values()) == {"B"} and set(three.values()) == {"A"}
    # the first version's verdict rows are all still there, unchanged
    rows = study.conn.execute(
        "SELECT count(*), min(value), max(value) FROM verdicts WHERE rater_id = ?",
        (first.rater_id,),
    ).fetchone()
    assert tuple(rows) == (18, "B", "B")


def test_the_same_settings_again_are_the_same_version(tmp_path: Path) -> None:
    study = judged_study(tmp_path, n=2)
    with FakeLLMServer(FLIPPED_FIRST) as server:
        run(study, [judge_for(server, samples=3)])
        again = run(study, [judge_for(server, samples=3)])
    assert again.verdicts_added == 0 and again.requests == 0
    assert len(list_versions(study)) == 1


def test_an_edited_template_is_a_new_version(tmp_path: Path) -> None:
    from medjudge.judging.protocol.plan import JudgeConfig
    from medjudge.judging.protocol.templates import load, parse_template

    bundled = load("pairwise")
    edited = parse_template("pairwise_edit", bundled.text + "\n# edited\n")
    with FakeLLMServer(FLIPPED_FIRST) as server:
        base = judge_for(server)
        custom = JudgeConfig(base.spec, prompts=(("pairwise", edited),))
    assert base.version_key() != custom.version_key()
    assert custom.templates()["pairwise"] == {"template": "pairwise_edit", "hash": edited.hash}
    assert custom.templates()["nli"] == base.templates()["nli"]


def test_a_judge_from_before_versions_is_adopted_by_a_matching_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-004 judge keeps its name and verdicts; a run with its settings continues it, a run
    with other settings becomes a second version beside it."""

    path = tmp_path / "old.db"
    rows = [pairwise_row(i, answer_a=f"GOOD {i}", answer_b=f"Plain {i}") for i in range(2)]
    old = old_study(path, monkeypatch, 3, pairwise=rows)
    with FakeLLMServer(FLIPPED_FIRST) as server:
        judge = judge_for(server, samples=3)
        with old.tx() as conn:
            conn.execute(
                "INSERT INTO raters (name, kind, config, created_at) VALUES (?, 'judge', ?, 'x')",
                (judge.spec_name, json.dumps({"spec": judge.spec_name, **judge.params()})),
            )
        old.close()
        monkeypatch.undo()
        study = Study.open(path)
        (legacy,) = list_versions(study, unused=True)
        assert legacy.key is None
        run(study, [judge])
        (adopted,) = list_versions(study)
        assert (adopted.name, adopted.rater_id, adopted.key) == (
            legacy.name,
            legacy.rater_id,
            judge.version_key(),
        )
        run(study, [judge_for(server, samples=1)])
    names = [v.name for v in list_versions(study)]
    assert names[0] == legacy.name and names[1].startswith(legacy.name + "#")
    assert set(current(study, names[0]).values()) == {"A"}
    assert set(current(study, names[1]).values()) == {"B"}


def _custom_pairwise(tmp_path: Path, drop: str | None = None, extra: str = "") -> Path:
    """The bundled pairwise template, reworded (and optionally without one placeholder)."""
    from medjudge.judging.protocol.templates import load

    text = load("pairwise").text.replace("careful physician", "strict physician") + extra
    if drop is not None:
        text = text.replace("$" + drop, "")
    path = tmp_path / "strict.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_cli_name_and_custom_prompt_make_named_versions(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from medjudge.cli import app

    study = judged_study(tmp_path, n=2)
    path = str(study.path)
    study.close()
    prompt = _custom_pairwise(tmp_path)
    runner = CliRunner()
    with FakeLLMServer(FLIPPED_FIRST) as server:
        spec = f"openai:fake@{server.openai_url}"
        r = runner.invoke(app, ["judge", path, "-j", spec, "--name", "baseline"])
        assert r.exit_code == 0, r.output
        assert "judge version: baseline" in r.output
        r = runner.invoke(
            app, ["judge", path, "-j", spec, "--prompt", str(prompt), "--name", "strict"]
        )
        assert r.exit_code == 0, r.output
        prompts = [req.prompt_text for req in server.requests]
        # the same settings under another name: refused, nothing is renamed or re-run
        r = runner.invoke(app, ["judge", path, "-j", spec, "--name", "other"])
        assert r.exit_code == 1 and "already in the study as 'baseline'" in r.output
        # a name already held by another version: refused
        r = runner.invoke(app, ["judge", path, "-j", spec, "--samples", "1", "--name", "strict"])
        assert r.exit_code == 1 and "'strict' is already used by version" in r.output
        assert "Traceback" not in r.output
    assert sum("strict physician" in p for p in prompts) == 2 * 2 * 3
    s = Study.open(Path(path))
    try:
        versions = {v.name: v for v in list_versions(s)}
        assert set(versions) == {"baseline", "strict"}
        assert versions["strict"].templates["pairwise"]["template"] == "strict"
        assert versions["baseline"].templates["pairwise"]["template"] == "pairwise_v1"
        assert len(current(s, "baseline")) == len(current(s, "strict")) == 2 * 6
    finally:
        s.close()


@pytest.mark.parametrize(
    ("drop", "extra", "message"),
    [
        ("response_b", "", "a template for pairwise needs the placeholder $response_b"),
        (None, "\n$answer_c\n", "a template for pairwise has no value for $answer_c"),
        (None, "\ncosts $5\n", "the user section has a '$' that is not a placeholder"),
    ],
)
def test_cli_bad_prompt_file_is_one_clear_error(
    tmp_path: Path, drop: str | None, extra: str, message: str
) -> None:
    from typer.testing import CliRunner

    from medjudge.cli import app

    study = judged_study(tmp_path, n=1)
    path = str(study.path)
    study.close()
    prompt = _custom_pairwise(tmp_path, drop, extra)
    r = CliRunner().invoke(
        app, ["judge", path, "-j", "openai:m@http://127.0.0.1:9/v1", "--prompt", str(prompt)]
    )
    assert r.exit_code == 1, r.output
    assert f"error: {prompt}: {message}" in r.output
    assert "Traceback" not in r.output


def test_cli_prompt_for_an_ambiguous_run_names_the_tasks(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from medjudge.cli import app

    from .support.studies import small_study

    study = small_study(tmp_path / "both.db", pairwise=1, statements=1)
    path = str(study.path)
    study.close()
    prompt = _custom_pairwise(tmp_path)
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "judge",
            path,
            "-j",
            "openai:m@http://127.0.0.1:9/v1",
            "--prompt",
            str(prompt),
            "--dry-run",
        ],
    )
    assert r.exit_code == 2 and "pairwise, nli" in r.output
    r = runner.invoke(
        app,
        [
            "judge",
            path,
            "-j",
            "openai:m@http://127.0.0.1:9/v1",
            "--prompt",
            f"nli={prompt}",
            "--dry-run",
        ],
    )
    assert r.exit_code == 1 and "a template for nli needs the placeholder $answer" in r.output
    r = runner.invoke(
        app,
        [
            "judge",
            path,
            "-j",
            "openai:m@http://127.0.0.1:9/v1",
            "--prompt",
            f"pairwise={prompt}",
            "--dry-run",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "judge version: openai:m@http://127.0.0.1:9/v1" in r.output
    r = runner.invoke(
        app,
        ["judge", path, "-j", "openai:m@http://127.0.0.1:9/v1", "-j", "openai:n", "--name", "x"],
    )
    assert r.exit_code == 2 and "give one -j" in r.output


def test_bundled_templates_pass_their_own_check() -> None:
    from medjudge.judging.protocol.templates import PLACEHOLDERS, check_placeholders, load

    for task in PLACEHOLDERS:
        check_placeholders(load(task), task, task)


def test_a_panel_is_recomputed_when_one_member_is_re_run(tmp_path: Path) -> None:
    """a panel used to stay stale after one of its members was re-run on its own."""
    from .support.fakellm import FakeRequest, Reply

    study = judged_study(tmp_path, n=2)
    broken = {"on": True}
    consistent = routing(pairwise_responder(prefer_marked("GOOD")))

    def respond(req: FakeRequest) -> Reply:
        # the OpenAI-side judge cannot answer about item 0 while "broken"
        if broken["on"] and "/chat/completions" in req.path and "GOOD answer 0" in req.prompt_text:
            return Reply("Sorry, no JSON today.")
        return consistent(req)

    with FakeLLMServer(respond) as server:
        x, y = judge_for(server, samples=1), judge_for(server, "anthropic", samples=1)
        first = run(study, [x, y])
        panel = first.versions[-1]
        assert panel.startswith("panel:")
        before = latest_verdicts(study, panel)
        assert list(before.values()).count(None) == 6  # item 0: a member's verdict was missing
        assert list(before.values()).count("A") == 6
        broken["on"] = False
        again = run(study, [x], retry_failed=True)  # one member alone
    assert panel in again.versions
    after = latest_verdicts(study, panel)
    assert len(after) == 12 and set(after.values()) == {"A"}
    trail = study.conn.execute(
        "SELECT trail FROM verdicts v JOIN raters r ON r.id = v.rater_id WHERE r.name = ? "
        "ORDER BY v.id DESC LIMIT 1",
        (panel,),
    ).fetchone()[0]
    assert set(json.loads(trail)["members"]) == {x.rater, y.rater}
    (stored,) = [v for v in list_versions(study) if v.is_panel]
    assert stored.members == (x.rater, y.rater) and stored.params == {"rule": "conservative"}


def test_status_lists_versions_and_export_names_the_version_on_every_row(tmp_path: Path) -> None:
    import csv
    import io

    from typer.testing import CliRunner

    from medjudge.cli import app

    study = judged_study(tmp_path, n=2)
    with FakeLLMServer(FLIPPED_FIRST) as server:
        run(study, [judge_for(server, samples=1)])
        run(study, [judge_for(server, samples=3)])
    first, second = list_versions(study)
    path = str(study.path)
    study.close()
    runner = CliRunner()
    r = runner.invoke(app, ["status", path])
    assert r.exit_code == 0, r.output
    assert f"  {first.name}: 12 verdicts, 0 missing" in r.output
    assert (
        f"    version {some(first.key)[:6]}: {first.spec}; 1 samples, temperature 0.7" in r.output
    )
    assert f"  {second.name}: 12 verdicts, 0 missing" in r.output
    assert f"    version {some(second.key)[:6]}: {second.spec}; 3 samples" in r.output
    assert (
        "templates match=match_v1, nli=nli_v1, pairwise=pairwise_v1, rating=rating_v1" in r.output
    )
    r = runner.invoke(app, ["status", path, "--json"])
    judges = {j["name"]: j for j in json.loads(r.output)["judges"]}
    assert judges[second.name]["version"]["key"] == second.key
    assert judges[second.name]["version"]["params"]["samples"] == 3
    r = runner.invoke(app, ["export", path, "verdicts", "--format", "csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(r.output)))
    assert len(rows) == 24
    assert {(row["judge"], row["version"]) for row in rows} == {
        (first.name, first.key),
        (second.name, second.key),
    }
    assert {json.loads(row["judge_params"])["samples"] for row in rows} == {1, 3}
