"""The alternative annotator test (alt-test) of Calderon, Reichart & Dror (ACL 2025): may an
LLM judge replace the physicians?

Leave one physician j out at a time. On each item i that j and the judge labelled and that at
least ``min_raters`` physicians labelled (j included, so ≥ ``min_raters − 1`` others), the
judge's alignment with the others is S(f, i, j) = sim(f_i, the others' labels) and j's is
S(h_j, i, j) = sim(h_j,i, the others' labels), where sim is the share of others with the same
label (``accuracy``, nominal labels) or minus the root mean squared difference from them
(``neg_rmse``, numbers or positions on an ordered scale). The judge's advantage probability
for j is ρ_j^f = mean_i [S_f ≥ S_h], j's is ρ_j^h = mean_i [S_h ≥ S_f]; a one-sided paired t-test
of d_i = [S_h ≥ S_f] − [S_f ≥ S_h] asks whether ρ_j^h − ρ_j^f < ε (H0: ≥ ε). The
Benjamini–Yekutieli procedure at level q over the physicians' p-values gives the rejections; the
winning rate ω is their share and the judge passes when ω ≥ 0.5. ρ, the mean of ρ_j^f, compares
judges. :mod:`.alt_test_plan` estimates by simulation how often a study of n items would pass.

Everything here works on label arrays, numpy only, one code path for a study and for the
planner's simulated studies (with a leading axis of simulations). The authors' reference code
is ``nitaytech/AltTest`` (``alt_test_example.ipynb``); the choices it fixes are followed and
documented in docs/statistics.md ("Alternative annotator test").
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from medjudge.store.json_types import JsonObject

SCORINGS = ("accuracy", "neg_rmse")
"""How an annotator's alignment with the others is scored: share of equal labels, or −RMSE."""
MIN_PHYSICIANS = 3
"""Fewer physicians than this (after exclusions) and the test is not computed (the paper's
advice: with two, the judge is only compared with one other physician)."""
EPSILON = 0.2
"""The paper's ε for expert annotators (0.15 for skilled ones, 0.1 for crowd workers)."""
FDR_Q = 0.05
MIN_ITEMS = 30
MIN_RATERS = 2
PASS_RATE = 0.5

Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]


@dataclass(frozen=True)
class PhysicianAltTest:
    """One physician left out: the judge against this physician on the others' labels.

    Attributes:
        name: The physician's column.
        n_items: Items the comparison used (this physician and the judge labelled them, with
            at least ``min_raters − 1`` other physicians).
        rho_f: The judge's advantage probability ρ_j^f (share of items with S_f ≥ S_h).
        rho_h: The physician's, ρ_j^h (share with S_h ≥ S_f).
        t: The t statistic, or None when every d_i is equal (its SD is 0) or excluded.
        p: The one-sided p-value, or None when excluded.
        rejected: H0 rejected by Benjamini–Yekutieli (the judge wins against this physician),
            or None when excluded.
        excluded: Why this physician is not tested (too few items), or None.
        note: How p was set when the t statistic is undefined, or None.
    """

    name: str
    n_items: int
    rho_f: float | None
    rho_h: float | None
    t: float | None
    p: float | None
    rejected: bool | None
    excluded: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class AltTestResult:
    """The alt-test of one judge against the physicians.

    Attributes:
        judge: The judge's column.
        scoring: ``accuracy`` or ``neg_rmse``.
        epsilon: The cost-benefit margin ε.
        q: The Benjamini–Yekutieli false discovery rate level.
        min_items: Physicians with fewer usable items are excluded.
        min_raters: Physicians an item needs (the left-out one included).
        physicians: One entry per physician column, excluded ones too.
        winning_rate: ω, rejections over tested physicians; None when not computed.
        advantage_probability: ρ, the mean of ρ_j^f; None when not computed.
        passed: ω ≥ 0.5; None when not computed.
        reason: Why the test is not computed, or None.
    """

    judge: str
    scoring: str
    epsilon: float
    q: float
    min_items: int
    min_raters: int
    physicians: tuple[PhysicianAltTest, ...]
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    reason: str | None = None

    def to_dict(self) -> JsonObject:
        """JSON-safe form (no NaN or infinity: undefined values are null)."""
        data = asdict(self)
        data["physicians"] = [asdict(p) for p in self.physicians]
        return data


def benjamini_yekutieli(p_values: Sequence[float], q: float = FDR_Q) -> list[bool]:
    """Which hypotheses the Benjamini–Yekutieli step-up procedure rejects at FDR level ``q``.

    Valid under any dependence between the tests (the physicians' tests share the judge and
    each other's labels): the i-th smallest p-value is compared with i/m · q / H_m, H_m =
    1 + 1/2 + … + 1/m, and every p-value up to the largest one under its line is rejected.
    """
    p = np.asarray(p_values, dtype=np.float64)
    return [bool(x) for x in by_rejections(p[None, :], q)[0]] if p.size else []


def by_rejections(p: Floats, q: float) -> Bools:
    """Benjamini–Yekutieli along the last axis (one row of p-values per study)."""
    m = p.shape[-1]
    order = np.argsort(p, axis=-1)
    ranked = np.take_along_axis(p, order, axis=-1)
    line = np.arange(1, m + 1) / m * q / np.sum(1.0 / np.arange(1, m + 1))
    under = ranked <= line
    # the number rejected: the rank of the last p-value under the line (0 if none)
    count = np.where(under.any(axis=-1), m - np.argmax(under[..., ::-1], axis=-1), 0)
    reject_sorted = np.arange(m) < count[..., None]
    out = np.zeros_like(reject_sorted)
    np.put_along_axis(out, order, reject_sorted, axis=-1)
    return out


def advantage_indicators(
    humans: Floats, judge: Floats, scoring: str, min_raters: int
) -> tuple[Bools, ...]:
    """(usable, W_f, W_h), each shaped like ``humans`` (…, items, physicians): item i counts
    for physician j, the judge is at least as aligned with the others as j, and vice versa.

    Missing labels are NaN. Both scores average over the same others, so their sums compare
    as their means do (exactly, with no rounding between two equal scores).
    """
    present = ~np.isnan(humans)
    count = present.sum(axis=-1, keepdims=True)
    usable = present & (count >= min_raters) & ~np.isnan(judge)[..., None]
    h = np.where(present, humans, 0.0)
    f = judge[..., None]
    if scoring == "accuracy":
        judge_sim = (h == f) & present  # judge vs each physician
        pair_sim = (h[..., :, None] == h[..., None, :]) & present[..., :, None]
        pair_sim &= present[..., None, :]
    else:
        judge_sim = np.where(present, (h - f) ** 2, 0.0)
        pair_sim = (h[..., :, None] - h[..., None, :]) ** 2
        pair_sim *= present[..., :, None] & present[..., None, :]
    judge_others = judge_sim.sum(axis=-1, keepdims=True) - judge_sim
    human_others = pair_sim.sum(axis=-1) - (scoring == "accuracy")  # less j with itself
    if scoring == "accuracy":
        w_f, w_h = judge_others >= human_others, human_others >= judge_others
    else:  # −RMSE: a smaller sum of squares is the better alignment
        w_f, w_h = judge_others <= human_others, human_others <= judge_others
    return usable, w_f & usable, w_h & usable


def paired_t_tests(usable: Bools, w_f: Bools, w_h: Bools, epsilon: float) -> tuple[Floats, ...]:
    """Per physician (last axis): n, ρ_f, ρ_h, t, p of H0 mean(d) ≥ ε, d = W_h − W_f.

    When every d_i is equal the SD is 0 and t undefined (NaN): p is 0 if mean(d) < ε, else 1.
    """
    n = usable.sum(axis=-2).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_f = w_f.sum(axis=-2) / n
        rho_h = w_h.sum(axis=-2) / n
        d = w_h.astype(np.float64) - w_f
        mean = d.sum(axis=-2) / n
        dev = np.where(usable, d - mean[..., None, :], 0.0)
        sd = np.sqrt((dev**2).sum(axis=-2) / (n - 1))
        t = np.where(sd > 0, (mean - epsilon) / (sd / np.sqrt(n)), np.nan)
        p = np.where(sd > 0, stats.t.cdf(t, n - 1), np.where(mean < epsilon, 0.0, 1.0))
    return n, rho_f, rho_h, t, p


def _encode(
    rows: Sequence[Sequence[Hashable | None]],
    width: int,
    scoring: str,
    order: Sequence[Hashable] | None,
) -> Floats:
    """Labels as floats, NaN for missing: category codes for accuracy, numbers (or positions in
    ``order``) for −RMSE."""
    codes: dict[Hashable, float] = {}
    positions = {c: float(i) for i, c in enumerate(order or ())}

    def value(label: Hashable | None) -> float:
        if label is None:
            return math.nan
        if scoring == "accuracy":
            return codes.setdefault(label, float(len(codes)))
        if label in positions:
            return positions[label]
        if isinstance(label, (int, float)) and not isinstance(label, bool):
            if math.isfinite(label):
                return float(label)
        raise ValueError(f"neg_rmse scoring needs numbers or ordered categories, got {label!r}")

    return np.array([[value(x) for x in row] for row in rows], dtype=np.float64).reshape(
        len(rows), width
    )


def alt_test(
    rows: Sequence[Sequence[Hashable | None]],
    raters: Sequence[str],
    judge: str,
    *,
    scoring: str = "accuracy",
    epsilon: float = EPSILON,
    q: float = FDR_Q,
    min_items: int = MIN_ITEMS,
    min_raters: int = MIN_RATERS,
    order: Sequence[Hashable] | None = None,
) -> AltTestResult:
    """Run the alt-test of ``judge`` against the other raters (the physicians).

    Args:
        rows: One row per item, one label per rater (aligned with ``raters``); None: missing.
        raters: The column names; ``judge`` is one of them, the others are the physicians.
        judge: The judge's column.
        scoring: ``accuracy`` (nominal labels) or ``neg_rmse`` (numbers, or labels ranked by
            ``order``).
        epsilon: The cost-benefit margin ε in [0, 1) (0.2 for experts such as physicians).
        q: The false discovery rate level of Benjamini–Yekutieli, in (0, 1).
        min_items: A physician with fewer usable items is excluded (the t-test's normality
            wants 30); at least 2.
        min_raters: Physicians an item needs to count, the left-out one included; at least 2.
        order: For ``neg_rmse``, text labels are scored by their position in this sequence.

    Returns:
        The result; not computed (with its reason) when fewer than 3 physicians are tested.

    Raises:
        ValueError: ``judge`` not among ``raters``, a bad parameter, or a label ``neg_rmse``
            cannot place.
    """
    if judge not in raters:
        raise ValueError(f"judge {judge!r} is not one of the raters ({', '.join(raters)})")
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r}: use one of {', '.join(SCORINGS)}")
    check_parameters(epsilon, q, min_items, min_raters)
    if any(len(row) != len(raters) for row in rows):
        raise ValueError(f"each row needs {len(raters)} labels, one per rater")
    labels = _encode(rows, len(raters), scoring, order)
    j = list(raters).index(judge)
    names = [r for r in raters if r != judge]

    def result(
        physicians: Sequence[PhysicianAltTest],
        omega: float | None,
        rho: float | None,
        why: str | None,
    ) -> AltTestResult:
        passed = None if omega is None else omega >= PASS_RATE
        return AltTestResult(judge, scoring, epsilon, q, min_items, min_raters,
                             tuple(physicians), omega, rho, passed, why)  # fmt: skip

    if len(names) < MIN_PHYSICIANS:
        return result([], None, None, f"needs at least {MIN_PHYSICIANS} physicians besides "
                      f"the judge (got {len(names)})")  # fmt: skip
    humans = np.delete(labels, j, axis=1)
    usable, w_f, w_h = advantage_indicators(humans, labels[:, j], scoring, min_raters)
    n, rho_f, rho_h, t, p = paired_t_tests(usable, w_f, w_h, epsilon)
    tested = n >= min_items
    m = int(tested.sum())
    reject = np.zeros(len(names), dtype=bool)
    if m >= MIN_PHYSICIANS:
        reject[tested] = by_rejections(p[tested][None, :], q)[0]
    physicians = []
    for k, name in enumerate(names):
        if not tested[k]:
            why = f"{int(n[k])} usable items, fewer than the minimum of {min_items}"
            physicians.append(PhysicianAltTest(name, int(n[k]), None, None, None, None, None, why))
            continue
        note = None
        if math.isnan(t[k]):
            side = "<" if p[k] == 0 else "≥"
            note = f"every d_i equal (SD 0): p = {p[k]:g} since mean(d) {side} ε"
        physicians.append(
            PhysicianAltTest(
                name, int(n[k]), float(rho_f[k]), float(rho_h[k]),
                None if math.isnan(t[k]) else float(t[k]), float(p[k]), bool(reject[k]),
                note=note,
            )
        )  # fmt: skip
    if m < MIN_PHYSICIANS:
        why = (
            f"only {m} physician{'s' * (m != 1)} with at least {min_items} usable items "
            f"(the alt-test needs {MIN_PHYSICIANS})"
        )
        return result(physicians, None, None, why)
    return result(physicians, float(reject.sum() / m), float(rho_f[tested].mean()), None)


def check_parameters(epsilon: float, q: float, min_items: int, min_raters: int) -> None:
    """Raise ValueError, saying the range, for a parameter :func:`alt_test` cannot use."""
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon {epsilon}: use a margin in [0, 1), e.g. 0.2 for physicians")
    if not 0 < q < 1:
        raise ValueError(f"q {q}: use a false discovery rate in (0, 1), e.g. 0.05")
    if min_items < 2:
        raise ValueError(f"min_items {min_items}: the t-test needs at least 2 items")
    if min_raters < 2:
        raise ValueError(
            f"min_raters {min_raters}: an item needs the left-out physician and one other"
        )
