"""Consensus beyond the majority: a Dawid–Skene model per criterion with three or more reviewers.

For each criterion that three or more reviewers labelled, the reviewers' current labels are fed
to :func:`~medjudge.judging.stats.dawid_skene.dawid_skene` on the criterion's declared label set
(the observed labels for option sets). The report shows each reviewer's estimated accuracy and
confusion matrix over the labels reviewers gave (a declared label nobody gave is no class of the
model: no row, column or prior share), and where the model's consensus differs from the strict majority of the
reviewers — a unit without a strict majority that the model settles counts apart. Judges are
not part of the model: the consensus is the physicians' reference the judges are compared to.
"""

from __future__ import annotations

from medjudge import kinds
from medjudge.judging.analysis.records import (
    ConsensusExample,
    ConsensusMethod,
    ConsensusRow,
)
from medjudge.judging.analysis.study_data import StudyData, strict_majority
from medjudge.judging.analysis.views import criterion_categories
from medjudge.judging.stats.dawid_skene import dawid_skene

MIN_REVIEWERS = 3
MAX_LISTED = 20
"""At most this many differing units are listed by name per criterion."""


def consensus(data: StudyData) -> list[ConsensusRow]:
    """One record per criterion with at least :data:`MIN_REVIEWERS` reviewers.

    Each record: ``criterion``, ``reviewers``, ``categories``, ``n_units`` (units with a label),
    ``method`` (the model's conventions and whether it converged), ``accuracy`` and
    ``confusion`` per reviewer, ``differs`` (units with a strict majority whose consensus is
    another label), ``settled`` (units without a strict majority), and ``examples``: up to
    :data:`MAX_LISTED` differing units (``unit``, ``majority``, ``consensus``).
    """
    out: list[ConsensusRow] = []
    for criterion in data.criteria():
        humans = data.raters(criterion, "human")
        if len(humans) < MIN_REVIEWERS:
            continue
        units = data.labelled_units(criterion)
        columns = {h: data.column(criterion, h, units) for h in humans}
        triples = [
            (u, h, str(v))
            for h in humans
            for u, v in zip(units, columns[h], strict=True)
            if v is not None
        ]
        if not triples:
            continue
        counted = criterion_categories(data, criterion).values
        observed = sorted({t[2] for t in triples})
        cats = [str(c) for c in counted] if counted is not None else observed
        cats += [c for c in observed if c not in cats]  # an undeclared value still counts
        model = dawid_skene(triples, cats, seed=data.settings.seed)
        by_unit = dict(zip(model.units, model.consensus, strict=True))
        differs, settled = 0, 0
        examples: list[ConsensusExample] = []
        for i, u in enumerate(units):
            if u not in by_unit:
                continue
            maj = strict_majority(columns[h][i] for h in humans)
            if maj is None:
                settled += 1
            elif str(maj) != by_unit[u]:
                differs += 1
                if len(examples) < MAX_LISTED:
                    info = data.units[u]
                    name = f"{info.item}/{criterion}"
                    if info.entry is not None:
                        name += f"/{kinds.get(info.kind).listed_name} {info.entry}"
                    examples.append(
                        ConsensusExample(unit=name, majority=str(maj), consensus=by_unit[u])
                    )
        accuracy = model.accuracy
        out.append(
            ConsensusRow(
                criterion=criterion,
                reviewers=humans,
                categories=list(model.categories),  # the labels used: the model's classes
                n_units=len(by_unit),
                method=ConsensusMethod(
                    name="majority vote (Dawid-Skene EM did not converge)"
                    if model.fallback
                    else "Dawid-Skene (EM)",
                    start=model.start,
                    starts=model.starts,
                    converged_starts=model.converged_starts,
                    alpha=model.alpha,
                    tol=model.tol,
                    max_iter=model.max_iter,
                    seed=model.seed,
                    iterations=model.iterations,
                    converged=model.converged,
                    fallback=model.fallback,
                    log_likelihood=model.log_likelihood,
                    description=model.describe(),
                ),
                accuracy={h: accuracy[h] for h in humans},
                confusion={h: model.confusion_of(h) for h in humans},
                prior=dict(zip(model.categories, (float(x) for x in model.prior), strict=True)),
                differs=differs,
                settled=settled,
                examples=examples,
                unused=list(model.unused),
            )
        )
    return out
