"""Every item kind on every surface.

For each kind in the registry, one study is built the way a team builds it: items imported
with gold values and an imported (external) judge's labels; three reviewers' labels with
disagreements, notes and flags; a judge version run against the fake OpenAI-compatible server;
a final label recorded on the command line. On it: the review app (label with the kind's keys,
reveal, ``E`` change, undo refused on a revealed item), the adjudication app (a final label with
the kind's keys and a rationale), ``report`` in every format, every ``export``, ``status`` and
``agreement`` on the wide export, equal to the report.

Nothing here names a kind: the test iterates over ``medjudge.kinds.KINDS`` and asks each kind
for its keys and values, so a new kind is covered once it has a row in ``support/kind_rows``.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from medjudge import kinds
from medjudge.cli import app as cli_app
from medjudge.store.frames import shown_order
from medjudge.store.items import get_item, list_items
from medjudge.store.study import Study
from medjudge.tui.app import make_app
from medjudge.tui.review.screen import ReviewScreen

from .support.fakellm import FakeLLMServer
from .support.kind_matrix import (
    N_ITEMS,
    REVIEWERS,
    build,
    cli,
    db_rows,
    first_key,
    foreign_words,
    values_of,
)
from .support.kind_rows import ROWS
from .support.tui import past_guidelines, run_async, screen_text

KIND_NAMES = list(kinds.NAMES)


def test_every_kind_has_a_row() -> None:
    assert set(ROWS) == set(kinds.NAMES)


@pytest.fixture(scope="module")
def server() -> Any:
    with FakeLLMServer() as s:
        yield s


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory, server: FakeLLMServer) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("matrix")
    return {name: build(tmp, kinds.get(name), server) for name in KIND_NAMES}


@pytest.mark.parametrize("name", KIND_NAMES)
def test_the_study_has_two_judge_versions_and_every_reviewer(
    studies: dict[str, Path], name: str
) -> None:
    db = studies[name]
    raters = dict(db_rows(db, "SELECT name, kind FROM raters"))
    assert {r for r, k in raters.items() if k == "human"} >= set(REVIEWERS)
    judges = {r for r, k in raters.items() if k == "judge"}
    assert "ext-judge" in judges and any(j.startswith("openai:fake@") for j in judges), judges
    (verdicts,) = db_rows(db, "SELECT count(*) FROM verdicts WHERE status = 'ok'")[0:1]
    assert verdicts[0] > 0


@pytest.mark.parametrize("name", KIND_NAMES)
def test_cli_adjudicate_records_a_final_label(studies: dict[str, Path], name: str) -> None:
    db = studies[name]
    study = Study.open(db)
    item = get_item(study, list_items(study)[0].id)
    unit = item.units[-1]
    crit = study.settings.criterion(unit.criterion)
    value = values_of(item, crit)[-1]
    if unit.statement_id is not None:
        number = sorted(st.position for st in item.statements).index(
            next(st.position for st in item.statements if st.id == unit.statement_id)
        )
        ref = f"{item.ext_id}/{number + 1}"
    else:
        ref = f"{item.ext_id}/{unit.criterion}"
    study.close()
    r = cli.invoke(
        cli_app,
        ["adjudicate", str(db), "--unit", ref, "--value", value, "--rationale", "settled on CLI"],
    )
    assert r.exit_code == 0, r.output
    rows = db_rows(
        db, "SELECT unit_id, value FROM adjudications WHERE rationale = 'settled on CLI'"
    )
    assert rows == [(unit.id, value)]


@pytest.mark.parametrize("fmt", ["md", "html", "json", "csv"])
@pytest.mark.parametrize("name", KIND_NAMES)
def test_report_in_every_format(
    studies: dict[str, Path], name: str, fmt: str, tmp_path: Path
) -> None:
    db = studies[name]
    out = tmp_path / f"r.{fmt}"
    r = cli.invoke(cli_app, ["report", str(db), "-f", fmt, "-o", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    study = Study.open(db)
    names = [c.name for c in study.settings.criteria_for(name)]
    study.close()
    assert any(n in text for n in names), f"no criterion of {name} in the {fmt} report"
    from medjudge.judging.report.kind_sections import of_kind

    for section in of_kind(name):
        said = {"md": section.title, "html": section.title, "csv": section.csv_section}.get(
            fmt, section.key
        )
        assert said in text, f"{name}: its section {section.key!r} is not in the {fmt} report"
        if fmt == "json":
            assert json.loads(text)[section.key], f"{name}: its {section.key!r} section is empty"


@pytest.mark.parametrize("name", KIND_NAMES)
def test_each_section_of_the_kind_in_every_report_format(
    studies: dict[str, Path], name: str
) -> None:
    """Every report section of the kind (its report facet) is in each format: the JSON key
    (not empty), the Markdown heading, the HTML section's anchor and the CSV ``section``."""
    from medjudge.judging.report.build import ReportOptions, build_report, render
    from medjudge.judging.report.kind_sections import of_kind

    with Study.open(studies[name]) as study:
        report = build_report(study, ReportOptions(n_boot=20))
    as_json = json.loads(render(report, "json"))
    md = render(report, "md").splitlines()
    html = render(report, "html")
    csv_sections = {row["section"] for row in csv.DictReader(render(report, "csv").splitlines())}
    assert of_kind(name), f"{name}: no report section"
    for s in of_kind(name):
        assert as_json.get(s.key), f"{name}: JSON {s.key!r} missing or empty"
        assert f"## {s.title}" in md, f"{name}: no Markdown heading {s.title!r}"
        assert f'<section id="{s.anchor}"><h2>{s.title}</h2>' in html, f"{name}: {s.anchor!r}"
        assert s.csv_section in csv_sections, f"{name}: no CSV section {s.csv_section!r}"


@pytest.mark.parametrize(
    "table",
    ["labels", "verdicts", "calls", "history", "adjudications", "ledger", "assignments"],
)
@pytest.mark.parametrize("name", KIND_NAMES)
def test_every_export(studies: dict[str, Path], name: str, table: str, tmp_path: Path) -> None:
    db = studies[name]
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"{table}.{fmt}"
        r = cli.invoke(cli_app, ["export", str(db), table, "-f", fmt, "-o", str(out)])
        assert r.exit_code == 0, r.output
        if fmt == "csv":  # a header at least (a table may have no rows yet)
            assert out.read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize("name", KIND_NAMES)
def test_status(studies: dict[str, Path], name: str) -> None:
    r = cli.invoke(cli_app, ["status", str(studies[name]), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["items"][name] == N_ITEMS


@pytest.mark.parametrize("name", KIND_NAMES)
def test_a_retired_item_leaves_status_and_the_report(
    studies: dict[str, Path], name: str, tmp_path: Path
) -> None:
    db = tmp_path / "copy.db"  # the module's study stays as it is
    src, dst = sqlite3.connect(studies[name]), sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    first = db_rows(db, "SELECT ext_id FROM items ORDER BY id LIMIT 1")[0][0]
    r = cli.invoke(cli_app, ["retire", str(db), first, "--reason", "matrix check"])
    assert r.exit_code == 0, r.output
    r = cli.invoke(cli_app, ["status", str(db), "--json"])
    assert json.loads(r.stdout)["items"][name] == N_ITEMS - 1
    for fmt in ("md", "html", "json", "csv"):
        r = cli.invoke(cli_app, ["report", str(db), "-f", fmt])
        assert r.exit_code == 0, r.output
        assert "matrix check" in r.stdout, fmt
        if fmt == "json":
            assert json.loads(r.stdout)["study"]["items"][name] == N_ITEMS - 1


@pytest.mark.parametrize("name", KIND_NAMES)
def test_agreement_on_the_wide_export_equals_the_report(
    studies: dict[str, Path], name: str, tmp_path: Path
) -> None:
    db = studies[name]
    wide = tmp_path / "wide.csv"
    r = cli.invoke(cli_app, ["export", str(db), "labels", "--wide", "-f", "csv", "-o", str(wide)])
    assert r.exit_code == 0, r.output
    study = Study.open(db)
    crit = next(c for c in study.settings.criteria_for(name) if not c.options)
    fixed = kinds.get(name).value_set(crit)  # None: the values seen (rankings of each item)
    declared = ["--categories", ",".join(fixed)] if fixed is not None else []
    study.close()
    # The rows of that one criterion (a label set is declared for the whole file).
    lines = wide.read_text(encoding="utf-8").splitlines(keepends=True)
    column = next(csv.reader(lines[:1])).index("criterion")
    mine = [line for line in lines[1:] if next(csv.reader([line]))[column] == crit.name]
    wide.write_text(lines[0] + "".join(mine), encoding="utf-8")
    r = cli.invoke(
        cli_app,
        ["agreement", str(wide), "-r", ",".join(REVIEWERS), "--unit", "unit", "--by", "criterion"]
        + [*declared, "--scale", crit.level, "--json"],
    )
    assert r.exit_code == 0, r.output
    ours = next(s for s in json.loads(r.stdout)["slices"] if s["slice"] == crit.name)["stats"]
    report = json.loads(cli.invoke(cli_app, ["report", str(db), "-f", "json"]).stdout)
    entry = next(c for c in report["criteria"] if c["name"] == crit.name)
    multi = next(
        c["metrics"]
        for c in entry["comparisons"]
        if c["view"] == "reviewers" and c["slice"] == "all" and c["ties"] in ("with", None)
    )
    for figure in ("krippendorff_alpha", "mean_pairwise_percent"):
        assert ours[figure]["value"] == pytest.approx(multi[figure]["value"], abs=1e-12), figure


@pytest.mark.parametrize("name", KIND_NAMES)
def test_agreement_sets_on_the_wide_export_equals_the_report(
    studies: dict[str, Path], name: str, tmp_path: Path
) -> None:
    """A multi-select criterion: per-option binary units and MASI α, file and study alike."""
    db = studies[name]
    study = Study.open(db)
    crits = [c for c in study.settings.criteria_for(name) if c.options]
    letters = sorted(
        {k for ref in list_items(study) for k in get_item(study, ref.id).data.get("options", {})}
    )
    study.close()
    if not crits:
        pytest.skip(f"{name} has no multi-select criterion")
    crit = crits[0]
    # every item of the matrix declares the same options: the file declares them once
    wide = tmp_path / "wide.csv"
    r = cli.invoke(cli_app, ["export", str(db), "labels", "--wide", "-f", "csv", "-o", str(wide)])
    assert r.exit_code == 0, r.output
    lines = wide.read_text(encoding="utf-8").splitlines(keepends=True)
    column = next(csv.reader(lines[:1])).index("criterion")
    mine = [line for line in lines[1:] if next(csv.reader([line]))[column] == crit.name]
    wide.write_text(lines[0] + "".join(mine), encoding="utf-8")
    r = cli.invoke(
        cli_app,
        ["agreement", str(wide), "-r", ",".join(REVIEWERS), "--unit", "unit", "--sets"]
        + ["--categories", ",".join(letters), "--json"],
    )
    assert r.exit_code == 0, r.output
    ours = json.loads(r.stdout)
    report = json.loads(cli.invoke(cli_app, ["report", str(db), "-f", "json"]).stdout)
    entry = next(c for c in report["criteria"] if c["name"] == crit.name)
    assert entry["categories"] == ["ticked", "not_ticked"]
    groups = {c["slice"]: c["metrics"] for c in entry["comparisons"] if c["view"] == "reviewers"}
    assert ours["masi_alpha"]["value"] == pytest.approx(groups["all"]["masi_alpha"]["value"])
    whole = next(s for s in ours["slices"] if s["slice"] == "all")["stats"]
    assert whole["krippendorff_alpha"]["value"] == pytest.approx(
        groups["all"]["krippendorff_alpha"]["value"], abs=1e-12
    )
    for letter in letters:
        mine_ = next(s for s in ours["slices"] if s["slice"] == letter)["stats"]
        theirs = groups[f"option={letter}"]
        for figure in ("krippendorff_alpha", "mean_pairwise_percent"):
            a, b = mine_[figure]["value"], theirs[figure]["value"]
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12), (letter, figure)


@pytest.mark.parametrize("name", KIND_NAMES)
@run_async
async def test_review_app_labels_reveals_changes_and_refuses_undo_of_a_revealed_label(
    studies: dict[str, Path], name: str
) -> None:
    db = studies[name]
    kind = kinds.get(name)
    app = make_app(db, reviewer="drC", poll_interval=None, assigned_only=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await past_guidelines(app, pilot, ReviewScreen)
        view = screen.view
        assert view is not None and view.item.ext_id == ROWS[name](N_ITEMS - 1)["id"]
        item_id = view.item.id
        for _ in range(len(view.rows) + 2):
            if screen.session.complete():
                break
            row = view.rows[screen.cursor]
            await pilot.press(*first_key(kind, row.criterion, len(view.item.slots)))
            await pilot.pause()
        assert screen.session.complete()
        assert screen.session.revealed()
        # After the reveal: E, then another value of the row under the cursor.
        row = view.rows[screen.cursor]
        await pilot.press("E")
        keys = kind.value_keys(row.criterion)
        before = view.mine(row.unit.id)
        order = shown_order(view.item)
        if row.criterion.options:
            await pilot.press("b", "enter")
        elif kind.composes:  # the keys in reverse: another complete value
            n = len(view.item.slots)
            pressed = [k.key for k in reversed(keys[:n])]
            assert kind.to_file_frame("".join(pressed), order) != before
            await pilot.press(*pressed[: n - 1])
        else:
            other = next(k for k in keys if kind.to_file_frame(k.value, order) != before)
            await pilot.press(other.key)
        await pilot.pause()
        assert "changed after the reveal" in screen_text(app)
        changed = screen.session.labels.get(row.unit.id)
        await pilot.press("u")  # an undo on a done, revealed item is refused, with a hint
        await pilot.pause()
        assert any("E changes a label" in str(n.message) for n in app._notifications)
        screen.session.reload_labels()
        assert screen.session.labels.get(row.unit.id) == changed != before
    history = db_rows(
        db,
        "SELECT h.after_reveal, h.action FROM label_history h JOIN units u ON u.id = h.unit_id "
        "JOIN raters r ON r.id = h.rater_id WHERE u.item_id = ? AND r.name = 'drC' ORDER BY h.id",
        item_id,
    )
    assert (1, "label") in history and all(action != "undo" for _, action in history), history


@pytest.mark.parametrize("name", KIND_NAMES)
@run_async
async def test_adjudication_app_records_a_final_label_with_the_kinds_keys(
    studies: dict[str, Path], name: str
) -> None:
    from medjudge.tui.adjudication.detail import AdjudicationDetailScreen
    from medjudge.tui.adjudication.screen import AdjudicationScreen

    db = studies[name]
    kind = kinds.get(name)
    app = make_app(db, poll_interval=None, start="adjudicate")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        queue = app.screen
        assert isinstance(queue, AdjudicationScreen)
        assert queue.rows, f"no {name} disagreement in the queue"
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, AdjudicationDetailScreen)
        crit = detail.criterion
        assert crit is not None
        assert detail.item is not None
        keys = first_key(kind, crit, len(detail.item.slots))
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.press(*"settled in the app", "enter")
        await pilot.pause()
        unit_id = detail.entry.unit_id
    rows = db_rows(db, "SELECT unit_id FROM adjudications WHERE rationale = 'settled in the app'")
    assert rows == [(unit_id,)]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.parametrize("name", KIND_NAMES)
@run_async
async def test_the_review_screen_shows_every_pane_the_kind_declares_in_its_own_words(
    studies: dict[str, Path], name: str, size: tuple[int, int]
) -> None:
    from medjudge.kinds.review_facet import facet

    db = studies[name]
    kind = kinds.get(name)
    app = make_app(db, reviewer="drC", poll_interval=None, assigned_only=False)
    async with app.run_test(size=size) as pilot:
        screen = await past_guidelines(app, pilot, ReviewScreen)
        view = screen.view
        assert view is not None
        item = view.item
        shown = facet(name)
        declared = [p for p in [shown.question(item)] if p is not None]
        declared += shown.answers(item, screen.session.settings.decline_phrases)
        text = screen_text(app)
        for pane in declared:
            assert pane.title in text, f"{name} at {size}: pane {pane.title!r} not on screen"
            first = pane.text.plain.strip().splitlines()[0][:16]
            assert first in text, f"{name} at {size}: the text of {pane.title!r} is not shown"
        # one label, so its toast and status are on screen too
        row = view.rows[screen.cursor]
        await pilot.press(*first_key(kind, row.criterion, len(view.item.slots)))
        await pilot.pause()
        said = screen_text(app) + " ".join(str(n.message) for n in app._notifications)
        for word in foreign_words(kind):
            assert word not in said, f"{name} at {size}: the review screen says {word!r}"


@pytest.mark.parametrize("name", KIND_NAMES)
def test_the_adjudication_queue_speaks_the_kinds_words(studies: dict[str, Path], name: str) -> None:
    r = cli.invoke(cli_app, ["adjudicate", str(studies[name]), "--list"])
    assert r.exit_code == 0, r.output
    for word in foreign_words(kinds.get(name)):
        assert word not in r.output, f"{name}: the adjudication queue says {word!r}"
