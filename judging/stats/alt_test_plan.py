"""How many items the alt-test needs: Monte-Carlo simulation of whole studies (the planner
of Calderon, Reichart & Dror 2025, appendix C), before a study or from a pilot's figures.

Simulated studies are tested by the same array code as a real one
(:mod:`medjudge.judging.stats.alt_test`), with a leading axis of simulations; the numpy
Generator is seeded, so the same parameters and seed give the same plan.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from medjudge.judging.stats.alt_test import (
    EPSILON,
    FDR_Q,
    MIN_PHYSICIANS,
    MIN_RATERS,
    PASS_RATE,
    SCORINGS,
    Floats,
    advantage_indicators,
    by_rejections,
    check_parameters,
    paired_t_tests,
)
from medjudge.store.json_types import JsonObject


@dataclass(frozen=True)
class PlanPoint:
    """The simulated studies of one size.

    Attributes:
        n_items: Items each simulated study has (every physician labels every item).
        pass_probability: Share of the simulated studies in which the judge passes (ω ≥ 0.5).
        mean_winning_rate: Mean ω over the simulated studies.
        mean_advantage_probability: Mean ρ over the simulated studies.
    """

    n_items: int
    pass_probability: float
    mean_winning_rate: float
    mean_advantage_probability: float


@dataclass(frozen=True)
class AltTestPlan:
    """How often a study of each size would pass the alt-test, by simulation.

    Attributes:
        label_shares: The true labels' distribution over the categories.
        physician_agreement: Two physicians' chance of giving the same label.
        judge_agreement: The judge's chance of giving a physician's label.
        n_physicians: Physicians per study.
        epsilon: ε of the simulated tests.
        q: The FDR level of the simulated tests.
        scoring: ``accuracy``, or ``neg_rmse`` on the categories' positions.
        n_sims: Simulated studies per size.
        seed: The seed of the numpy Generator.
        physician_accuracy: The model's chance that a physician gives the true label (else a
            label drawn from ``label_shares``), solved from ``physician_agreement``.
        judge_accuracy: The same for the judge, solved from ``judge_agreement``.
        points: One per item count, in the order asked.
    """

    label_shares: tuple[float, ...]
    physician_agreement: float
    judge_agreement: float
    n_physicians: int
    epsilon: float
    q: float
    scoring: str
    n_sims: int
    seed: int
    physician_accuracy: float
    judge_accuracy: float
    points: tuple[PlanPoint, ...]

    def items_needed(self, power: float = 0.8) -> int | None:
        """The smallest simulated item count passing with at least ``power``; None if none."""
        return next((p.n_items for p in self.points if p.pass_probability >= power), None)

    def to_dict(self) -> JsonObject:
        """JSON-safe form, with ``items_needed`` (80% of the studies pass)."""
        data = asdict(self)
        data["points"] = [asdict(p) for p in self.points]
        data["items_needed"] = self.items_needed()
        return data


def label_model(
    shares: Sequence[float], physician_agreement: float, judge_agreement: float
) -> tuple[float, float]:
    """The planner's model: (physician accuracy r, judge accuracy g) giving these agreements.

    Each item has a true label T drawn from ``shares``; a physician gives T with chance r,
    else a label drawn from ``shares`` (which may be T by chance); the judge likewise with
    g. With s = Σ shares², two physicians agree with chance r² + (1 − r²)·s and the judge
    agrees with a physician with chance g·r + (1 − g·r)·s.

    Raises:
        ValueError: Agreements the model cannot give (below chance s, or a judge agreeing
            more than one that always gives T would: r + (1 − r)·s).
    """
    s = float(sum(p * p for p in shares))
    if len(shares) < 2 or s >= 1:
        raise ValueError("the planner needs at least two categories with positive shares")
    if not s <= physician_agreement <= 1:
        raise ValueError(
            f"physician agreement {physician_agreement}: between chance ({s:.3f}) and 1"
        )
    r = math.sqrt((physician_agreement - s) / (1 - s))
    best = r + (1 - r) * s
    if not s <= judge_agreement <= best + 1e-12:
        raise ValueError(
            f"judge agreement {judge_agreement}: between chance ({s:.3f}) and {best:.3f} (a "
            "judge always giving the true label agrees with such physicians that often)"
        )
    g = 0.0 if r == 0 else min(1.0, (judge_agreement - s) / ((1 - s) * r))
    return r, g


def plan_alt_test(
    *,
    physician_agreement: float,
    judge_agreement: float,
    n_categories: int | None = None,
    label_shares: Sequence[float] | None = None,
    n_physicians: int = 3,
    item_counts: Sequence[int] = tuple(range(30, 201, 10)),
    epsilon: float = EPSILON,
    q: float = FDR_Q,
    scoring: str = "accuracy",
    n_sims: int = 1000,
    seed: int = 0,
) -> AltTestPlan:
    """Simulate studies to see how many items the alt-test needs (the paper's appendix C).

    For each item count, ``n_sims`` studies are drawn from :func:`label_model` (every
    physician labels every item) and tested as :func:`alt_test` does (minimum items and
    raters met by construction); the pass probability is the share that pass.

    Args:
        physician_agreement: The physicians' pairwise percent agreement (as a fraction).
        judge_agreement: The judge's mean agreement with one physician (as a fraction).
        n_categories: Equally likely categories (or give ``label_shares``).
        label_shares: The labels' distribution (normalised to sum to 1).
        n_physicians: Physicians per study (at least 3).
        item_counts: The study sizes to simulate (each at least 2).
        epsilon: ε of the test.
        q: The FDR level.
        scoring: ``accuracy``, or ``neg_rmse`` on the categories' positions 0, 1, ….
        n_sims: Simulated studies per item count.
        seed: Seed of the numpy Generator (the same seed gives the same plan).

    Raises:
        ValueError: Inconsistent or out-of-range parameters.
    """
    if (n_categories is None) == (label_shares is None):
        raise ValueError("give the number of categories or the label shares (one of them)")
    raw = [1.0] * n_categories if n_categories is not None else list(label_shares or ())
    if any(not math.isfinite(x) or x < 0 for x in raw) or sum(raw) <= 0:
        raise ValueError("label shares must be non-negative numbers, not all 0")
    shares = np.asarray(raw) / sum(raw)
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r}: use one of {', '.join(SCORINGS)}")
    check_parameters(epsilon, q, 2, MIN_RATERS)
    if n_physicians < MIN_PHYSICIANS:
        raise ValueError(f"the alt-test needs at least {MIN_PHYSICIANS} physicians")
    if not item_counts or min(item_counts) < 2 or n_sims < 1:
        raise ValueError("simulate at least 2 items per study and at least 1 study")
    r, g = label_model(shares.tolist(), physician_agreement, judge_agreement)
    rng = np.random.default_rng(seed)
    points = []
    for n in item_counts:
        passed, omega, rho = _simulate(shares, r, g, n_physicians, int(n), n_sims, rng,
                                       epsilon, q, scoring)  # fmt: skip
        points.append(PlanPoint(int(n), passed, omega, rho))
    return AltTestPlan(
        tuple(float(x) for x in shares), physician_agreement, judge_agreement, n_physicians,
        epsilon, q, scoring, n_sims, seed, r, g, tuple(points),
    )  # fmt: skip


def _simulate(
    shares: Floats, r: float, g: float, m: int, n: int, sims: int,
    rng: np.random.Generator, epsilon: float, q: float, scoring: str,
) -> tuple[float, float, float]:  # fmt: skip
    """(pass share, mean ω, mean ρ) of ``sims`` simulated studies of ``n`` items."""
    k = len(shares)
    batch = max(1, 2_000_000 // (n * m * m))  # bounds the (studies, items, m, m) pair array
    passes, omegas, rhos = 0, 0.0, 0.0
    for start in range(0, sims, batch):
        c = min(batch, sims - start)
        truth = rng.choice(k, size=(c, n), p=shares)
        humans = np.where(
            rng.random((c, n, m)) < r, truth[..., None], rng.choice(k, size=(c, n, m), p=shares)
        ).astype(np.float64)
        judge = np.where(
            rng.random((c, n)) < g, truth, rng.choice(k, size=(c, n), p=shares)
        ).astype(np.float64)
        usable, w_f, w_h = advantage_indicators(humans, judge, scoring, MIN_RATERS)
        _, rho_f, _, _, p = paired_t_tests(usable, w_f, w_h, epsilon)
        omega = by_rejections(p, q).mean(axis=-1)
        passes += int((omega >= PASS_RATE).sum())
        omegas += float(omega.sum())
        rhos += float(rho_f.mean(axis=-1).sum())
    return passes / sims, omegas / sims, rhos / sims


@dataclass(frozen=True)
class PilotFigures:
    """What the planner needs, read from a pilot study's labels.

    Attributes:
        labels: The physicians' labels, in the order of ``label_shares``.
        label_shares: How often the physicians gave each label.
        physician_agreement: Pooled over every pair of physicians' labels on an item.
        judge_agreement: Pooled over every (judge, physician) pair of labels on an item.
        n_physicians: The physician columns.
    """

    labels: tuple[Hashable, ...]
    label_shares: tuple[float, ...]
    physician_agreement: float
    judge_agreement: float
    n_physicians: int


def pilot_figures(
    rows: Sequence[Sequence[Hashable | None]],
    raters: Sequence[str],
    judge: str,
    order: Sequence[Hashable] | None = None,
) -> PilotFigures:
    """The planner's inputs from a pilot: rows of labels (None: missing), one per rater.

    Labels in ``order`` come first in that order (declared categories nobody gave keep a
    share of 0), then the others as sorted text.

    Raises:
        ValueError: ``judge`` not among ``raters``, or no pair of labels to compare.
    """
    if judge not in raters:
        raise ValueError(f"judge {judge!r} is not one of the raters ({', '.join(raters)})")
    j = list(raters).index(judge)
    counts: dict[Hashable, int] = dict.fromkeys(order or (), 0)
    pairs = same = judged = judge_same = 0
    for row in rows:
        given = [x for k, x in enumerate(row) if k != j and x is not None]
        for x in given:
            counts[x] = counts.get(x, 0) + 1
        for a, x in enumerate(given):
            same += sum(x == y for y in given[a + 1 :])
        pairs += len(given) * (len(given) - 1) // 2
        if row[j] is not None:
            judged += len(given)
            judge_same += sum(row[j] == x for x in given)
    if not pairs or not judged:
        raise ValueError("no item with two physicians' labels, or none the judge labelled too")
    declared = list(order or ())
    labels = declared + sorted((x for x in counts if x not in set(declared)), key=str)
    total = sum(counts.values())
    return PilotFigures(
        tuple(labels),
        tuple(counts[x] / total for x in labels),
        same / pairs,
        judge_same / judged,
        len(raters) - 1,
    )
