"""The ranking kind's report section: how far the physicians' rankings agree (Kendall's W per
item), how often each pair of raters orders two answers alike, and each model's mean rank by
rater — in every report format (JSON ``ranking``, Markdown, HTML, CSV ``ranking``).

Loaded by the report only (:mod:`medjudge.judging.report.kind_sections`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from medjudge.judging.analysis import audit_forms
from medjudge.judging.analysis.records import Figure, KeyedFigure, Record
from medjudge.judging.report.cells import Count, Est, Label, Table, Text, make_columns, make_table
from medjudge.judging.report.kind_sections import KindSection, SectionInputs
from medjudge.judging.stats.bootstrap import mean_bca
from medjudge.judging.stats.estimates import Estimate

from .agreement import kendall_w, pairs_alike
from .model import KIND, ranks

NO_ITEMS = "no item ranked by two physicians"


class RankingPair(Record):
    """Two raters: the mean share of answer pairs they order alike, over the items both
    ranked."""

    rater_a: str
    rater_b: str
    alike: Figure


class RankingRater(Record):
    """One rater's mean rank of each model's answers (1 = best)."""

    rater: str
    role: str
    """``physician`` or ``judge``."""
    by_source: list[KeyedFigure]


class RankingCriterion(Record):
    """The figures of one ranking criterion."""

    criterion: str
    items: int
    """Items with at least one ranking."""
    kendall_w: Figure
    """The physicians' concordance: Kendall's W of each item ranked by two or more of them,
    averaged over those items."""
    pairs: list[RankingPair]
    raters: list[RankingRater]


class RankingSection(Record):
    """Ranking items: agreement between rankers and each model's mean rank."""

    criteria: list[RankingCriterion]


def build(inputs: SectionInputs) -> RankingSection | None:
    """The section's figures (None: no ranking criterion has a label)."""
    data = inputs.data

    def mean(values: list[float], empty: str) -> Estimate:
        return mean_bca(
            values,
            n_boot=inputs.n_boot,
            seed=inputs.seed,
            confidence=inputs.confidence,
            empty=empty,
        )

    out = []
    for crit in data.settings.criteria_for(KIND.name):
        units = list(data.labelled_units(crit.name))
        if not units:
            continue
        humans = data.raters(crit.name, "human")
        judges = data.raters(crit.name, "judge")
        columns = {r: data.column(crit.name, r, units) for r in (*humans, *judges)}
        per_item_w = []
        for i in range(len(units)):
            given = [str(columns[h][i]) for h in humans if columns[h][i] is not None]
            w = kendall_w(given)
            if w is not None:
                per_item_w.append(w)
        pairs = []
        for a, b in itertools.combinations((*humans, *judges), 2):
            shares = []
            for x, y in zip(columns[a], columns[b], strict=True):
                if x is None or y is None:
                    continue
                alike, of = pairs_alike(str(x), str(y))
                if of:
                    shares.append(alike / of)
            pairs.append(
                RankingPair(
                    rater_a=a, rater_b=b, alike=Figure.of(mean(shares, "no item ranked by both"))
                )
            )
        raters = []
        for rater in (*humans, *judges):
            by_source: dict[str, list[float]] = {}
            for u, value in zip(units, columns[rater], strict=True):
                if value is None:
                    continue
                sources = data.units[u].sources
                for letter, rank in ranks(str(value)).items():
                    slot = KIND.source_positions.index(letter)
                    if slot < len(sources) and sources[slot]:
                        by_source.setdefault(sources[slot], []).append(float(rank))
            raters.append(
                RankingRater(
                    rater=rater,
                    role="physician" if rater in humans else "judge",
                    by_source=[
                        KeyedFigure.keyed(src, mean(v, "no ranking"))
                        for src, v in sorted(by_source.items())
                    ],
                )
            )
        out.append(
            RankingCriterion(
                criterion=crit.name,
                items=sum(
                    any(columns[r][i] is not None for r in columns) for i in range(len(units))
                ),
                kendall_w=Figure.of(mean(per_item_w, NO_ITEMS)),
                pairs=pairs,
                raters=raters,
            )
        )
    return RankingSection(criteria=out) if out else None


def notes(section: RankingSection) -> list[str]:
    """What the figures mean."""
    return [
        "A ranking orders every answer of an item from best to worst, without ties. "
        "Kendall's W (1: the physicians ranked alike; 0: no agreement beyond chance) is "
        "computed per item ranked by two or more physicians and averaged over those items. "
        "'Pairs alike' is, per item both raters ranked, the share of answer pairs they put "
        "in the same order, averaged over those items. Mean rank: 1 is best. Intervals: "
        "BCa bootstrap over items (answers for mean ranks)."
    ]


def tables(section: RankingSection) -> list[Table]:
    """Concordance, pairs alike and mean ranks."""
    w = make_table(
        "Physicians' concordance (Kendall's W)",
        make_columns(
            "Criterion",
            "Items ranked",
            "Items with 2+ physicians",
            "Mean W [95% CI]",
            numeric=(1, 2, 3),
        ),
        tuple(
            (Text(c.criterion), Count(c.items), Count(c.kendall_w.n), Est(c.kendall_w))
            for c in section.criteria
        ),
    )
    pairs = make_table(
        "Answer pairs ordered alike, per pair of raters",
        make_columns(
            "Criterion", "Rater A", "Rater B", "Items", "Pairs alike [95% CI]", numeric=(3, 4)
        ),
        tuple(
            (
                Text(c.criterion),
                Text(p.rater_a),
                Text(p.rater_b),
                Count(p.alike.n),
                Est(p.alike, pct=True),
            )
            for c in section.criteria
            for p in c.pairs
        ),
    )
    means = make_table(
        "Mean rank per model (1 = best)",
        make_columns(
            "Criterion", "Rater", "Role", "Model", "Answers", "Mean rank [95% CI]", numeric=(4, 5)
        ),
        tuple(
            (Text(c.criterion), Text(r.rater), Label(r.role), Text(s.key), Count(s.n), Est(s))
            for c in section.criteria
            for r in c.raters
            for s in r.by_source
        ),
    )
    return [w, pairs, means]


def csv_rows(section: RankingSection) -> Iterator[list[str]]:
    """``ranking`` rows: metric ``kendall_w``, ``pairs_alike``, ``mean_rank``."""
    from medjudge.judging.report.render.csv_rows import figure_row

    for c in section.criteria:
        yield figure_row("ranking", c.criterion, "all", None, None, "kendall_w", c.kendall_w)
        for p in c.pairs:
            yield figure_row(
                "ranking", c.criterion, "all", p.rater_a, p.rater_b, "pairs_alike", p.alike
            )
        for r in c.raters:
            for s in r.by_source:
                yield figure_row(
                    "ranking", c.criterion, f"source={s.key}", r.rater, None, "mean_rank", s
                )


AUDIT = audit_forms.NONE
"""The judge audit's form of the kind: not audited (no audit form has a ranking's figures)."""

SECTIONS = (
    KindSection(
        key="ranking",
        title="Rankings",
        record=RankingSection,
        build=build,
        notes=notes,
        tables=tables,
        csv_rows=csv_rows,
    ),
)
"""The kind's report sections."""
