"""The judges' biases beside the physicians' own on the same units: length bias and
self-preference, per judge version and pairwise criterion.

The physicians' value is the reference label's (the latest adjudication, else the reviewers'
strict majority) on the units where both it and the judge's verdict exist, so the two figures
rest on the same units; a judge whose interval excludes the physicians' value is flagged.
Without any reference label the judge's figure is given over all its units, unflagged.

- **Length bias**: an answer's length is its number of words. ``longer_answer_wins``: among
  the decisive verdicts (one answer wins) on answers of different lengths, the share won by
  the longer answer (Wilson interval); 0.5 would be no preference, but physicians may prefer
  longer answers too, which is why their share is the comparison. ``per_100_words``: among
  decisive verdicts, the least-squares slope of "answer A wins" (0/1) on the length difference
  A − B in hundreds of words, with an intercept (which absorbs a position preference): how
  much the winning chance grows per 100 words more than the other answer (HC1 robust interval,
  :func:`medjudge.judging.stats.slope.linear_slope`).
- **Self-preference** (``settings --judge-family VERSION=SOURCE``): over the units comparing
  that source with another one, the share the source wins (a tie is not a win; Wilson
  interval), by the judge and by the physicians.

On a risk criterion the verdict names the worse answer: the other one wins.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from medjudge import kinds
from medjudge.judging.analysis.consistency import share
from medjudge.judging.analysis.metrics import outcomes
from medjudge.judging.analysis.records import Figure, record
from medjudge.judging.analysis.records_sections import JudgeBias
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.estimates import Estimate
from medjudge.judging.stats.slope import linear_slope

DEFINITION = (
    "Judge biases (pairwise), each beside the physicians' value on the same units (reference "
    "labels: adjudicated, else the reviewers' majority), flagged when the judge's interval "
    "excludes it: longer answer wins = among decisive verdicts on answers of different "
    "lengths (in words), the share won by the longer answer (Wilson); per 100 words = the "
    "change in an answer's chance to win per 100 words more than the other answer (linear "
    "slope with an intercept, HC1 robust interval); self-preference = a judge's win share for "
    "the source its model family belongs to (settings --judge-family), ties not wins (Wilson)."
)


def _winner(verdict: Hashable | None, risk: bool) -> str | None:
    """The winning answer's letter of a decisive verdict (None: tie, neither, missing)."""
    if verdict not in ("A", "B"):
        return None
    if not risk:
        return str(verdict)
    return "B" if verdict == "A" else "A"


def _excludes(judge: Figure, physicians: Figure | None) -> bool:
    if physicians is None or physicians.value is None:
        return False
    if judge.ci_low is None or judge.ci_high is None:
        return False
    return not judge.ci_low <= physicians.value <= judge.ci_high


def _row(
    judge: str,
    criterion: str,
    bias: str,
    units: int,
    mine: Mapping[str, object],
    theirs: Mapping[str, object] | None,
    *,
    family: str | None = None,
    note: str | None = None,
) -> JudgeBias:
    def figure(x: Mapping[str, object]) -> Figure:  # a share's count is its value × n
        return record(Figure, {k: v for k, v in x.items() if k != "count"})

    fig_judge = figure(mine)
    fig_ref = None if theirs is None else figure(theirs)
    return JudgeBias(
        judge_version=judge,
        criterion=criterion,
        bias=bias,
        family=family,
        units=units,
        judge=fig_judge,
        physicians=fig_ref,
        flagged=_excludes(fig_judge, fig_ref),
        note=note,
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
                    share(lj, dj, confidence, empty="no decisive verdict"),
                    None
                    if ref_len is None
                    else share(*ref_len[0], confidence, empty="no decisive reference label"),
                    note=note,
                )
            )
            out.append(
                _row(
                    judge,
                    criterion,
                    "per_100_words",
                    len(rows),
                    linear_slope(xj, yj, confidence, empty="no decisive verdict").to_dict(),
                    None
                    if ref_len is None
                    else linear_slope(
                        ref_len[1], ref_len[2], confidence, empty="no decisive reference label"
                    ).to_dict(),
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
    mine_share = share(wins_j, n, confidence, empty=empty)
    theirs_share = share(wins_r, n, confidence, empty=empty) if both else None
    if n == 0:
        mine_share = Estimate.undefined(empty, 0).to_dict()
    return _row(judge, criterion, "self_preference", n, mine_share, theirs_share, family=family)
