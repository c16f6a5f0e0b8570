"""Dawid–Skene consensus: the true label of each unit and each rater's confusion matrix, by EM.

Dawid & Skene (1979) treat each unit's true category as hidden and each rater as a noisy
channel with its own confusion matrix ``π[r, true, given]``. Expectation–maximisation
alternates between the posterior of every unit's true category (E-step) and the class prior
and confusion matrices that make those posteriors most likely (M-step).

Conventions (stated in :class:`DawidSkene` so reports can print them):
- Start: each unit's posterior is its share of votes per category (the soft majority), so the
  result is deterministic — no random start, the same labels give the same figures.
- Smoothing: every confusion-matrix row and the class prior get a pseudo-count ``alpha``
  (default 0.01) so a category a rater never used does not get probability zero.
- Stop: when no posterior moves more than ``tol`` (default 1e-6) or after ``max_iter``
  (default 200) iterations, whichever comes first; ``converged`` says which.
- A unit's consensus is its most probable category; ties go to the earlier category in the
  declared order.
- A rater's accuracy is ``Σ_k prior[k] · π[r, k, k]``: the chance that it gives the true label
  of a unit drawn from the study.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class DawidSkene:
    """The fitted model: consensus per unit, prior, and each rater's confusion matrix."""

    categories: tuple[str, ...]
    """The label set, in declared order (rows and columns of every confusion matrix)."""
    units: tuple[Hashable, ...]
    """Units in the order of ``posterior`` and ``consensus``."""
    raters: tuple[str, ...]
    """Raters in the order of ``confusion`` and ``accuracy``."""
    posterior: NDArray[np.float64]
    """``posterior[u, k]``: probability that unit ``u``'s true category is ``k``."""
    prior: NDArray[np.float64]
    """Estimated share of each true category."""
    confusion: NDArray[np.float64]
    """``confusion[r, k, l]``: probability that rater ``r`` says ``l`` when the truth is ``k``."""
    iterations: int
    """EM iterations run."""
    converged: bool
    """True if the posteriors settled within ``max_iter`` iterations."""

    @property
    def consensus(self) -> list[str]:
        """Each unit's most probable category (a tie within 1e-12 goes to the earlier one)."""
        return [self.categories[i] for i in np.round(self.posterior, 12).argmax(axis=1)]

    @property
    def accuracy(self) -> dict[str, float]:
        """Each rater's estimated accuracy: Σ_k prior[k] · confusion[r, k, k]."""
        diag = np.einsum("rkk->rk", self.confusion)
        return {r: float(diag[i] @ self.prior) for i, r in enumerate(self.raters)}

    def confusion_of(self, rater: str) -> list[list[float]]:
        """One rater's confusion matrix as nested lists (rows: truth, columns: said)."""
        return self.confusion[self.raters.index(rater)].tolist()  # type: ignore[no-any-return]


def dawid_skene(
    labels: Sequence[tuple[Hashable, str, str]],
    categories: Sequence[str],
    *,
    alpha: float = 0.01,
    tol: float = 1e-6,
    max_iter: int = 200,
) -> DawidSkene:
    """Fit the Dawid–Skene model to ``(unit, rater, label)`` triples.

    Args:
        labels: One triple per label; a rater labels a unit at most once (a later triple for
            the same unit and rater counts again, so pass the latest labels only).
        categories: The declared label set in order; every label must be one of them.
        alpha: Pseudo-count added to every confusion-matrix cell and prior share.
        tol: Stop when no posterior probability moves more than this.
        max_iter: Iteration cap.

    Returns:
        The fitted model.

    Raises:
        ValueError: A label outside ``categories``, or no labels.
    """
    if not labels:
        raise ValueError("Dawid–Skene needs at least one label")
    cats = tuple(categories)
    index = {c: i for i, c in enumerate(cats)}
    unit_ids: dict[Hashable, int] = {}
    rater_ids: dict[str, int] = {}
    u_list: list[int] = []
    r_list: list[int] = []
    c_list: list[int] = []
    for unit, rater, label in labels:
        if label not in index:
            raise ValueError(f"label {label!r} is not one of the categories {list(cats)}")
        u_list.append(unit_ids.setdefault(unit, len(unit_ids)))
        r_list.append(rater_ids.setdefault(rater, len(rater_ids)))
        c_list.append(index[label])
    u = np.asarray(u_list)
    r = np.asarray(r_list)
    c = np.asarray(c_list)
    n_units, n_raters, k = len(unit_ids), len(rater_ids), len(cats)

    # Start from the soft majority: each unit's share of votes per category.
    post = np.zeros((n_units, k))
    np.add.at(post, (u, c), 1.0)
    post /= post.sum(axis=1, keepdims=True)

    iterations = 0
    converged = False
    prior = np.full(k, 1.0 / k)
    conf = np.full((n_raters, k, k), 1.0 / k)
    for iterations in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        # M-step: class prior and confusion matrices from the current posteriors.
        prior = (post.sum(axis=0) + alpha) / (n_units + alpha * k)
        counts = np.full((n_raters, k, k), alpha)
        # counts[r, :, c] += post[u, :] for every label (r, u, c)
        np.add.at(counts.transpose(0, 2, 1), (r, c), post[u])
        conf = counts / counts.sum(axis=2, keepdims=True)
        # E-step: posterior of each unit's true category.
        with np.errstate(divide="ignore"):  # log 0 = -inf is right when alpha is 0
            log_post = np.tile(np.log(prior), (n_units, 1))
            np.add.at(log_post, u, np.log(conf[r, :, c]))
        log_post -= log_post.max(axis=1, keepdims=True)
        new = np.exp(log_post)
        new /= new.sum(axis=1, keepdims=True)
        delta = float(np.abs(new - post).max())
        post = new
        if delta < tol:
            converged = True
            break

    return DawidSkene(
        categories=cats,
        units=tuple(unit_ids),
        raters=tuple(rater_ids),
        posterior=post,
        prior=prior,
        confusion=conf,
        iterations=iterations,
        converged=converged,
    )
