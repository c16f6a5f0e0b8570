"""`export STUDY labels --wide` writes exactly what `medjudge agreement` reads, and the figures
`agreement` computes on it equal the study report's."""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.studies import small_study

cli = CliRunner()
REVIEWERS = ("ann", "bob", "cy")


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    """12 pairwise items, three reviewers who each skip about one unit in ten."""
    path = tmp_path / "wide.db"
    s = small_study(path, pairwise=12, statements=2)
    rng = random.Random(7)
    for (unit_id,) in s.conn.execute("SELECT id FROM units ORDER BY id").fetchall():
        for reviewer in REVIEWERS:
            if rng.random() < 0.9:
                kind = s.conn.execute(
                    "SELECT i.kind FROM units u JOIN items i ON i.id = u.item_id WHERE u.id = ?",
                    (unit_id,),
                ).fetchone()[0]
                values = ["A", "B", "tie"] if kind == "pairwise" else ["entailed", "contradicted"]
                set_label(s, unit_id, reviewer, rng.choice(values))
    s.close()
    return path


def _export(study: Path, fmt: str, out: Path) -> None:
    r = cli.invoke(app, ["export", str(study), "labels", "--wide", "-f", fmt, "-o", str(out)])
    assert r.exit_code == 0, r.output


def test_wide_rows_hold_each_reviewers_current_label(labelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "wide.csv"
    _export(labelled, "csv", out)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["unit", "item", "kind", "criterion", "statement", *REVIEWERS]
    long = cli.invoke(app, ["export", str(labelled), "labels"])
    expected: dict[str, dict[str, str]] = {}
    for line in long.stdout.splitlines():
        rec = json.loads(line)
        unit = f"{rec['item']}/{rec['criterion']}" + (
            f"/{rec['statement']}" if rec["statement"] is not None else ""
        )
        expected.setdefault(unit, {})[rec["rater"]] = rec["value"]
    got = {row["unit"]: {r: row[r] for r in REVIEWERS if row[r]} for row in rows}
    assert got == expected
    assert len({row["unit"] for row in rows}) == len(rows)


def test_jsonl_and_csv_carry_the_same_cells(labelled: Path, tmp_path: Path) -> None:
    _export(labelled, "csv", tmp_path / "w.csv")
    _export(labelled, "jsonl", tmp_path / "w.jsonl")
    from_csv = [
        {k: (v or None) for k, v in row.items() if k in REVIEWERS}
        for row in csv.DictReader((tmp_path / "w.csv").open(encoding="utf-8"))
    ]
    from_jsonl = [
        {k: v for k, v in json.loads(line).items() if k in REVIEWERS}
        for line in (tmp_path / "w.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert from_csv == from_jsonl


def test_agreement_on_the_wide_export_equals_the_report(labelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "wide.csv"
    _export(labelled, "csv", out)
    r = cli.invoke(
        app,
        ["agreement", str(out), "-r", ",".join(REVIEWERS), "--unit", "unit", "--by", "criterion"],
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    r = cli.invoke(
        app,
        ["agreement", str(out), "-r", ",".join(REVIEWERS), "--unit", "unit", "--by", "criterion"]
        + ["--json"],
    )
    slices = {s["slice"]: s["stats"] for s in json.loads(r.stdout)["slices"]}
    report = json.loads(cli.invoke(app, ["report", str(labelled), "-f", "json"]).stdout)
    checked = 0
    for crit in report["criteria"]:
        views = {
            (c["view"], c.get("rater_a"), c.get("rater_b")): c["metrics"]
            for c in crit["comparisons"]
            if c["ties"] in ("with", None) and c["slice"] == "all"
        }
        ours = slices[crit["name"]]
        multi = views.get(("reviewers", "3 reviewers", None))
        assert multi is not None, (crit["name"], sorted(views, key=str))
        for name in ("fleiss", "krippendorff_alpha"):
            assert ours[name]["value"] == pytest.approx(multi[name]["value"]), (crit["name"], name)
            assert ours[name]["n"] == multi[name]["n"]
        for pair in ours["pairwise"]:
            theirs = views[("human_human", pair["rater_a"], pair["rater_b"])]
            for name in ("percent", "cohen"):
                assert pair[name]["value"] == pytest.approx(theirs[name]["value"]), (
                    crit["name"],
                    pair["rater_a"],
                    pair["rater_b"],
                    name,
                )
            checked += 1
    assert checked == 3 * len(report["criteria"])


def test_wide_applies_to_labels_only(labelled: Path) -> None:
    r = cli.invoke(app, ["export", str(labelled), "verdicts", "--wide"])
    assert r.exit_code == 2 and "labels table only" in r.output


def test_chance_agreement_is_printed_beside_cohens_kappa(labelled: Path) -> None:
    """pₑ beside κ in the Markdown report's two-rater tables, equal to the JSON's chance."""
    md = cli.invoke(app, ["report", str(labelled), "-f", "md"]).stdout
    header = next(line for line in md.splitlines() if "| Cohen's κ |" in line)
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[cols.index("Cohen's κ") + 1] == "Chance (pₑ)"
    report = json.loads(cli.invoke(app, ["report", str(labelled), "-f", "json"]).stdout)
    rec = next(
        c
        for c in report["criteria"][0]["comparisons"]
        if c["view"] == "human_human" and c["ties"] == "with" and c["slice"] == "all"
    )
    assert f"| {rec['chance']:.3f} |" in md
    html = cli.invoke(app, ["report", str(labelled), "-f", "html"]).stdout
    assert "Chance (pₑ)" in html


def test_chance_agreement_beside_every_kappa_in_the_summary_and_fleiss(labelled: Path) -> None:
    """the summary's κ cells and Fleiss' κ carry their pₑ in md and html; Fleiss' pₑ is
    Σ_j p_j² over the units every reviewer labelled (computed here from the JSON's labels)."""
    report = json.loads(cli.invoke(app, ["report", str(labelled), "-f", "json"]).stdout)
    crit = report["criteria"][0]
    multi = next(c for c in crit["comparisons"] if c["view"] == "reviewers")
    with Study.open(labelled) as s:
        rows: dict[int, list[str]] = {}
        for unit_id, value in s.conn.execute(
            "SELECT l.unit_id, l.value FROM labels l JOIN units u ON u.id = l.unit_id "
            "WHERE u.criterion = ?",
            (crit["name"],),
        ):
            rows.setdefault(unit_id, []).append(value)
    complete = [r for r in rows.values() if len(r) == len(REVIEWERS)]
    counts = Counter(v for r in complete for v in r)
    total = sum(counts.values())
    expected = sum((c / total) ** 2 for c in counts.values())
    assert multi["chance"] == pytest.approx(expected)
    md = cli.invoke(app, ["report", str(labelled), "-f", "md"]).stdout
    summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    line = next(row for row in summary.splitlines() if row.startswith(f"| {crit['name']} |"))
    assert f"(Fleiss, pₑ {expected:.2f})" in line
    fleiss_row = next(row for row in md.splitlines() if row.startswith("| Fleiss' κ |"))
    assert f"(pₑ {expected:.2f})" in fleiss_row
    html = cli.invoke(app, ["report", str(labelled), "-f", "html"]).stdout
    assert f"pₑ {expected:.2f}" in html
