"""The judges' biases beside the physicians' own on the same units: length bias and
self-preference, per judge version and pairwise criterion.

The physicians' value is the reference label's (the latest adjudication, else the reviewers'
strict majority) on the units where both it and the judge's verdict exist, so the two figures
rest on the same units. A judge is flagged when the interval of its difference from the
physicians excludes 0 — Newcombe's MOVER interval from the two figures' intervals, so both
uncertainties count — with the direction said ("favours the longer answer more than the
physicians"), and never from fewer than :data:`MIN_BIAS_UNITS` units. Without any reference
label the judge's figure is given over all its units, unflagged.

- **Length bias**: an answer's length is its number of words. ``longer_answer_wins``: among
  the decisive verdicts (one answer wins) on answers of different lengths, the share won by
  the longer answer (Wilson interval); 0.5 would be no preference, but physicians may prefer
  longer answers too, which is why their share is the comparison. ``per_100_words``: among
  decisive verdicts, the least-squares slope of "answer A wins" (0/1) on the length difference
  A − B in hundreds of words, with an intercept (which absorbs a position preference): how
  much the winning chance grows per 100 words more than the other answer (HC1 robust interval,
  :func:`medjudge.judging.stats.slope.linear_slope`), given only from :data:`MIN_BIAS_UNITS`
  decisive verdicts whose length differences spread by at least :data:`MIN_LENGTH_SPREAD`
  words (standard deviation): a straight line through a few points, or through differences of
  a few words, says nothing about 100 words (six units gave 482 percentage points).
- **Self-preference** (``settings --judge-family VERSION=SOURCE``): over the units comparing
  that source with another one, the share the source wins (a tie is not a win; Wilson
  interval), by the judge and by the physicians; flagged only when the judge favours the
  source more than the physicians do (favouring it less is said in the note, not flagged).

On a risk criterion the verdict names the worse answer: the other one wins.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Mapping, Sequence

from medjudge import kinds
from medjudge.judging.analysis.consistency import share_estimate
from medjudge.judging.analysis.metrics import outcomes
from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records_sections import JudgeBias
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.estimates import MIN_STABLE_N, Estimate
from medjudge.judging.stats.slope import linear_slope

MIN_BIAS_UNITS = MIN_STABLE_N
"""No bias is flagged from fewer units than this (and no length slope is given)."""

MIN_LENGTH_SPREAD = 25
"""The length slope needs length differences with at least this standard deviation (words)."""

DEFINITION = (
    "Judge biases (pairwise), each beside the physicians' value on the same units (reference "
    "labels: adjudicated, else the reviewers' majority), flagged when the judge's interval "
    "and the interval of their difference (MOVER, from both intervals) excludes 0, never from fewer than 20 units, with the direction: longer answer wins = among decisive verdicts on answers of different "
    "lengths (in words), the share won by the longer answer (Wilson); per 100 words = the "
    "change in an answer's chance to win per 100 words more than the other answer (linear "
    "slope with an intercept, HC1 robust interval); self-preference = a judge's win share for "
    "the source its model family belongs to (settings --judge-family), ties not wins (Wilson), "
    "flagged only when above the physicians'."
)


def _winner(verdict: Hashable | None, risk: bool) -> str | None:
    """The winning answer's letter of a decisive verdict (None: tie, neither, missing)."""
    if verdict not in ("A", "B"):
        return None
    if not risk:
        return str(verdict)
    return "B" if verdict == "A" else "A"


def difference_sign(judge: Figure, physicians: Figure | None) -> int:
    """+1 where the judge's figure is above the physicians' beyond both intervals' error
    (the MOVER interval of judge − physicians, Newcombe 1998, lies above 0), −1 below, 0 when
    the interval holds 0 or either figure has no interval."""
    if physicians is None:
        return 0
    j, p = judge, physicians
    if None in (j.value, j.ci_low, j.ci_high, p.value, p.ci_low, p.ci_high):
        return 0
    assert j.value is not None and j.ci_low is not None and j.ci_high is not None
    assert p.value is not None and p.ci_low is not None and p.ci_high is not None
    d = j.value - p.value
    if d - math.hypot(j.value - j.ci_low, p.ci_high - p.value) > 0:
        return 1
    if d + math.hypot(j.ci_high - j.value, p.value - p.ci_low) < 0:
        return -1
    return 0


def _row(
    judge: str,
    criterion: str,
    bias: str,
    units: int,
    fig_judge: Figure,
    fig_ref: Figure | None,
    *,
    family: str | None = None,
    note: str | None = None,
) -> JudgeBias:
    sign = difference_sign(fig_judge, fig_ref)
    what = f"its own family's source ({family})" if family is not None else "the longer answer"
    direction = None
    if sign:
        direction = f"favours {what} {'more' if sign > 0 else 'less'} than the physicians"
    flagged = sign > 0 if bias == "self_preference" else sign != 0
    notes = [note] if note else []
    if sign and units < MIN_BIAS_UNITS:
        flagged = False
        notes.append(f"not flagged: {units:,} unit(s), a flag needs {MIN_BIAS_UNITS}")
    elif sign < 0 and bias == "self_preference":
        notes.append(f"{direction}: not self-preference")
    return JudgeBias(
        judge_version=judge,
        criterion=criterion,
        bias=bias,
        family=family,
        units=units,
        judge=fig_judge,
        physicians=fig_ref,
        flagged=flagged,
        direction=direction if flagged else None,
        note="; ".join(notes) or None,
    )


def _length(
    verdicts: Sequence[Hashable | None], lengths: Sequence[tuple[int, int]], risk: bool
) -> tuple[tuple[int, int], list[float], list[float], int]:
    """(longer wins, decisive on different lengths), the slope's x and y, equal lengths."""
    longer = decisive = equal = 0
    xs: list[float] = []
    ys: list[float] = []
    for verdict, (wa, wb) in zip(verdicts, lengths, strict=True):
        won = _winner(verdict, risk)
        if won is None:
            continue
        xs.append((wa - wb) / 100.0)
        ys.append(float(won == "A"))
        if wa == wb:
            equal += 1
            continue
        decisive += 1
        longer += (won == "A") == (wa > wb)
    return (longer, decisive), xs, ys, equal


def length_slope(xs: list[float], ys: list[float], confidence: float, empty: str) -> Estimate:
    """The length slope where the data support one (see the module): else why not."""
    n = len(xs)
    if n and n < MIN_BIAS_UNITS:
        return Estimate.undefined(
            f"not computed: {n:,} decisive verdict(s), a length slope needs {MIN_BIAS_UNITS}", n
        )
    spread = 100.0 * statistics.pstdev(xs) if n else 0.0
    if n and spread < MIN_LENGTH_SPREAD:
        return Estimate.undefined(
            f"not computed: the length differences spread by {spread:.0f} words (sd), a "
            f"slope per 100 words needs {MIN_LENGTH_SPREAD}",
            n,
        )
    return linear_slope(xs, ys, confidence, empty=empty)


def judge_biases(
    data: StudyData,
    words: Mapping[int, Mapping[str, int]],
    confidence: float = 0.95,
) -> list[JudgeBias]:
    """Every judge version's length bias and self-preference on every pairwise criterion.

    Args:
        data: the loaded study.
        words: item id → answer position → its length in words (``store.reads.answer_words``).
        confidence: interval level.
    """
    families = data.settings.judge_families
    out = []
    for criterion in data.criteria():
        kind = kinds.get(data.kind_of(criterion))
        if not kind.win_rates or len(kind.source_positions) != 2:
            continue
        pos_a, pos_b = kind.source_positions
        crit = data.criterion(criterion)
        risk = crit is not None and crit.polarity == "risk"
        units = list(data.units_by_criterion.get(criterion, ()))
        majority = data.column(criterion, MAJORITY, units)
        reference = [data.adjudications.get(u, m) for u, m in zip(units, majority, strict=True)]
        for judge in data.raters(criterion, "judge"):
            column = data.column(criterion, judge, units)
            both = [
                k
                for k, (j, r) in enumerate(zip(column, reference, strict=True))
                if j is not None and r is not None
            ]
            rows = both or [k for k, j in enumerate(column) if j is not None]
            if not rows:
                continue
            lengths = []
            for k in rows:
                w = words.get(data.units[units[k]].item_id, {})
                lengths.append((w.get(pos_a, 0), w.get(pos_b, 0)))
            (lj, dj), xj, yj, equal = _length([column[k] for k in rows], lengths, risk)
            ref_len = _length([reference[k] for k in rows], lengths, risk) if both else None
            note = None
            if equal:
                note = f"{equal:,} decisive verdict(s) on answers of equal length left out"
            out.append(
                _row(
                    judge,
                    criterion,
                    "longer_answer_wins",
                    len(rows),
                    Figure.of(share_estimate(lj, dj, confidence, empty="no decisive verdict")),
                    None
                    if ref_len is None
                    else Figure.of(
                        share_estimate(*ref_len[0], confidence, empty="no decisive reference label")
                    ),
                    note=note,
                )
            )
            out.append(
                _row(
                    judge,
                    criterion,
                    "per_100_words",
                    len(rows),
                    Figure.of(length_slope(xj, yj, confidence, "no decisive verdict")),
                    None
                    if ref_len is None
                    else Figure.of(
                        length_slope(
                            ref_len[1], ref_len[2], confidence, "no decisive reference label"
                        )
                    ),
                )
            )
            family = families.get(judge)
            if family is not None:
                pref = _self_preference(
                    data, judge, criterion, family, units, column, reference, both, risk, confidence
                )
                out.append(pref)
    return out


def _self_preference(
    data: StudyData,
    judge: str,
    criterion: str,
    family: str,
    units: Sequence[int],
    column: Sequence[Hashable | None],
    reference: Sequence[Hashable | None],
    both: Sequence[int],
    risk: bool,
    confidence: float,
) -> JudgeBias:
    """The judge's win share for its own family's source, beside the physicians'."""
    rows = both or [k for k, j in enumerate(column) if j is not None]
    wins_j = wins_r = n = 0
    for k in rows:
        sa, sb = (data.units[units[k]].sources + ("", ""))[:2]
        if family not in (sa, sb) or sa == sb:
            continue
        mine = outcomes(column[k], sa, sb, risk)
        theirs = outcomes(reference[k], sa, sb, risk) if both else None
        if mine is None or (both and theirs is None):
            continue
        n += 1
        wins_j += mine[family] == "win"
        wins_r += theirs is not None and theirs[family] == "win"
    empty = f"no unit compares {family} with another source"
    mine_share = Figure.of(share_estimate(wins_j, n, confidence, empty=empty))
    theirs_share = Figure.of(share_estimate(wins_r, n, confidence, empty=empty)) if both else None
    return _row(judge, criterion, "self_preference", n, mine_share, theirs_share, family=family)
