"""The models ranked from a study's pairwise verdicts: the physicians' pooled verdicts and each
judge's, per criterion, equal to choix's Bradley–Terry fit of the same verdicts read straight
from the import file (ties and neither as half wins; a risk criterion's chosen answer loses),
resampled by question (``question_id``), with Kendall's τ against scipy's."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from medjudge.judging.analysis.model_ranking import PHYSICIANS, model_rankings
from medjudge.judging.analysis.study_data import load_study_data
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.kind_rows import write_jsonl

choix = pytest.importorskip("choix", reason="choix (test extra) is the reference fit")

MODELS = {"alpaca-13b": 0.0, "biomistral-7b": -0.7, "gpt-4o": 0.8}
RATERS = {"drA": "human", "drB": "human", "judge-x": "judge"}


def _rows(questions: int, seed: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(questions):
        for k, (m1, m2) in enumerate(itertools.combinations(sorted(MODELS), 2)):
            a, b = (m1, m2) if (q + k) % 2 else (m2, m1)
            labels = []
            for rater, kind in RATERS.items():
                bias = 0.6 if rater == "judge-x" and "alpaca" in (a, b) else 0.0
                for criterion, risk in (("correctness", False), ("harmfulness", True)):
                    if rng.random() < 0.15:
                        value = "tie" if not risk else "neither"
                    else:
                        diff = MODELS[a] - MODELS[b] + (bias if a.startswith("alpaca") else -bias)
                        a_better = rng.random() < 1 / (1 + np.exp(-diff))
                        value = ("B" if a_better else "A") if risk else ("A" if a_better else "B")
                    labels.append(
                        {"rater": rater, "type": kind, "criterion": criterion, "value": value}
                    )
            rows.append(
                {
                    "id": f"q{q}-{k}",
                    "question": f"Question {q}?",
                    "question_id": f"q{q}",
                    "answer_a": f"{a} on {q}",
                    "answer_b": f"{b} on {q}",
                    "source_a": a,
                    "source_b": b,
                    "labels": labels,
                }
            )
    return rows


def _choix(
    rows: list[dict[str, Any]], raters: set[str], criterion: str, risk: bool
) -> dict[str, float]:
    names = sorted(MODELS)
    data = []
    for row in rows:
        i, j = names.index(row["source_a"]), names.index(row["source_b"])
        for label in row["labels"]:
            if label["rater"] not in raters or label["criterion"] != criterion:
                continue
            v = label["value"]
            if v in ("tie", "neither"):
                data += [(i, j), (j, i)]
            else:
                first_wins = (v == "A") != risk
                data += [(i, j) if first_wins else (j, i)] * 2
    params = np.asarray(choix.opt_pairwise(len(names), data, alpha=0.0, tol=1e-12), dtype=float)
    params -= params.mean()
    return dict(zip(names, params.tolist(), strict=True))


@pytest.fixture(scope="module")
def ranked(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("rank")
    rows = _rows(20, seed=3)
    study = Study.create(tmp / "r.db", actor="lead")
    import_file(study, write_jsonl(tmp / "in.jsonl", rows), "pairwise", actor="lead")
    recs = model_rankings(load_study_data(study), n_boot=300, seed=1, confidence=0.95)
    study.close()
    return recs, rows


@pytest.mark.parametrize(("criterion", "risk"), [("correctness", False), ("harmfulness", True)])
@pytest.mark.parametrize("who", [PHYSICIANS, "judge-x"])
def test_strengths_equal_choix_on_the_file_s_verdicts(
    ranked: tuple[list[Any], list[dict[str, Any]]], criterion: str, risk: bool, who: str
) -> None:
    recs, rows = ranked
    (rec,) = [r for r in recs if r.criterion == criterion and r.rater == who]
    raters = {"drA", "drB"} if who == PHYSICIANS else {"judge-x"}
    expected = _choix(rows, raters, criterion, risk)
    got = {c.candidate: c.strength.value for c in rec.candidates}
    assert got == pytest.approx(expected, abs=1e-6)
    assert rec.questions == 20 and rec.reason is None  # resampled by question_id, not item
    assert rec.comparisons == 60 * len(raters)
    assert [c.rank for c in rec.candidates] == [1, 2, 3]
    for c in rec.candidates:
        assert c.strength.method == "bca_bootstrap"
        assert c.strength.ci_low is not None and c.strength.ci_high is not None
        assert c.strength.ci_low < (c.strength.value or 0) < c.strength.ci_high


def test_kendall_tau_of_each_judge_against_the_physicians(
    ranked: tuple[list[Any], list[dict[str, Any]]],
) -> None:
    recs, rows = ranked
    for criterion, risk in (("correctness", False), ("harmfulness", True)):
        physicians = _choix(rows, {"drA", "drB"}, criterion, risk)
        judge = _choix(rows, {"judge-x"}, criterion, risk)
        names = sorted(MODELS)
        expected = stats.kendalltau([physicians[n] for n in names], [judge[n] for n in names])
        (rec,) = [r for r in recs if r.criterion == criterion and r.rater == "judge-x"]
        assert rec.tau_vs_physicians is not None
        assert rec.tau_vs_physicians.value == pytest.approx(expected.statistic, abs=1e-12)
        (phys,) = [r for r in recs if r.criterion == criterion and r.rater == PHYSICIANS]
        assert phys.tau_vs_physicians is None


def test_two_candidates_give_no_ranking(tmp_path: Path) -> None:
    rows = [r for r in _rows(5, seed=1) if "gpt-4o" not in (r["source_a"], r["source_b"])]
    study = Study.create(tmp_path / "two.db", actor="lead")
    import_file(study, write_jsonl(tmp_path / "in.jsonl", rows), "pairwise", actor="lead")
    assert model_rankings(load_study_data(study), n_boot=50, seed=1, confidence=0.95) == []
    study.close()
