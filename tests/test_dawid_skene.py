"""Dawid–Skene consensus against simulations where the truth and every rater are known."""

from __future__ import annotations

import numpy as np
import pytest

from medjudge.judging.stats.dawid_skene import dawid_skene

CATS = ("A", "B", "tie")
PRIOR = np.array([0.5, 0.3, 0.2])


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
    assert min(acc, key=lambda r: acc[r]) == "spam"
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
    # a category no label uses is no class of the model: no prior share, row or column
    assert "tie" not in ds.categories and "tie" in ds.unused
    assert ds.confusion.shape[1:] == (len(ds.categories),) * 2 == ds.prior.shape * 2


def test_one_em_step_by_hand() -> None:
    # two units, two raters, two categories; after one iteration from the soft majority
    # (which does not move the posteriors here: converged at once)
    labels = [(0, "p", "A"), (0, "q", "A"), (1, "p", "A"), (1, "q", "B")]
    ds = dawid_skene(labels, ("A", "B"), alpha=0.0, max_iter=1, restarts=0)
    assert ds.converged and ds.iterations == 1
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


def reference_em(
    labels: list[tuple[int, str, str]], cats: tuple[str, ...], alpha: float, tol: float
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], float]:
    """An independent Dawid–Skene EM in plain loops (the textbook algorithm, as crowd-kit's
    ``DawidSkene`` runs it, with the same pseudo-count): posteriors, prior, confusion per
    rater and the final log-likelihood."""
    units = sorted({u for u, _, _ in labels})
    raters = sorted({r for _, r, _ in labels})
    k = len(cats)
    by_unit: dict[int, list[tuple[str, int]]] = {u: [] for u in units}
    for u, r, c in labels:
        by_unit[u].append((r, cats.index(c)))
    post = np.zeros((len(units), k))
    for i, u in enumerate(units):
        for _, ci in by_unit[u]:
            post[i, ci] += 1
        post[i] /= post[i].sum()
    loglik = 0.0
    for _ in range(10_000):
        prior = (post.sum(axis=0) + alpha) / (len(units) + k * alpha)
        conf = {r: np.full((k, k), alpha) for r in raters}
        for i, u in enumerate(units):
            for r, ci in by_unit[u]:
                conf[r][:, ci] += post[i]
        for r in raters:
            conf[r] /= conf[r].sum(axis=1, keepdims=True)
        new = np.zeros_like(post)
        loglik = 0.0
        for i, u in enumerate(units):
            p = prior.copy()
            for r, ci in by_unit[u]:
                p = p * conf[r][:, ci]
            loglik += float(np.log(p.sum()))
            new[i] = p / p.sum()
        moved = np.abs(new - post).max()
        post = new
        if moved < tol:
            break
    return post, prior, conf, loglik


def test_converges_on_easy_data_and_equals_an_independent_em() -> None:
    raters = {"x": good(0.9), "y": good(0.85), "z": good(0.8), "w": good(0.85)}
    _, labels = simulate(300, raters, PRIOR, 11)
    ds = dawid_skene(labels, CATS)
    assert ds.converged and not ds.fallback
    assert ds.starts == 5 and ds.converged_starts == 5
    assert ds.start == "majority", "every start finds the same fit: the majority's is kept"
    post, prior, conf, loglik = reference_em(labels, CATS, alpha=0.01, tol=1e-6)
    assert np.abs(ds.posterior - post).max() < 1e-9
    assert np.abs(ds.prior - prior).max() < 1e-9
    for r in raters:
        assert np.abs(np.array(ds.confusion_of(r)) - conf[r]).max() < 1e-9
    assert ds.log_likelihood == pytest.approx(loglik, abs=1e-9)
    assert "5 of 5 converged" in ds.describe()


def test_a_random_start_that_converges_better_is_kept() -> None:
    # three middling raters on 150 units: EM from the majority creeps (not converged in 200
    # iterations) while a random start settles on a higher likelihood
    _, labels = simulate(150, {"x": good(0.85), "y": good(0.75), "z": good(0.7)}, PRIOR, 11)
    majority_only = dawid_skene(labels, CATS, restarts=0)
    ds = dawid_skene(labels, CATS)
    assert majority_only.fallback
    assert ds.converged and ds.start.startswith("random")
    assert ds.log_likelihood > majority_only.log_likelihood


def test_no_start_converges_falls_back_to_the_majority_vote() -> None:
    truth, labels = simulate(100, {"x": good(0.6), "y": good(0.5), "z": good(0.55)}, PRIOR, 5)
    ds = dawid_skene(labels, CATS, max_iter=1)
    assert ds.fallback and not ds.converged and ds.converged_starts == 0
    assert ds.start == "majority vote (fallback)"
    votes = np.zeros((100, len(CATS)))
    for unit, _, label in labels:
        votes[unit, CATS.index(label)] += 1
    # the plurality of the votes, a tie going to the earlier category
    assert ds.consensus == [CATS[int(np.argmax(v))] for v in votes]
    assert "no start converged" in ds.describe() and "majority vote" in ds.describe()


def test_the_smoothing_is_a_parameter() -> None:
    labels = [(u, r, "A" if u % 2 else "B") for u in range(10) for r in ("x", "y", "z")]
    rough = dawid_skene(labels, CATS, alpha=0.0)
    smooth = dawid_skene(labels, CATS, alpha=1.0)
    assert rough.confusion_of("x")[0][1] == 0.0  # truth A, said B: never seen, no pseudo-count
    assert smooth.confusion_of("x")[0][1] > 0.05
    assert smooth.alpha == 1.0 and "smoothing 1" in smooth.describe()


def test_random_starts_are_seeded() -> None:
    _, labels = simulate(80, {"x": good(0.6), "y": good(0.55), "z": good(0.5)}, PRIOR, 2)
    a = dawid_skene(labels, CATS, seed=3)
    b = dawid_skene(labels, CATS, seed=3)
    assert a.start == b.start and a.log_likelihood == b.log_likelihood
    only = dawid_skene(labels, CATS, restarts=0)
    assert only.starts == 1 and a.log_likelihood >= only.log_likelihood - 1e-9
