"""Ranking candidates from pairwise verdicts: the Bradley–Terry model, ties as half wins.

Each verdict compares two candidates on one question: the first wins (score 1), the second
wins (score 0) or they tie (score ½: a tie, or "neither", is half a win to each). The model
gives each candidate a strength ``θ`` with ``P(i beats j) = 1 / (1 + exp(θ_j − θ_i))``; the
strengths are the maximum-likelihood estimates (Newton's method on the concave
log-likelihood), centred to mean 0, so a candidate's strength reads against the field's
average: ``θ_i − θ_j`` is the log-odds that ``i`` beats ``j``. Counting a tie as half a win
each way is the same likelihood as one win each way with every verdict counted twice, which is
how independent implementations (choix, a logit on the design matrix) are checked against it.

The estimates exist only when every candidate both won and lost something against the others
in a way that links them all: the directed graph "``i`` took at least half a win from ``j``"
must be strongly connected (Zermelo; Ford 1957). Otherwise a strength is infinite, and the
ranking is undefined with that reason.

Intervals are BCa bootstrap intervals over *questions* (all the verdicts on one question are
resampled together, as they are not independent), from :func:`.bootstrap.bca_interval`; a
resample in which the estimates do not exist counts as undefined. Two rankings of the same
candidates (the physicians' and a judge's) are compared by Kendall's τ-b between their
strengths, with its interval from the same resamples of questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.sparse.csgraph import connected_components

from .bootstrap import Jackknife, bca_interval
from .estimates import N_BOOT, Estimate

SCORES = {"first": 1.0, "second": 0.0, "tie": 0.5}
"""A verdict's score for its first candidate."""

NOT_LINKED = (
    "undefined: the verdicts do not link every candidate both ways (one always won or always "
    "lost against the rest), so a strength would be infinite"
)
TOO_FEW = "undefined: fewer than two candidates were compared"
TOL = 1e-12
"""Newton's method stops when no strength moves by more than this."""
MAX_STEPS = 200
RANK_TOL = 1e-9
"""Strengths closer than this share a rank."""


@dataclass(frozen=True)
class Comparison:
    """One pairwise verdict between two candidates on one question."""

    question: str
    first: str
    second: str
    score: float
    """1: the first won, 0: the second won, 0.5: a tie (or neither)."""

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a comparison's score is 0, 0.5 or 1, not {self.score!r}")
        if self.first == self.second:
            raise ValueError(f"a candidate is compared with itself: {self.first!r}")


@dataclass(frozen=True)
class Strength:
    """One candidate's strength with its interval and its rank (1 = strongest)."""

    candidate: str
    strength: Estimate
    rank: int | None
    wins: float
    """Wins counted (ties as halves)."""
    comparisons: int


@dataclass(frozen=True)
class Ranking:
    """The candidates ranked from a set of verdicts."""

    strengths: tuple[Strength, ...]
    """Strongest first (by point estimate, then name); equal strengths share a rank;
    undefined ones without a rank, by name."""
    comparisons: int
    questions: int
    reason: str | None
    """Why the ranking is undefined (None: it is defined)."""


def wins_by_question(
    comparisons: Sequence[Comparison],
    candidates: Sequence[str],
    questions: Sequence[str] | None = None,
) -> tuple[list[str], np.ndarray]:
    """The questions (``questions``: these, in this order; default, as they come), and for
    each one the ``(m, m)`` matrix of wins ``w[i, j]`` (of ``i`` over ``j``, ties as halves):
    shape ``(questions, m, m)``. Verdicts on other questions are left out."""
    index = {c: k for k, c in enumerate(candidates)}
    if questions is None:
        questions = list(dict.fromkeys(c.question for c in comparisons))
    questions = list(questions)
    q_index = {q: k for k, q in enumerate(questions)}
    wins = np.zeros((len(questions), len(candidates), len(candidates)))
    for c in comparisons:
        if c.question not in q_index:
            continue
        q, i, j = q_index[c.question], index[c.first], index[c.second]
        wins[q, i, j] += c.score
        wins[q, j, i] += 1.0 - c.score
    return questions, wins


def linked(wins: np.ndarray) -> bool:
    """Whether the maximum-likelihood strengths exist for this ``(m, m)`` wins matrix."""
    if wins.shape[0] < 2:
        return False
    n, _ = connected_components(wins > 0, directed=True, connection="strong")
    return bool(n == 1)


def fit(wins: np.ndarray) -> np.ndarray:
    """Maximum-likelihood strengths (mean 0) for a batch of wins matrices ``(B, m, m)``;
    rows whose estimates do not exist are NaN (see :func:`linked`)."""
    batch = np.asarray(wins, dtype=float)
    if batch.ndim == 2:
        batch = batch[None]
    b, m, _ = batch.shape
    out = np.full((b, m), np.nan)
    ok = np.array([linked(w) for w in batch], dtype=bool)
    if not ok.any():
        return out
    w = batch[ok]
    games = w + np.transpose(w, (0, 2, 1))
    won = w.sum(axis=2)
    theta = np.zeros((w.shape[0], m))
    for _ in range(MAX_STEPS):
        diff = theta[:, :, None] - theta[:, None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = won - (games * p).sum(axis=2)
        info = games * p * (1.0 - p)
        hess = -info
        hess[:, np.arange(m), np.arange(m)] = info.sum(axis=2)  # the negative Hessian
        # θ_0 held at 0 (the model is unchanged by a shift): solve for the others
        step = np.zeros_like(theta)
        step[:, 1:] = np.linalg.solve(hess[:, 1:, 1:], grad[:, 1:, None])[..., 0]
        theta = theta + step
        if np.max(np.abs(step)) < TOL:
            break
    out[ok] = theta - theta.mean(axis=1, keepdims=True)
    return out


def _resamples(n_questions: int, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, questions)`` counts: each resample draws the questions with replacement."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_questions, np.full(n_questions, 1.0 / n_questions), size=n_boot)


def _interval(theta: float, boot: np.ndarray, jack: np.ndarray, confidence: float) -> Estimate:
    """The BCa interval of one figure from its resamples and leave-one-question-out values."""
    accel = Jackknife.dense(jack[None, :], np.ones(jack.size)).acceleration(1)[0]
    got, why = bca_interval(theta, boot, float(accel), confidence)
    low, high = got if got is not None else (None, None)
    return Estimate(theta, low, high, jack.size, reason=why, method="bca_bootstrap")


def rank(
    comparisons: Sequence[Comparison],
    *,
    candidates: Sequence[str] | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Ranking:
    """Rank the candidates of these verdicts (``candidates``: in this order; default, every
    candidate compared, by name)."""
    names = list(
        candidates or sorted({c.first for c in comparisons} | {c.second for c in comparisons})
    )
    questions, per_q = wins_by_question(comparisons, names)
    total = per_q.sum(axis=0)
    played = (total + total.T).sum(axis=1)
    won = total.sum(axis=1)

    def row(k: int, est: Estimate, place: int | None) -> Strength:
        return Strength(names[k], est, place, float(won[k]), int(round(played[k])))

    if len(names) < 2 or not comparisons:
        undefined = Estimate.undefined(TOO_FEW, len(questions))
        return Ranking(
            tuple(row(k, undefined, None) for k in range(len(names))),
            len(comparisons),
            len(questions),
            TOO_FEW,
        )
    theta = fit(total)[0]
    if not np.isfinite(theta).all():
        undefined = Estimate.undefined(NOT_LINKED, len(questions))
        return Ranking(
            tuple(
                row(k, undefined, None) for k in sorted(range(len(names)), key=names.__getitem__)
            ),
            len(comparisons),
            len(questions),
            NOT_LINKED,
        )
    boot = fit(np.tensordot(_resamples(len(questions), n_boot, seed), per_q, axes=1))
    jack = fit(total[None] - per_q) if len(questions) > 1 else np.full((1, len(names)), np.nan)
    ests = [
        _interval(float(theta[k]), boot[:, k], jack[:, k], confidence) for k in range(len(names))
    ]
    order = sorted(range(len(names)), key=lambda k: (-theta[k], names[k]))
    # equal strengths share a rank (1, 1, 3): the order among them is only by name
    place = {k: 1 + int(np.sum(theta > theta[k] + RANK_TOL)) for k in order}
    return Ranking(
        tuple(row(k, ests[k], place[k]) for k in order),
        len(comparisons),
        len(questions),
        None,
    )


def rank_correlation(
    one: Sequence[Comparison],
    other: Sequence[Comparison],
    *,
    candidates: Sequence[str] | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Kendall's τ-b between two rankings of the same candidates (the physicians' and a
    judge's), with a BCa interval over the questions both sets of verdicts are on,
    resampled together."""
    names = list(
        candidates or sorted({c.first for c in [*one, *other]} | {c.second for c in [*one, *other]})
    )
    shared = sorted({c.question for c in one} & {c.question for c in other})
    if len(names) < 3:
        return Estimate.undefined("undefined: a rank correlation needs three candidates or more")
    if not shared:
        return Estimate.undefined("undefined: no question has verdicts from both")
    _, wa = wins_by_question(one, names, shared)
    _, wb = wins_by_question(other, names, shared)

    def tau(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.full(x.shape[0], np.nan)
        for r in range(x.shape[0]):
            if np.isfinite(x[r]).all() and np.isfinite(y[r]).all():
                value = stats.kendalltau(x[r], y[r]).statistic
                out[r] = value if np.isfinite(value) else np.nan
        return out

    point = tau(fit(wa.sum(axis=0)), fit(wb.sum(axis=0)))[0]
    if not np.isfinite(point):
        return Estimate.undefined(NOT_LINKED, len(shared))
    counts = _resamples(len(shared), n_boot, seed)
    boot = tau(fit(np.tensordot(counts, wa, axes=1)), fit(np.tensordot(counts, wb, axes=1)))
    if len(shared) > 1:
        jack = tau(fit(wa.sum(axis=0)[None] - wa), fit(wb.sum(axis=0)[None] - wb))
    else:
        jack = np.full(1, np.nan)
    return _interval(float(point), boot, jack, confidence)
