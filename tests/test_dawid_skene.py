"""Dawid–Skene consensus against simulations where the truth and every rater are known (#15)."""

from __future__ import annotations

import numpy as np
import pytest

from medjudge.judging.stats.dawid_skene import dawid_skene

CATS = ("A", "B", "tie")


def simulate(
    n_units: int, confusions: dict[str, np.ndarray], prior: np.ndarray, seed: int
) -> tuple[list[str], list[tuple[int, str, str]]]:
    """Draw true labels from ``prior`` and each rater's label from its confusion row."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(len(CATS), size=n_units, p=prior)
    labels = []
    for rater, conf in confusions.items():
        for unit, t in enumerate(truth):
            labels.append((unit, rater, CATS[rng.choice(len(CATS), p=conf[t])]))
    return [CATS[t] for t in truth], labels


def good(acc: float) -> np.ndarray:
    off = (1 - acc) / 2
    return np.array([[acc, off, off], [off, acc, off], [off, off, acc]])


def majority(labels: list[tuple[int, str, str]], n_units: int) -> list[str]:
    votes = np.zeros((n_units, len(CATS)))
    for unit, _, label in labels:
        votes[unit, CATS.index(label)] += 1
    return [CATS[i] for i in votes.argmax(axis=1)]


def test_recovers_planted_accuracies_and_finds_the_spammer() -> None:
    spammer = np.full((3, 3), 1 / 3)  # answers at random whatever the truth
    confusions = {
        "dr.a": good(0.9),
        "dr.b": good(0.8),
        "dr.c": good(0.7),
        "spam": spammer,
        "dr.d": good(0.85),
    }
    prior = np.array([0.5, 0.3, 0.2])
    truth, labels = simulate(2000, confusions, prior, seed=7)

    ds = dawid_skene(labels, CATS)

    assert ds.converged
    acc = ds.accuracy
    for rater, conf in confusions.items():
        true_acc = float(np.diag(conf) @ prior)
        assert acc[rater] == pytest.approx(true_acc, abs=0.03), rater
    assert min(acc, key=acc.get) == "spam"
    # the estimated confusion matrix of a good rater is close to the planted one
    assert np.abs(np.array(ds.confusion_of("dr.a")) - confusions["dr.a"]).max() < 0.05
    assert np.abs(ds.prior - prior).max() < 0.03
    # weighting raters by their reliability beats the plain majority here
    ds_right = np.mean([a == b for a, b in zip(ds.consensus, truth, strict=True)])
    mv_right = np.mean([a == b for a, b in zip(majority(labels, 2000), truth, strict=True)])
    assert ds_right > mv_right


def test_deterministic_and_capped() -> None:
    _, labels = simulate(200, {"x": good(0.8), "y": good(0.6), "z": good(0.7)}, np.ones(3) / 3, 1)
    a = dawid_skene(labels, CATS)
    b = dawid_skene(list(reversed(labels)), CATS)
    assert a.accuracy == pytest.approx(b.accuracy, abs=1e-9)
    capped = dawid_skene(labels, CATS, max_iter=1)
    assert capped.iterations == 1 and not capped.converged


def test_unanimous_units_keep_their_label_and_unused_categories_stay_finite() -> None:
    labels = [(u, r, "A" if u % 2 else "B") for u in range(10) for r in ("x", "y", "z")]
    ds = dawid_skene(labels, CATS)
    assert ds.consensus == ["A" if u % 2 else "B" for u in range(10)]
    assert np.isfinite(ds.confusion).all()
    assert ds.prior[CATS.index("tie")] < 0.01


def test_one_em_step_by_hand() -> None:
    # two units, two raters, two categories; after one iteration from the soft majority
    labels = [(0, "p", "A"), (0, "q", "A"), (1, "p", "A"), (1, "q", "B")]
    ds = dawid_skene(labels, ("A", "B"), alpha=0.0, max_iter=1)
    # start: unit 0 = (1, 0), unit 1 = (0.5, 0.5); prior = (0.75, 0.25)
    assert ds.prior.tolist() == pytest.approx([0.75, 0.25])
    # rater p said A on both: from truth A (mass 1.5) all A; from truth B (mass 0.5) all A
    assert np.allclose(ds.confusion_of("p"), [[1.0, 0.0], [1.0, 0.0]])
    # rater q: truth A mass 1.5 → A 1.0, B 0.5; truth B mass 0.5 → B 0.5
    assert np.allclose(ds.confusion_of("q"), [[2 / 3, 1 / 3], [0.0, 1.0]])
    # E-step for unit 1 (p: A, q: B): A ∝ .75·1·(1/3) = .25, B ∝ .25·1·1 = .25 → 0.5 each
    assert ds.posterior[1].tolist() == pytest.approx([0.5, 0.5])
    assert ds.consensus == ["A", "A"]  # a tie goes to the earlier declared category


def test_refuses_labels_outside_the_declared_set() -> None:
    with pytest.raises(ValueError, match="not one of the categories"):
        dawid_skene([(0, "x", "maybe")], CATS)
