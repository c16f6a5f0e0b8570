"""A judge scored against the reviewers' majority: checked against scikit-learn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from medjudge.judging.stats.classification import classification

from .support.checks import some
from .support.reference import Reference
from .support.reference_calls import confusion, precision_recall_f1, wilson

LABELS = ["A", "B", "tie", "neither"]


def _pairs(seed: int, n: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    truth = rng.choice(LABELS[:3], size=n, p=[0.45, 0.45, 0.1])  # nobody's majority says neither
    guess = np.where(rng.random(n) < 0.7, truth, rng.choice(LABELS, size=n))
    return truth.tolist(), guess.tolist()


@pytest.mark.parametrize(("seed", "n"), [(0, 40), (1, 200), (2, 15)])
def test_matches_sklearn(seed: int, n: int, reference: Reference) -> None:
    truth, guess = _pairs(seed, n)
    table = reference(confusion, truth, guess, LABELS)
    c = classification(table, LABELS)
    p, r, f, support = reference(
        precision_recall_f1, truth, guess, labels=LABELS, zero_division=np.nan
    )
    assert c.n == n
    assert c.accuracy.value == pytest.approx(np.mean(np.array(truth) == np.array(guess)))
    lo, hi = reference(wilson, int(np.trace(table)), n)
    assert (c.accuracy.ci_low, c.accuracy.ci_high) == pytest.approx((lo, hi))
    for j, s in enumerate(c.labels):
        assert s.support == support[j]
        for mine, ref in ((s.precision, p[j]), (s.recall, r[j]), (s.f1, f[j])):
            if np.isnan(ref):
                assert mine.value is None and mine.reason
            else:
                assert mine.value == pytest.approx(ref)
    # Macro-F1 over the labels the reference uses (sklearn: labels= those present).
    present = [lab for lab in LABELS if lab in truth]
    macro = reference(
        precision_recall_f1, truth, guess, labels=present, average="macro", zero_division=0
    )[2]
    assert c.macro_f1.value == pytest.approx(macro)
    assert c.labels[3].recall.value is None  # the majority never says neither
    assert "never says" in some(c.labels[3].recall.reason)


def test_f1_interval_is_bca_and_contains_the_estimate(reference: Reference) -> None:
    truth, guess = _pairs(5, 300)
    c = classification(reference(confusion, truth, guess, LABELS), LABELS, seed=1)
    f1 = c.labels[0].f1
    assert f1.method == "bca_bootstrap" and some(f1.ci_low) < some(f1.value) < some(f1.ci_high)
    assert c.labels[0].precision.method == "wilson"
    as_dict: dict[str, Any] = c.to_dict()
    assert as_dict["labels"][0]["label"] == "A"


def test_empty_table() -> None:
    c = classification([[0, 0], [0, 0]], ["A", "B"])
    assert c.n == 0 and c.accuracy.value is None and c.macro_f1.value is None
