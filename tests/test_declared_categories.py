"""A study declares each criterion's label set and order (``settings --categories``): the
only labels reviewers and imports may give, and the categories every agreement figure counts.
Pairwise criteria no longer always count ``neither``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.analysis.live import LiveAgreement
from medjudge.store.labels import LabelError, set_label
from medjudge.store.study import Study

from .support.kind_rows import write_jsonl
from .support.reference import Reference, needs
from .support.reference_calls import irrcac
from .support.studies import small_study

RUN = CliRunner()
CATS3 = ["A", "B", "tie"]
CATS4 = ["A", "B", "tie", "neither"]


def three_option_study(path: Path, n: int = 40) -> list[list[str]]:
    """Three reviewers label correctness (a benefit criterion) with A, B or tie only."""
    s = small_study(path, pairwise=n, statements=0)
    rng = random.Random(5)
    units = [u for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'correctness'")]
    rows = []
    for u in units:
        truth = rng.choice(CATS3)
        row = [truth if rng.random() < 0.7 else rng.choice(CATS3) for _ in range(3)]
        for rater, value in zip(("ann", "bob", "cy"), row, strict=True):
            set_label(s, u, rater, value)
        rows.append(row)
    s.close()
    return rows


def report_json(path: Path) -> dict[str, Any]:
    r = RUN.invoke(app, ["report", str(path), "-f", "json", "--n-boot", "200"])
    assert r.exit_code == 0, r.output
    result: dict[str, Any] = json.loads(r.stdout)
    return result


def section(report: dict[str, Any], name: str) -> dict[str, Any]:
    (c,) = [c for c in report["criteria"] if c["name"] == name]
    result: dict[str, Any] = c
    return result


def figures(c: dict[str, Any], view: str, a: str, b: str | None = None) -> dict[str, Any]:
    (rec,) = [
        r
        for r in c["comparisons"]
        if r["view"] == view
        and r["rater_a"] == a
        and (b is None or r["rater_b"] == b)
        and r["slice"] == "all"
        and r["ties"] in (None, "with")
    ]
    result: dict[str, Any] = rec["metrics"]
    return result


def cac(reference: Reference, rows: list[list[str]], cats: list[str], method: str) -> float:
    """irrCAC's coefficient ``method`` of the units × raters ``rows``."""
    needs("pandas", "irrCAC")
    columns = [f"r{i}" for i in range(len(rows[0]))]
    return reference(irrcac, rows, cats, method, columns)["coefficient_value"]


def test_pairwise_benefit_criterion_counts_three_categories_unless_neither_is_declared(
    tmp_path: Path,
    reference: Reference,
) -> None:
    path = tmp_path / "three.db"
    rows = three_option_study(path)
    pairs = [[r[0], r[1]] for r in rows]

    c = section(report_json(path), "correctness")
    assert c["categories"] == CATS3 and c["categories_declared"] is False
    assert c["categories_extra"] == []
    assert "Categories (q = 3): A, B, tie (the default" in c["categories_note"]
    # Randolph's κ of the three reviewers = irrCAC's Brennan-Prediger with q = 3
    randolph3 = figures(c, "reviewers", "3 reviewers")["randolph_kappa"]["value"]
    assert randolph3 == pytest.approx(cac(reference, rows, CATS3, "bp"))
    two = figures(c, "human_human", "ann", "bob")
    assert two["gwet_ac1"]["value"] == pytest.approx(cac(reference, pairs, CATS3, "gwet"))
    assert two["bennett_s"]["value"] == pytest.approx(cac(reference, pairs, CATS3, "bp"))

    r = RUN.invoke(app, ["settings", str(path), "--categories", "correctness=A,B,tie,neither"])
    assert r.exit_code == 0, r.output
    assert "categories (declared): A, B, tie, neither" in r.stdout
    c = section(report_json(path), "correctness")
    assert c["categories"] == CATS4 and c["categories_declared"] is True
    randolph4 = figures(c, "reviewers", "3 reviewers")["randolph_kappa"]["value"]
    assert randolph4 == pytest.approx(cac(reference, rows, CATS4, "bp"))
    assert randolph4 > randolph3 + 0.01, "a fourth, unused category inflates the figure"
    two = figures(c, "human_human", "ann", "bob")
    assert two["gwet_ac1"]["value"] == pytest.approx(cac(reference, pairs, CATS4, "gwet"))
    assert two["bennett_s"]["value"] == pytest.approx(cac(reference, pairs, CATS4, "bp"))

    # the same categories in the Markdown, HTML and CSV reports, the app and `agreement`
    for fmt in ("md", "html"):
        out = RUN.invoke(app, ["report", str(path), "-f", fmt, "--n-boot", "200"]).stdout
        assert "Categories (q = 4): A, B, tie, neither (declared with settings" in out, fmt
    csv_out = RUN.invoke(app, ["report", str(path), "-f", "csv", "--n-boot", "200"]).stdout
    assert "categories,correctness,all,,,declared,,A|B|tie|neither,,,4," in csv_out
    s = Study.open(path)
    try:
        live = LiveAgreement(s)
        assert live.pair("ann", "bob", "correctness").bennett_s.value == pytest.approx(
            two["bennett_s"]["value"]
        )
    finally:
        s.close()
    wide = tmp_path / "wide.csv"
    wide.write_text("ann,bob\n" + "".join(f"{a},{b}\n" for a, b in pairs))
    r = RUN.invoke(
        app,
        ["agreement", str(wide), "-r", "ann,bob", "--study", str(path), "--criterion",
         "correctness", "--json"],
    )  # fmt: skip
    got = json.loads(r.stdout)
    assert got["categories"] == CATS4
    assert "declared categories of correctness" in got["categories_source"]
    assert got["slices"][0]["stats"]["bennett_s"]["value"] == pytest.approx(
        two["bennett_s"]["value"]
    )


def test_risk_criteria_count_neither_by_default_and_a_used_neither_always_counts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "risk.db"
    s = small_study(path, pairwise=4, statements=0)
    for (u,) in s.conn.execute("SELECT id FROM units WHERE criterion = 'harmfulness'").fetchall():
        set_label(s, u, "ann", "A")
        set_label(s, u, "bob", "B")
    (u,) = s.conn.execute("SELECT id FROM units WHERE criterion = 'correctness' LIMIT 1").fetchone()
    set_label(s, u, "ann", "neither")  # allowed: correctness declares no set
    set_label(s, u, "bob", "A")
    s.close()
    report = report_json(path)
    assert section(report, "harmfulness")["categories"] == CATS4
    c = section(report, "correctness")
    assert c["categories"] == CATS4 and c["categories_extra"] == ["neither"]
    assert (
        "and neither, outside that set but given by raters, so counted too"
        in (c["categories_note"])
    )


def test_settings_refuse_a_set_that_does_not_fit(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    s = small_study(path, pairwise=2, statements=0)
    (u,) = s.conn.execute("SELECT id FROM units WHERE criterion = 'correctness' LIMIT 1").fetchone()
    set_label(s, u, "ann", "neither")
    s.close()
    for spec, why in (
        ("correctness=A,B,maybe", "'maybe' is not one of its labels"),
        ("completeness=A,B", "sets of options"),
        ("nosuch=A,B", "no criterion 'nosuch'"),
        ("correctness=A", "two or more distinct labels"),
        ("correctness=A,B,tie", "already holds correctness labels outside that set: 'neither' (1)"),
    ):
        r = RUN.invoke(app, ["settings", str(path), "--categories", spec])
        assert r.exit_code != 0 and why in r.output, (spec, r.output)
    r = RUN.invoke(app, ["settings", str(path), "--categories", "correctness=response_b,A,tie,n"])
    assert r.exit_code != 0  # "n" is not a spelling of neither
    r = RUN.invoke(
        app, ["settings", str(path), "--categories", "correctness=response_b,A,tie,neither"]
    )
    assert r.exit_code == 0 and "categories (declared): B, A, tie, neither" in r.stdout
    r = RUN.invoke(app, ["settings", str(path), "--categories", "correctness="])
    assert r.exit_code == 0 and "categories (default): A, B, tie" in r.stdout


def test_labels_outside_the_declared_set_are_refused_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "imp.db"
    s = small_study(path, pairwise=1, statements=0)
    s.close()
    RUN.invoke(app, ["settings", str(path), "--categories", "correctness=A,B,tie"])
    rows = [
        {"id": "n1", "question": "Q?", "answer_a": "x", "answer_b": "y", "source_a": "m",
         "source_b": "n", "labels": [{"rater": "ann", "criterion": "correctness", "value": "A"}]},
        {"id": "n2", "question": "Q2?", "answer_a": "x", "answer_b": "y", "source_a": "m",
         "source_b": "n",
         "labels": [{"rater": "ann", "criterion": "correctness", "value": "neither"}]},
    ]  # fmt: skip
    file = write_jsonl(tmp_path / "new.jsonl", rows)
    before = path.read_bytes()
    r = RUN.invoke(app, ["import", str(path), str(file), "--kind", "pairwise"])
    assert r.exit_code == 1
    assert "new.jsonl, line 2, field 'labels[0].value'" in r.output
    assert "outside the label set the study declares for correctness (A, B, tie" in r.output
    assert path.read_bytes() == before
    s = Study.open(path)
    try:
        (u,) = s.conn.execute(
            "SELECT id FROM units WHERE criterion = 'correctness' LIMIT 1"
        ).fetchone()
        with pytest.raises(LabelError, match="not one of A, B, tie"):
            set_label(s, u, "ann", "neither")  # the review app's write refuses it too
    finally:
        s.close()
