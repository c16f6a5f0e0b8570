"""Defects a statistician found in the agreement figures, each against its reference.

1. Gwet's AC1 and Bennett's S (Brennan–Prediger) of three or more raters, as irrCAC's
   ``CAC.gwet()`` and ``CAC.bp()``: value, SE and interval, with and without missing labels.
2. "Without ties": S and AC1 counted tie as a category (q = 3) on units that cannot have one.
3. Numeric labels: "1.0" and "1" in a CSV were two labels.
4. Dawid–Skene gave a class that no label uses a prior share and a confusion row and column.
5. Reasons: "every unit agrees" for a κ of 0 at 80% agreement; "samples disagreed 0/3" for a
   judge that drew one sample per order.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from medjudge.cli import app
from medjudge.judging.stats.agreement.core import multi_rater_stats, two_rater_stats
from medjudge.judging.stats.dawid_skene import dawid_skene

from .support.checks import some
from .support.irrcac_intervals import irrcac_interval
from .support.reference import Reference, missing
from .support.reference_calls import cohen_kappa

TOL = 1e-9
KQA = ["entailed", "contradicted", "neutral"]
runner = CliRunner()

_absent = missing("pandas", "irrCAC")
needs_irrcac = pytest.mark.skipif(
    _absent is not None, reason=f"{_absent} is not installed (a reference library)"
)


def kqa_labels(seed: int, n: int, raters: int, missing: float) -> list[list[str | None]]:
    """K-QA-like statement labels: most statements entailed, physicians agreeing about 75% of
    the time, a share of labels missing (units with no label at all left out, as irrCAC
    drops them)."""
    rng = random.Random(seed)
    rows: list[list[str | None]] = []
    while len(rows) < n:
        truth = rng.choices(KQA, weights=[0.6, 0.15, 0.25])[0]
        row = [
            None if rng.random() < missing else (truth if rng.random() < 0.75 else rng.choice(KQA))
            for _ in range(raters)
        ]
        if any(x is not None for x in row):
            rows.append(row)
    return rows


def _frame(rows: list[list[str | None]]) -> list[list[object]]:
    return [[np.nan if x is None else x for x in row] for row in rows]


# --------------------------------------------------------------- 1. AC1 and S, many raters


@needs_irrcac
@pytest.mark.parametrize(
    ("seed", "n", "raters", "missing"),
    [(1, 40, 3, 0.0), (2, 120, 4, 0.2), (3, 200, 5, 0.4), (4, 25, 6, 0.3)],
)
def test_ac1_and_s_of_many_raters_equal_irrcac(
    seed: int, n: int, raters: int, missing: float, reference: Reference
) -> None:
    rows = kqa_labels(seed, n, raters, missing)
    for cats in (KQA, [*KQA, "unclear"]):  # a declared category nobody used still counts in q
        m = multi_rater_stats(rows, categories=cats, n_boot=200)
        for mine, method in ((m.gwet_ac1_all_units, "gwet"), (m.bennett_s_all_units, "bp")):
            ref = reference(irrcac_interval, _frame(rows), cats, method)
            est = some(mine)
            assert est.value == pytest.approx(ref["value"], abs=TOL), method
            assert est.se == pytest.approx(ref["se"], abs=TOL), method
            assert (est.ci_low, est.ci_high) == pytest.approx((ref["low"], ref["high"]), abs=TOL)
            assert est.method == "student_t"
            assert est.n == sum(sum(x is not None for x in row) >= 2 for row in rows)


def test_ac1_and_s_of_many_raters_are_printed_and_serialised(tmp_path: Path) -> None:
    rows = kqa_labels(5, 60, 3, 0.1)
    path = tmp_path / "kqa.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ann", "bob", "cy"])
        w.writerows([["" if x is None else x for x in row] for row in rows])
    args = ["agreement", str(path), "-r", "ann,bob,cy", "--categories", ",".join(KQA)]
    out = json.loads(runner.invoke(app, [*args, "--json", "--n-boot", "200"]).stdout)
    stats = out["slices"][0]["stats"]
    m = multi_rater_stats(rows, categories=KQA, n_boot=200)
    assert stats["gwet_ac1_all_units"]["value"] == pytest.approx(some(m.gwet_ac1_all_units).value)
    assert stats["bennett_s_all_units"]["value"] == pytest.approx(some(m.bennett_s_all_units).value)
    assert out["intervals"]["gwet_ac1_all_units"] == "student_t"
    text = runner.invoke(app, [*args, "--n-boot", "200"]).stdout
    assert "Gwet's AC1 (all raters, as irrCAC)" in text
    assert "Bennett's S (Brennan–Prediger; all raters, as irrCAC)" in text


def test_the_report_lists_ac1_and_s_of_all_reviewers() -> None:
    from medjudge.judging.analysis.comparison_records import Compared, group_comparison
    from medjudge.judging.analysis.views import MULTI_METRICS

    rows = kqa_labels(6, 30, 3, 0.1)  # the report's raters are named
    m = multi_rater_stats(rows, ["ann", "bob", "cy"], categories=KQA, n_boot=200)
    compared = Compared(
        view="reviewers", criterion="c", rater_a="3 reviewers", rater_b=None, ties=None
    )
    record = group_comparison(m, compared)
    assert {"gwet_ac1_all_units", "bennett_s_all_units"} <= set(MULTI_METRICS)
    assert record.metrics["gwet_ac1_all_units"].method == "student_t"


# --------------------------------------------------------------------- 2. without ties


def _pairwise_csv(path: Path) -> list[tuple[str, str]]:
    """The issue's example: 101 untied units, 95 agreeing (p_o = 0.9406), and 12 with a tie."""
    rng = random.Random(7)
    pairs = [(x, x) for x in rng.choices(["A", "B"], k=95)]
    pairs += [("A", "B")] * 3 + [("B", "A")] * 3
    pairs += [("tie", "tie")] * 6 + [("tie", "A")] * 3 + [("B", "tie")] * 3
    rng.shuffle(pairs)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ann", "bob"])
        w.writerows(pairs)
    return pairs


@needs_irrcac
def test_s_and_ac1_without_ties_count_no_tie_category(tmp_path: Path, reference: Reference) -> None:
    pairs = _pairwise_csv(tmp_path / "p.csv")
    args = ["agreement", str(tmp_path / "p.csv"), "-r", "ann,bob", "--json", "--n-boot", "200"]
    out = json.loads(runner.invoke(app, [*args, "--categories", "A,B,tie", "--tie", "tie"]).stdout)
    every, untied = (s["stats"] for s in out["slices"])
    assert every["categories"] == ["A", "B", "tie"] and untied["categories"] == ["A", "B"]
    p_o = 95 / 101
    assert untied["bennett_s"]["value"] == pytest.approx((p_o - 1 / 2) / (1 - 1 / 2))
    assert round(untied["bennett_s"]["value"], 3) == 0.881  # not 0.911 (q = 3)
    kept = [(a, b) for a, b in pairs if "tie" not in (a, b)]
    ref = reference(irrcac_interval, kept, ["A", "B"], "gwet")
    assert untied["gwet_ac1"]["value"] == pytest.approx(ref["value"], abs=TOL)
    assert untied["gwet_ac1"]["se"] == pytest.approx(ref["se"], abs=TOL)


def test_many_raters_without_ties_count_no_tie_category(tmp_path: Path) -> None:
    rng = random.Random(8)
    rows = []
    for _ in range(80):
        truth = rng.choice(["A", "B", "A", "tie"])
        rows.append([truth if rng.random() < 0.8 else rng.choice(["A", "B", "tie"]) for _ in "abc"])
    path = tmp_path / "m.csv"
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([["a", "b", "c"], *rows])
    args = ["agreement", str(path), "-r", "a,b,c", "--categories", "A,B,tie", "--tie", "tie"]
    out = json.loads(runner.invoke(app, [*args, "--json", "--n-boot", "200"]).stdout)
    untied = out["slices"][1]["stats"]
    kept = [r for r in rows if "tie" not in r]
    m = multi_rater_stats(kept, categories=["A", "B"], n_boot=200)
    assert untied["categories"] == ["A", "B"]
    assert untied["bennett_s_all_units"]["value"] == pytest.approx(
        some(m.bennett_s_all_units).value
    )
    assert untied["randolph_kappa"]["value"] == pytest.approx(some(m.randolph_kappa).value)


def test_the_reports_without_ties_figures_count_no_tie_category(tmp_path: Path) -> None:
    from medjudge.judging.analysis.study_data import load_study_data
    from medjudge.judging.analysis.views import ViewOptions, criterion_comparisons
    from medjudge.store.importing.run import import_file
    from medjudge.store.items import get_item, list_items
    from medjudge.store.labels import set_label
    from medjudge.store.study import Study

    from .support.kind_rows import pairwise_row, write_jsonl

    s = Study.create(tmp_path / "v.db", actor="t")
    import_file(
        s,
        write_jsonl(tmp_path / "v.jsonl", [pairwise_row(i) for i in range(12)]),
        "pairwise",
        actor="t",
    )
    units = [get_item(s, r.id).unit_for("correctness").id for r in list_items(s)]
    ann = ["A", "A", "B", "tie", "B", "A", "A", "B", "B", "A", "tie", "A"]
    bob = ["A", "B", "B", "tie", "B", "A", "A", "B", "A", "A", "A", "A"]
    for u, a, b in zip(units, ann, bob, strict=True):
        set_label(s, u, "ann", a)
        set_label(s, u, "bob", b)
    recs = criterion_comparisons(load_study_data(s), "correctness", ViewOptions(n_boot=200))
    s.close()
    (untied,) = [
        r for r in recs if r.view == "human_human" and r.ties == "without" and r.slice == "all"
    ]
    assert untied.confusion is not None and "tie" not in untied.confusion.categories
    kept = [(a, b) for a, b in zip(ann, bob, strict=True) if "tie" not in (a, b)]
    p_o = sum(a == b for a, b in kept) / len(kept)
    q = len(untied.confusion.categories)
    assert untied.metrics["bennett_s"].value == pytest.approx((p_o - 1 / q) / (1 - 1 / q))


# --------------------------------------------------------------------- 3. numeric labels


def test_numeric_labels_in_a_csv_compare_as_numbers(tmp_path: Path, reference: Reference) -> None:
    rng = random.Random(9)
    a = [rng.randrange(1, 4) for _ in range(60)]
    b = [x if rng.random() < 0.7 else rng.randrange(1, 4) for x in a]
    path = tmp_path / "n.csv"
    spell = ["{}", "{}.0", " {} ", "{}.00"]
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ann", "bob"])
        w.writerows(
            [
                [spell[i % 4].format(x), spell[(i + 1) % 4].format(y)]
                for i, (x, y) in enumerate(zip(a, b, strict=True))
            ]
        )
    out = json.loads(
        runner.invoke(
            app, ["agreement", str(path), "-r", "ann,bob", "--json", "--n-boot", "200"]
        ).stdout
    )
    stats = out["slices"][0]["stats"]
    assert stats["categories"] == [1, 2, 3]
    assert stats["cohen"]["value"] == pytest.approx(reference(cohen_kappa, a, b), abs=TOL)
    # declared categories and --tie read the same way
    declared = ["--categories", "1,2.0,3", "--tie", "2.0"]
    cmd = ["agreement", str(path), "-r", "ann,bob", "--json", "--n-boot", "200", *declared]
    out = json.loads(runner.invoke(app, cmd).stdout)
    assert out["tie"] == 2 and out["slices"][1]["stats"]["categories"] == [1, 3]


def test_a_categorical_column_keeps_its_labels_as_written(tmp_path: Path) -> None:
    from medjudge.judging.stats.label_file import numeric_labels, read_label_table

    path = tmp_path / "c.csv"
    path.write_text("ann,bob\n1,1.0\n1.0,1.0\nA,A\n2,2\n", encoding="utf-8")
    table, _ = numeric_labels(read_label_table(path, ["ann", "bob"]))
    assert table.labels() == {"1", "1.0", "A", "2"}  # "A" makes it categorical: no merging
    path.write_text('{"ann": 1, "bob": "1.0"}\n{"ann": 2.0, "bob": " 2"}\n', encoding="utf-8")
    jsonl = path.with_suffix(".jsonl")
    path.rename(jsonl)
    table, _ = numeric_labels(read_label_table(jsonl, ["ann", "bob"]))
    assert table.columns == [[1, 2], [1, 2]]


# ---------------------------------------------------------------------- 4. Dawid–Skene


def test_dawid_skene_has_no_class_no_label_uses() -> None:
    rng = random.Random(10)
    labels = []
    for u in range(30):
        truth = rng.choice(["A", "B"])
        for r in ("x", "y", "z"):
            labels.append((u, r, truth if rng.random() < 0.8 else rng.choice(["A", "B"])))
    ds = dawid_skene(labels, ("A", "B", "tie", "neither"))
    assert ds.categories == ("A", "B") and ds.unused == ("tie", "neither")
    assert ds.prior.shape == (2,) and ds.confusion.shape == (3, 2, 2)
    assert np.asarray(ds.confusion_of("x")).shape == (2, 2)
    assert "tie, neither" in ds.describe()


# -------------------------------------------------------------------------- 5. reasons


def test_a_kappa_of_0_with_a_constant_rater_names_its_cause() -> None:
    from medjudge.judging.stats.estimates import ALL_AGREE, CONSTANT_RATER

    a = ["A"] * 8 + ["B"] * 2  # 80% agreement with a rater who always says A
    s = two_rater_stats(a, ["A"] * 10, categories=["A", "B"])
    assert some(s.percent).value == pytest.approx(0.8)
    assert s.cohen.value == pytest.approx(0.0) and s.cohen.ci_low is None
    assert s.cohen.reason == CONSTANT_RATER
    assert "every unit agrees" not in some(s.cohen.reason)
    same = two_rater_stats(["A", "B", "A", "B"], ["A", "B", "A", "B"])
    assert same.cohen.reason == ALL_AGREE
    m = multi_rater_stats([[x, x, x] for x in ["A", "B"] * 5], categories=["A", "B"], n_boot=200)
    assert m.fleiss.reason == ALL_AGREE
    assert some(m.gwet_ac1_all_units).reason == ALL_AGREE


def test_one_sample_per_order_is_not_measured(tmp_path: Path) -> None:
    from medjudge.judging.analysis.consistency import ONE_SAMPLE, judge_consistency
    from medjudge.judging.analysis.study_data import load_study_data
    from medjudge.store.importing.run import import_file
    from medjudge.store.items import get_item, list_items
    from medjudge.store.judgments import NewVerdict, write_verdicts
    from medjudge.store.study import Study

    from .support.kind_rows import pairwise_row, write_jsonl
    from .support.trails import CONFIG, JUDGE, pairwise_trail

    s = Study.create(tmp_path / "one.db", actor="t")
    import_file(
        s,
        write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(3)]),
        "pairwise",
        actor="t",
    )
    units = [get_item(s, r.id).unit_for("correctness").id for r in list_items(s)]
    verdicts = []
    for u, (ab, ba) in zip(units, [("A", "A"), ("B", "A"), ("tie", "tie")], strict=True):
        value, trail = pairwise_trail(s, "correctness", [ab], [ba])
        verdicts.append(NewVerdict(u, value, "r", trail))
    write_verdicts(s, JUDGE, {**CONFIG, "samples": 1}, verdicts, run_id=None, actor="t")
    (rec,) = [r for r in judge_consistency(load_study_data(s)) if r.criterion == "correctness"]
    assert rec.samples_disagreed is not None and rec.samples_disagreed.value is None
    assert rec.samples_disagreed.reason == ONE_SAMPLE
    md = runner.invoke(app, ["report", str(s.path), "-f", "md"]).stdout
    report = json.loads(runner.invoke(app, ["report", str(s.path), "-f", "json"]).stdout)
    s.close()
    (version,) = report["judges"]["versions"]
    assert version["samples_disagreed"]["value"] is None  # not "0/3 = 0.0%"
    assert version["samples_disagreed"]["reason"] == ONE_SAMPLE and ONE_SAMPLE in md


def test_a_study_import_reads_numeric_labels_as_numbers(tmp_path: Path) -> None:
    """ "4.0" on a 1–5 rating scale is the label 4 and "1.0" of a match score is 1 (a study
    import refused both); a number outside the scale is still refused, naming the field."""
    from typer.testing import CliRunner

    from medjudge.cli import app

    from .support.kind_rows import match_row, rating_row, write_jsonl

    cli = CliRunner()
    db = tmp_path / "numbers.db"
    assert cli.invoke(app, ["init", str(db)]).exit_code == 0
    row = rating_row(1)
    row["labels"] = [
        {"rater": r, "criterion": "correctness_rating", "value": v}
        for r, v in (("drA", "4.0"), ("drB", 4), ("drC", "4"), ("drD", " 2.00 "))
    ]
    r = cli.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "r.jsonl", [row])), "-k", "rating"]
    )
    assert r.exit_code == 0, r.output
    m = match_row(1)
    m["labels"] = [{"rater": "drA", "criterion": "match", "value": "1.0"}]
    r = cli.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "m.jsonl", [m])), "-k", "match"]
    )
    assert r.exit_code == 0, r.output
    out = cli.invoke(app, ["export", str(db), "labels", "-f", "csv"]).output
    got = {(x["rater"], x["criterion"]): x["value"] for x in csv.DictReader(io.StringIO(out))}
    assert got[("drA", "correctness_rating")] == got[("drB", "correctness_rating")] == "4"
    assert got[("drC", "correctness_rating")] == "4" and got[("drD", "correctness_rating")] == "2"
    assert got[("drA", "match")] == "1"
    row["id"], row["labels"] = (
        "r9",
        [{"rater": "drA", "criterion": "correctness_rating", "value": "4.5"}],
    )
    r = cli.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "bad.jsonl", [row])), "-k", "rating"]
    )
    assert r.exit_code != 0
    assert (
        "field 'labels[0].value': correctness_rating: '4.5' is not one of 1, 2, 3, 4, 5" in r.output
    )
