"""Dawid–Skene consensus: the true label of each unit and each rater's confusion matrix, by EM.

Dawid & Skene (1979) treat each unit's true category as hidden and each rater as a noisy
channel with its own confusion matrix ``π[r, true, given]``. Expectation–maximisation
alternates between the posterior of every unit's true category (E-step) and the class prior
and confusion matrices that make those posteriors most likely (M-step).

Conventions (stated in :class:`DawidSkene` so reports can print them):
- Starts: EM runs from the soft majority (each unit's posterior is its share of votes per
  category) and from ``restarts`` random posteriors (Dirichlet(1) per unit, drawn with
  ``seed``), so the same labels give the same figures. The hidden classes of a random start are
  matched to the categories they hold most votes of (the likelihood does not change when the
  hidden classes are relabelled, so without this a random start could return the right model
  with its labels swapped). Of the runs that converged, the one with the highest log-likelihood
  is kept; a random start replaces the majority start only when it is higher by more than
  :data:`BETTER` (EM's own tolerance leaves differences of that order between equal fits).
- Smoothing: every confusion-matrix cell and every class-prior share get a pseudo-count
  ``alpha`` (default :data:`ALPHA` = 0.01) in the M-step, so a category a rater never used does
  not get probability zero; 0 is plain maximum likelihood.
- Stop: a run converged when no posterior moves more than ``tol`` (default 1e-6) within
  ``max_iter`` (default 200) iterations.
- Fallback: when no start converged, the consensus is the **majority vote** (the soft majority,
  a tie going to the earlier category) and the confusion matrices and prior are one M-step from
  it; ``fallback`` is True and every output says so.
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
from scipy.optimize import linear_sum_assignment

ALPHA = 0.01
"""The default smoothing pseudo-count."""
TOL = 1e-6
"""The default convergence tolerance (largest move of a posterior probability)."""
MAX_ITER = 200
"""The default iteration cap per start."""
RESTARTS = 4
"""The default number of seeded random starts besides the majority start."""
BETTER = 1e-4
"""How much higher a random start's log-likelihood must be to replace an earlier start's."""


@dataclass(frozen=True)
class DawidSkene:
    """The fitted model: consensus per unit, prior, and each rater's confusion matrix."""

    categories: tuple[str, ...]
    """The classes: the declared labels some rater used, in declared order (rows and columns of
    every confusion matrix, shares of the prior)."""
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
    """EM iterations run by the kept start (the majority start's when falling back)."""
    converged: bool
    """True if at least one start settled within ``max_iter`` iterations."""
    log_likelihood: float
    """Log-likelihood of the labels under the kept parameters."""
    start: str
    """Which start was kept: ``majority`` or ``random N`` (N from 1)."""
    starts: int = 1
    """How many starts were run."""
    converged_starts: int = 0
    """How many of them converged."""
    alpha: float = ALPHA
    tol: float = TOL
    max_iter: int = MAX_ITER
    seed: int = 0
    unused: tuple[str, ...] = ()
    """Declared labels no rater used: not classes of the model (no unit can be shown to have
    one), so no confusion row or column and no prior share."""

    @property
    def fallback(self) -> bool:
        """True when EM did not converge and the consensus is the majority vote."""
        return not self.converged

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

    def describe(self) -> str:
        """One line on how the model was fitted, for every output that shows its figures."""
        head = (
            f"EM from the majority and {self.starts - 1} seeded random start(s) (seed "
            f"{self.seed}), smoothing {self.alpha:g}, tolerance {self.tol:g}, at most "
            f"{self.max_iter} iterations"
        )
        if self.unused:
            head += f" (no label was {', '.join(self.unused)}: not a class of the model)"
        if self.fallback:
            return (
                f"{head}: no start converged, so the consensus is the majority vote "
                "(accuracies and confusion matrices against it)"
            )
        return (
            f"{head}: {self.converged_starts} of {self.starts} converged; kept the {self.start} "
            f"start ({self.iterations} iterations, log-likelihood {self.log_likelihood:.3f})"
        )


@dataclass(frozen=True)
class _Run:
    post: NDArray[np.float64]
    prior: NDArray[np.float64]
    conf: NDArray[np.float64]
    iterations: int
    converged: bool
    log_likelihood: float


class _Model:
    """The labels as index arrays, with one M-step and one E-step."""

    def __init__(self, u: NDArray[np.intp], r: NDArray[np.intp], c: NDArray[np.intp]) -> None:
        self.u, self.r, self.c = u, r, c

    def m_step(
        self, post: NDArray[np.float64], n_raters: int, alpha: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        n_units, k = post.shape
        prior = (post.sum(axis=0) + alpha) / (n_units + alpha * k)
        counts = np.full((n_raters, k, k), alpha)
        # counts[r, :, c] += post[u, :] for every label (r, u, c)
        np.add.at(counts.transpose(0, 2, 1), (self.r, self.c), post[self.u])
        with np.errstate(invalid="ignore", divide="ignore"):
            conf = counts / counts.sum(axis=2, keepdims=True)
        conf = np.nan_to_num(conf, nan=1.0 / k)  # alpha 0 and a truth nobody has: uniform
        return prior, conf

    def e_step(
        self, prior: NDArray[np.float64], conf: NDArray[np.float64], n_units: int
    ) -> tuple[NDArray[np.float64], float]:
        """The posteriors and the log-likelihood of the labels under ``prior`` and ``conf``."""
        with np.errstate(divide="ignore"):  # log 0 = -inf is right when alpha is 0
            log_joint = np.tile(np.log(prior), (n_units, 1))
            np.add.at(log_joint, self.u, np.log(conf[self.r, :, self.c]))
        top = log_joint.max(axis=1, keepdims=True)
        new = np.exp(log_joint - top)
        total = new.sum(axis=1, keepdims=True)
        new /= total
        log_likelihood = float((top[:, 0] + np.log(total[:, 0])).sum())
        return new, log_likelihood


def _em(
    model: _Model,
    post: NDArray[np.float64],
    n_raters: int,
    alpha: float,
    tol: float,
    max_iter: int,
) -> _Run:
    n_units = post.shape[0]
    for iterations in range(1, max_iter + 1):
        prior, conf = model.m_step(post, n_raters, alpha)
        new, log_likelihood = model.e_step(prior, conf, n_units)
        delta = float(np.abs(new - post).max())
        post = new
        if delta < tol:
            return _Run(post, prior, conf, iterations, True, log_likelihood)
    return _Run(post, prior, conf, max_iter, False, log_likelihood)  # max_iter ≥ 1: all bound


def _aligned(run: _Run, majority: NDArray[np.float64]) -> _Run:
    """The run with its hidden classes matched to the categories whose votes they hold most."""
    overlap = run.post.T @ majority  # [hidden class, category]
    rows, cols = linear_sum_assignment(-overlap)
    perm = np.empty(len(cols), dtype=np.intp)
    perm[cols] = rows  # category j is hidden class perm[j]
    if (perm == np.arange(len(perm))).all():
        return run
    return _Run(
        run.post[:, perm],
        run.prior[perm],
        run.conf[:, perm, :],
        run.iterations,
        run.converged,
        run.log_likelihood,
    )


def dawid_skene(
    labels: Sequence[tuple[Hashable, str, str]],
    categories: Sequence[str],
    *,
    alpha: float = ALPHA,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    restarts: int = RESTARTS,
    seed: int = 0,
) -> DawidSkene:
    """Fit the Dawid–Skene model to ``(unit, rater, label)`` triples.

    Args:
        labels: One triple per label; a rater labels a unit at most once (a later triple for
            the same unit and rater counts again, so pass the latest labels only).
        categories: The declared label set in order; every label must be one of them. A
            category no label uses is left out of the model (:attr:`DawidSkene.unused`): with
            smoothing it would get a prior share and a confusion row of pseudo-counts only.
        alpha: Smoothing: the pseudo-count added to every confusion-matrix cell and prior share.
        tol: A start converged when no posterior probability moves more than this.
        max_iter: Iteration cap per start.
        restarts: Seeded random starts besides the majority start (0: the majority start only).
        seed: Seed of the random starts.

    Returns:
        The fitted model; when no start converged, the majority vote (``fallback``).

    Raises:
        ValueError: A label outside ``categories``, no labels, or a negative parameter.
    """
    if not labels:
        raise ValueError("Dawid–Skene needs at least one label")
    if alpha < 0 or tol <= 0 or max_iter < 1 or restarts < 0:
        raise ValueError("Dawid–Skene needs alpha ≥ 0, tol > 0, max_iter ≥ 1 and restarts ≥ 0")
    declared = tuple(categories)
    given = {label for _, _, label in labels}
    cats = tuple(c for c in declared if c in given)
    index = {c: i for i, c in enumerate(cats)}
    unit_ids: dict[Hashable, int] = {}
    rater_ids: dict[str, int] = {}
    u_list: list[int] = []
    r_list: list[int] = []
    c_list: list[int] = []
    for unit, rater, label in labels:
        if label not in index:
            raise ValueError(f"label {label!r} is not one of the categories {list(declared)}")
        u_list.append(unit_ids.setdefault(unit, len(unit_ids)))
        r_list.append(rater_ids.setdefault(rater, len(rater_ids)))
        c_list.append(index[label])
    model = _Model(np.asarray(u_list), np.asarray(r_list), np.asarray(c_list))
    n_units, n_raters, k = len(unit_ids), len(rater_ids), len(cats)

    # The soft majority: each unit's share of votes per category.
    majority = np.zeros((n_units, k))
    np.add.at(majority, (model.u, model.c), 1.0)
    majority /= majority.sum(axis=1, keepdims=True)

    rng = np.random.default_rng(seed)
    starts = [("majority", majority)] + [
        (f"random {i}", rng.dirichlet(np.ones(k), size=n_units)) for i in range(1, restarts + 1)
    ]
    runs = [
        (name, _aligned(_em(model, post, n_raters, alpha, tol, max_iter), majority))
        for name, post in starts
    ]
    done = [(name, run) for name, run in runs if run.converged]
    common = {
        "categories": cats,
        "units": tuple(unit_ids),
        "raters": tuple(rater_ids),
        "starts": len(runs),
        "converged_starts": len(done),
        "alpha": alpha,
        "tol": tol,
        "max_iter": max_iter,
        "seed": seed,
        "unused": tuple(c for c in declared if c not in given),
    }
    if not done:
        prior, conf = model.m_step(majority, n_raters, alpha)
        _, log_likelihood = model.e_step(prior, conf, n_units)
        return DawidSkene(
            posterior=majority,
            prior=prior,
            confusion=conf,
            iterations=runs[0][1].iterations,
            converged=False,
            log_likelihood=log_likelihood,
            start="majority vote (fallback)",
            **common,  # type: ignore[arg-type]
        )
    name, best = done[0]
    for other_name, run in done[1:]:
        if run.log_likelihood > best.log_likelihood + BETTER:
            name, best = other_name, run
    return DawidSkene(
        posterior=best.post,
        prior=best.prior,
        confusion=best.conf,
        iterations=best.iterations,
        converged=True,
        log_likelihood=best.log_likelihood,
        start=name,
        **common,  # type: ignore[arg-type]
    )
