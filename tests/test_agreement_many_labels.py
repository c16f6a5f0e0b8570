"""``medjudge agreement`` with many distinct labels: the figures of the reference libraries,
without any categories × categories array (5,000 distinct labels crashed it, asking for 900 GiB).
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.reference import Reference
from .support.reference_calls import cohen_kappa, fleiss, krippendorff_alpha

runner = CliRunner()
RATERS = ["a", "b", "c"]
TOL = 1e-9


def _write(
    path: Path, n: int, n_labels: int, seed: int, missing: float = 0.0
) -> list[dict[str, Any]]:
    """Units whose raters copy a true label 60% of the time, else pick a nearby one (with as
    many labels as units, unit i's true label is i)."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        truth = i if n_labels >= n else rnd.randrange(n_labels)
        row: dict[str, object] = {"id": f"u{i}"}
        for r in RATERS:
            if rnd.random() < missing:
                row[r] = ""
            elif rnd.random() < 0.6:
                row[r] = truth
            else:
                row[r] = truth + rnd.randint(-3, 3)
        rows.append(row)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", *RATERS])
        w.writeheader()
        w.writerows(rows)
    return rows


def _run(path: Path, *args: str) -> dict[str, Any]:
    r = runner.invoke(app, ["agreement", str(path), "--unit", "id", "--json", *args])
    assert r.exit_code == 0, r.output
    result: dict[str, Any] = json.loads(r.stdout)
    return result


@pytest.mark.parametrize("scale", ["nominal", "ordinal", "interval"])
def test_hundreds_of_labels_give_the_reference_libraries_figures(
    tmp_path: Path, scale: Literal["nominal", "ordinal", "interval"], reference: Reference
) -> None:
    rows = _write(tmp_path / "many.csv", 400, 300, seed=1, missing=0.1)
    out = _run(tmp_path / "many.csv", "-r", "a,b,c", "--scale", scale, "--n-boot", "200")
    stats = out["slices"][0]["stats"]
    assert len(stats["categories"]) > 200  # more than the full tables are written for
    data = np.array([[float(r[x]) if r[x] != "" else np.nan for r in rows] for x in RATERS])
    alpha = reference(krippendorff_alpha, data, scale)
    assert stats["krippendorff_alpha"]["value"] == pytest.approx(alpha, abs=TOL)
    complete = np.array([[r[x] for x in RATERS] for r in rows if all(r[x] != "" for x in RATERS)])
    assert stats["fleiss"]["value"] == pytest.approx(reference(fleiss, complete), abs=TOL)
    for pair in stats["pairwise"]:
        a, b = pair["rater_a"], pair["rater_b"]
        both = [(r[a], r[b]) for r in rows if r[a] != "" and r[b] != ""]
        x, y = [p for p, _ in both], [q for _, q in both]
        assert pair["cohen"]["value"] == pytest.approx(reference(cohen_kappa, x, y), abs=TOL)
        assert pair["confusion"]["matrix"] is None  # past 200 categories: the cells only
        assert sum(count for _, _, count in pair["confusion"]["cells"]) == len(both)
        if scale != "nominal":
            cats = sorted({int(v) for v in x + y})
            for kind in ("linear", "quadratic"):
                # sklearn weighs by position in the labels it sees; ours by position in
                # the categories every rater used: the same here once the unused are added.
                positions = {c: i for i, c in enumerate(stats["categories"])}
                ref = reference(
                    cohen_kappa,
                    [positions[int(v)] for v in x],
                    [positions[int(v)] for v in y],
                    weights=kind,
                    labels=list(range(len(positions))),
                )
                got = pair[f"weighted_kappa_{kind}"]["value"]
                assert got == pytest.approx(ref, abs=TOL), (kind, len(cats))


def _cohen(x: list[object], y: list[object]) -> float:
    n = len(x)
    po = sum(p == q for p, q in zip(x, y, strict=True)) / n
    cx, cy = Counter(x), Counter(y)
    pe = sum(cx[c] * cy[c] for c in cx) / n**2
    return (po - pe) / (1 - pe)


def _fleiss(units: Sequence[Sequence[object]]) -> float:
    r = len(units[0])
    counts = [Counter(u) for u in units]
    p_bar = sum((sum(v * v for v in c.values()) - r) / (r * (r - 1)) for c in counts) / len(units)
    totals: Counter[object] = Counter()
    for c in counts:
        totals.update(c)
    pe = sum((v / (len(units) * r)) ** 2 for v in totals.values())
    return (p_bar - pe) / (1 - pe)


def _nominal_alpha(units: Sequence[Sequence[object]]) -> float:
    """Krippendorff (2011): α = 1 − (N − 1) Σ_u D_u / Σ_{c≠k} n_c n_k over pairable units."""
    pairable = [u for u in units if len(u) >= 2]
    n = sum(len(u) for u in pairable)
    observed = sum(
        sum(v * (len(u) - v) for v in Counter(u).values()) / (len(u) - 1) for u in pairable
    )
    totals: Counter[object] = Counter()
    for u in pairable:
        totals.update(u)
    expected = sum(v * (n - v) for v in totals.values())
    return 1 - (n - 1) * observed / expected


@pytest.mark.slow
def test_five_thousand_distinct_labels_through_agreement(tmp_path: Path) -> None:
    # Every unit its own true label: over 5,000 distinct labels on 5,400 units.
    rows = _write(tmp_path / "huge.csv", 5400, 5400, seed=2)
    out = _run(tmp_path / "huge.csv", "-r", "a,b,c", "--n-boot", "200")
    stats = out["slices"][0]["stats"]
    units = [[str(r[x]) for x in RATERS] for r in rows]
    assert len(stats["categories"]) == len({v for u in units for v in u}) >= 5000
    assert stats["n_units"] == 5400
    assert stats["fleiss"]["value"] == pytest.approx(_fleiss(units), abs=TOL)
    assert stats["krippendorff_alpha"]["value"] == pytest.approx(_nominal_alpha(units), abs=TOL)
    assert stats["krippendorff_alpha"]["method"] == "bca_bootstrap"
    assert len(stats["fleiss_per_category"]) == len(stats["categories"])
    for pair in stats["pairwise"]:
        i, j = RATERS.index(pair["rater_a"]), RATERS.index(pair["rater_b"])
        ref = _cohen([u[i] for u in units], [u[j] for u in units])
        assert pair["cohen"]["value"] == pytest.approx(ref, abs=TOL)
    two = _run(tmp_path / "huge.csv", "-r", "a,b")["slices"][0]["stats"]
    ref = _cohen([u[0] for u in units], [u[1] for u in units])
    assert two["cohen"]["value"] == pytest.approx(ref, abs=TOL)
    assert two["confusion"]["matrix"] is None
    assert sum(count for _, _, count in two["confusion"]["cells"]) == 5400


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["md", "html", "json", "csv"])
def test_a_report_on_a_301_point_scale(tmp_path: Path, fmt: str) -> None:
    # Three reviewers and a judge on a 0-300 rating: the confusion tables have 301 categories,
    # past the 200 the report tabulates; every other figure is there.
    from medjudge.store.settings import Criterion, StudySettings
    from medjudge.store.study import Study

    from .support.kind_rows import rating_row, write_jsonl

    score = Criterion(name="score", kind="rating", scale=(0, 300), question="Score 0-300?")
    db = tmp_path / "wide.db"
    Study.create(db, StudySettings(name="Wide", criteria=[score]), actor="lead").close()
    rnd = random.Random(4)
    rows = []
    for i in range(40):
        truth = rnd.randrange(301)
        row = rating_row(i)
        row["labels"] = [
            {
                "rater": r,
                "criterion": "score",
                "value": truth if rnd.random() < 0.6 else rnd.randrange(301),
            }
            for r in ("drA", "drB", "drC")
        ] + [{"rater": "gpt", "type": "judge", "criterion": "score", "value": truth}]
        rows.append(row)
    r = runner.invoke(
        app, ["import", str(db), str(write_jsonl(tmp_path / "r.jsonl", rows)), "-k", "rating"]
    )
    assert r.exit_code == 0, r.output
    out = tmp_path / f"report.{fmt}"
    r = runner.invoke(app, ["report", str(db), "--format", fmt, "-o", str(out), "--n-boot", "200"])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "score" in text and "Confusion: drA" not in text
    if fmt == "json":
        confusions = [
            c["confusion"]
            for section in json.loads(text)["criteria"]
            for c in section["comparisons"]
            if c.get("confusion")
        ]
        assert confusions and all(c["matrix"] is None for c in confusions)
        assert all(sum(n for _, _, n in c["cells"]) <= 40 for c in confusions)
