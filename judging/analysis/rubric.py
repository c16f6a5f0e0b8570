"""Rubric scores (HealthBench, Arora et al. 2025) per source model and per tag, from any rater.

For one rater's marks on a rubric item (one answer and its rubric criteria, each with points
and tags): the answer's score is the points of the met criteria over the points of the
positive criteria, clipped to [0, 1] (:func:`medjudge.kinds.rubric.score`). An answer gets a
score from a rater only when every one of its criteria carries that rater's mark — for the
reviewers' majority, a strict majority on every criterion; the others are counted as "scored
n of N", never scored as if unmarked criteria were unmet.

A tag's score of an answer is the same formula over the criteria with that tag (HealthBench's
axis and theme scores); an answer without a positive criterion of the tag has none. Per rater:
the mean score over answers with a BCa interval (resampling answers), overall, per source
model and per tag, side by side for every rater, as K-QA gives its figures per rater: each
physician, the reviewers' majority, the reference (the adjudication where there is one, else
the majority: what the rest of the report takes as the physicians' label) and each judge.
Two physicians who disagree on a criterion have no majority on it, so the majority scores no
answer with that criterion; each of them still scores it.

HealthBench's grader meta-evaluation (Arora et al. 2025, §7): each judge's met / not met
against the reference on the criteria both marked, as macro F1 over the two classes (BCa
interval over criteria), overall and per tag, beside physician–physician macro F1 (each pair
of physicians, one as the reference) on the criteria the judge marked too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations

from medjudge.judging.analysis.records import Figure, KeyedFigure, figure_fields
from medjudge.judging.analysis.records_sections import (
    PairF1,
    RubricGrader,
    RubricRater,
    RubricSection,
)
from medjudge.judging.analysis.study_data import MAJORITY, StudyData
from medjudge.judging.stats.bootstrap import mean_bca
from medjudge.judging.stats.classification import classification_of_cells
from medjudge.kinds.rubric import CRITERION, score
from medjudge.store.json_types import JsonObject

NO_SCORES = "no answer with every rubric criterion marked"

REFERENCE_RATER = "reference (adjudicated, else majority)"
"""The pseudo-rater whose mark on a criterion is its latest adjudication, else the reviewers'
strict majority."""

MARKS = ("met", "not_met")


def rubric_scores(
    data: StudyData,
    entries: Mapping[int, JsonObject],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> RubricSection | None:
    """The rubric section of the report (None when the study has no rubric items).

    Args:
        data: the study's labels.
        entries: unit id → its rubric criterion's ``{"points", "tags"}``
            (``store.reads.listed_entries``).
    """
    units = list(data.units_by_criterion.get(CRITERION, []))
    if not units:
        return None
    by_item: dict[int, list[int]] = defaultdict(list)
    for u in units:
        by_item[data.units[u].item_id].append(u)

    def mean(values: list[float], key: str) -> KeyedFigure:
        est = mean_bca(values, n_boot=n_boot, seed=seed, confidence=confidence, empty=NO_SCORES)
        return KeyedFigure.keyed(key, est)

    humans = data.raters(CRITERION, "human")
    judges = data.raters(CRITERION, "judge")
    majority = data.column(CRITERION, MAJORITY, units)
    reference = [data.adjudications.get(u, m) for u, m in zip(units, majority, strict=True)]
    columns: list[tuple[str, str, Sequence[Hashable | None]]] = [
        (h, "physician", data.column(CRITERION, h, units)) for h in humans
    ]
    if humans:
        columns.append((MAJORITY, "majority", majority))
        columns.append((REFERENCE_RATER, "reference", reference))
    columns += [(j, "judge", data.column(CRITERION, j, units)) for j in judges]
    raters: list[RubricRater] = []
    for rater, role, column in columns:
        marks = dict(zip(units, column, strict=True))
        overall: dict[int, float] = {}
        tagged: dict[str, list[float]] = defaultdict(list)
        for item_id, item_units in by_item.items():
            got = _marked(item_units, marks, entries)
            if got is None:
                continue
            whole = score([(m, p) for m, p, _ in got])
            if whole is None:
                continue
            overall[item_id] = whole
            for tag in sorted({t for _, _, tags in got for t in tags}):
                part = score([(m, p) for m, p, tags in got if tag in tags])
                if part is not None:
                    tagged[tag].append(part)
        by_source: dict[str, list[float]] = defaultdict(list)
        for item_id, value in overall.items():
            sources = data.units[by_item[item_id][0]].sources
            by_source[sources[0] if sources else ""].append(value)
        raters.append(
            RubricRater(
                rater=rater,
                role=role,
                scored=len(overall),
                answers=len(by_item),
                overall=mean(list(overall.values()), "all"),
                by_source=[mean(by_source[s], s) for s in sorted(by_source)],
                by_tag=[mean(tagged[t], t) for t in sorted(tagged)],
            )
        )
    graders = _graders(
        units,
        entries,
        dict(zip(units, reference, strict=True)),
        {h: dict(zip(units, c, strict=True)) for h, role, c in columns if role == "physician"},
        {j: dict(zip(units, c, strict=True)) for j, role, c in columns if role == "judge"},
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )
    return RubricSection(answers=len(by_item), criteria=len(units), raters=raters, graders=graders)


def _macro_f1(
    pairs: Sequence[tuple[Hashable, Hashable]], *, n_boot: int, seed: int, confidence: float
) -> Figure:
    """Macro F1 over met / not met of the second mark against the first (the reference)."""
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for truth, guess in pairs:
        counts[MARKS.index(str(truth)), MARKS.index(str(guess))] += 1
    cells = [(i, j, c) for (i, j), c in sorted(counts.items())]
    got = classification_of_cells(
        cells, list(MARKS), n_boot=n_boot, seed=seed, confidence=confidence
    )
    fields = figure_fields(got.macro_f1)
    if not pairs:
        fields["reason"] = "no criterion marked by both"
    return Figure(**fields)


def _graders(
    units: Sequence[int],
    entries: Mapping[int, JsonObject],
    reference: Mapping[int, Hashable | None],
    physicians: Mapping[str, Mapping[int, Hashable | None]],
    judges: Mapping[str, Mapping[int, Hashable | None]],
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> list[RubricGrader]:
    """Each judge's macro F1 against the reference, overall and per tag, and each pair of
    physicians' on the criteria that judge marked too (see the module)."""

    def tags_of(u: int) -> list[str]:
        tags = entries.get(u, {}).get("tags")
        return [str(t) for t in tags] if isinstance(tags, list) else []

    def marked(m: Mapping[int, Hashable | None], u: int) -> bool:
        return str(m.get(u)) in MARKS

    groups: list[tuple[str, list[int]]] = [("all", list(units))]
    for tag in sorted({t for u in units for t in tags_of(u)}):
        groups.append((tag, [u for u in units if tag in tags_of(u)]))
    out: list[RubricGrader] = []
    for judge, marks in judges.items():
        for tag, group in groups:
            mine = [u for u in group if marked(marks, u)]
            vs_ref = [(reference[u], marks[u]) for u in mine if marked(reference, u)]
            pairs: list[PairF1] = []
            for a, b in combinations(sorted(physicians), 2):
                ma, mb = physicians[a], physicians[b]
                both = [(ma[u], mb[u]) for u in mine if marked(ma, u) and marked(mb, u)]
                pairs.append(
                    PairF1(
                        rater_a=a,
                        rater_b=b,
                        macro_f1=_macro_f1(both, n_boot=n_boot, seed=seed, confidence=confidence),
                    )
                )
            out.append(
                RubricGrader(
                    judge=judge,
                    tag=tag,
                    macro_f1=_macro_f1(vs_ref, n_boot=n_boot, seed=seed, confidence=confidence),
                    physician_pairs=pairs,
                )
            )
    return out


def _marked(
    units: list[int], marks: Mapping[int, Hashable | None], entries: Mapping[int, JsonObject]
) -> list[tuple[str, float, list[str]]] | None:
    """Each criterion's (mark, points, tags) of one answer; None unless all are marked."""
    out = []
    for u in units:
        mark, entry = marks.get(u), entries.get(u)
        if mark is None or entry is None:
            return None
        points = entry.get("points")
        if not isinstance(points, (int, float)):
            return None
        tags = entry.get("tags")
        out.append((str(mark), float(points), [str(t) for t in tags or []]))
    return out
