"""How consistent each judge is with itself, per criterion, from its verdict trails.

For every judge and criterion, over the units with a (latest) verdict:

- ``samples_disagreed``: units where the valid samples of one order did not all agree
  (pairwise: in order AB or BA; statements and ratings: among the samples), over the units
  where an order had two valid samples or more: with one sample per order it is not
  measured (undefined, :data:`ONE_SAMPLE`), never "0 disagreed";
- ``position_inconsistent`` (pairwise): units whose AB and BA verdicts differed, over the
  units where both orders reached a verdict (docs/design.md §3 rule 4);
- ``judges_disagreed`` (panels): units where the panel's members did not all agree;
- ``failed_samples``: samples that could not be parsed (they never vote);
- ``missing``: units whose verdict is missing (no valid sample).

Shares come with Wilson intervals.
"""

from __future__ import annotations

from medjudge import kinds
from medjudge.judging.analysis.records import ConsistencyRow, Share
from medjudge.judging.analysis.study_data import StudyData
from medjudge.judging.stats.estimates import Estimate, wilson_interval

ONE_SAMPLE = "one sample per order: not measured"
"""Why self-consistency is undefined for a judge that drew one sample per order."""
NO_SAMPLES = "no verdict with samples"


def share_estimate(
    count: int, n: int, confidence: float = 0.95, *, empty: str = "no units"
) -> Estimate:
    """A proportion ``count / n`` with a Wilson interval (undefined, ``empty``, without units)."""
    if n <= 0:
        return Estimate.undefined(empty, 0)
    low, high = wilson_interval(count, n, confidence)
    return Estimate(count / n, low, high, n, method="wilson")


def share(count: int, n: int, confidence: float = 0.95, *, empty: str = "no units") -> Share:
    """A proportion with a Wilson interval and its count (:func:`share_estimate`)."""
    return Share.counted(share_estimate(count, n, confidence, empty=empty), int(count))


def judge_consistency(data: StudyData, confidence: float = 0.95) -> list[ConsistencyRow]:
    """Self-consistency figures per judge and criterion.

    Args:
        data: the loaded study (with verdicts).
        confidence: level of the Wilson intervals.

    Returns:
        One record per (judge, criterion) with ``judge``, ``criterion``, ``kind``, ``panel``,
        ``n_verdicts``, ``missing``, ``failed_samples`` and the shares ``samples_disagreed``,
        ``position_inconsistent`` (pairwise) and ``judges_disagreed`` (panels), each a share
        with value, ci_low, ci_high, n, count and reason.
    """
    order = [c.name for c in data.settings.criteria]
    out: list[ConsistencyRow] = []
    for judge in sorted(data.verdicts):
        per: dict[str, dict[str, int]] = {}
        for unit_id, v in data.verdicts[judge].items():
            criterion = data.units.criterion_of(unit_id)
            if criterion is None:
                continue
            c = per.setdefault(
                criterion,
                {
                    "n": 0,
                    "missing": 0,
                    "failed": 0,
                    "dis": 0,
                    "dis_n": 0,
                    "voted": 0,
                    "pos": 0,
                    "pos_n": 0,
                    "panel": 0,
                    "panel_n": 0,
                },
            )
            c["n"] += 1
            c["missing"] += v.status == "missing" or v.value is None
            f = v.facts
            c["failed"] += f.failed
            if f.shape == "panel":
                c["panel_n"] += v.value is not None
                c["panel"] += f.disagreed
                continue
            c["voted"] += f.voted
            if f.voted and f.sampled:
                c["dis_n"] += 1
                c["dis"] += f.disagreed
            if f.shape == "orders" and f.inconsistent is not None:
                c["pos_n"] += 1
                c["pos"] += f.inconsistent
        for criterion in [x for x in order if x in per] + sorted(set(per) - set(order)):
            c = per[criterion]
            kind = data.kind_of(criterion)
            is_panel = c["panel_n"] > 0 or judge.startswith("panel:")
            out.append(
                ConsistencyRow(
                    judge=judge,
                    criterion=criterion,
                    kind=kind,
                    panel=is_panel,
                    n_verdicts=c["n"],
                    missing=c["missing"],
                    failed_samples=c["failed"],
                    samples_disagreed=None
                    if is_panel
                    else share(
                        c["dis"],
                        c["dis_n"],
                        confidence,
                        empty=ONE_SAMPLE if c["voted"] else NO_SAMPLES,
                    ),
                    position_inconsistent=share(
                        c["pos"], c["pos_n"], confidence, empty="no unit with both orders decided"
                    )
                    if kinds.get(kind).two_orders and not is_panel
                    else None,
                    judges_disagreed=share(c["panel"], c["panel_n"], confidence)
                    if is_panel
                    else None,
                )
            )
    return out
