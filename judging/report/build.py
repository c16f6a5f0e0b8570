"""The study report: every figure of a study, read once into the typed :class:`.model.Report`.

:func:`build_report` reads a study (read-only) and validates the result into the model: no
NaN or infinity anywhere (an undefined figure is ``null`` with a ``reason``), every figure
with its ``n``, no field the model does not declare. :func:`render` writes it as ``md`` or
``html`` (the Jinja2 templates in ``templates/``), ``json`` (the model's dump, keys in the
model's order) or ``csv`` (:mod:`.render.csv`). Text from the study (item ids, rater,
criterion and model names) is kept raw in the model and escaped by each format.

Sections: ``study``, ``protocol`` (judges, templates with hashes, orders, voting rules,
statistics), ``effort`` (judge calls, tokens, cost; reviewer time), ``criteria`` (per
criterion: raters, counts and ``comparisons``, see :func:`.views.criterion_comparisons`),
``adjudication``, ``consistency``, ``judges`` (every judge version side by side),
``alt_test`` (the alternative annotator test of each judge version, per criterion),
``anchoring``, ``consensus``, ``gold``, ``exclusions``, ``retired`` (items retired with
``medjudge retire``: in no figure, listed; absent when none is), ``audit`` (corrected figures
from a random physician sample; left out without a sample) and ``notes``; and each kind's own
sections (``win_rates``, ``kqa``, ``ratings``, ``medrgb``, ``rubric``, ``ranking``:
:mod:`.kind_sections`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import version as _package_version

from medjudge import kinds
from medjudge.judging.analysis.alt_tests import AltTestOptions, alt_tests
from medjudge.judging.analysis.anchoring import anchoring
from medjudge.judging.analysis.audit import audit_section
from medjudge.judging.analysis.consensus import consensus
from medjudge.judging.analysis.consistency import judge_consistency
from medjudge.judging.analysis.exclusions import exclusions, retired
from medjudge.judging.analysis.gold import gold_accuracy
from medjudge.judging.analysis.headline import headline_judge
from medjudge.judging.analysis.judge_versions import judges_section
from medjudge.judging.analysis.ledger import per_item_effort
from medjudge.judging.analysis.metrics import BENEFIT_NOTE, RISK_NOTE
from medjudge.judging.analysis.records import record, records
from medjudge.judging.analysis.study_data import (
    MAJORITY,
    StudyData,
    load_study_data,
)
from medjudge.judging.analysis.views import (
    ViewOptions,
    criterion_categories,
    criterion_comparisons,
    reference_comparisons,
    unresolved_disagreements,
)
from medjudge.judging.stats.conventions import INTERVAL_METHODS, STATISTICS
from medjudge.judging.stats.estimates import N_BOOT
from medjudge.store import reads
from medjudge.store.study import Study

from .kind_sections import SectionInputs, figures_sections, kind_sections
from .model import (
    AdjudicationRow,
    AdjudicationSection,
    CallTotals,
    CriterionSection,
    Effort,
    JudgeCallTotals,
    Notes,
    Protocol,
    Report,
    ReviewerTime,
    StudyInfo,
    report_model,
)

FORMATS = ("md", "html", "json", "csv")

VOTING_RULES = [
    "Pairwise: every prompt is rendered in order AB (answer A shown first) and order BA "
    "(swapped); BA votes are mapped back to the item's own answers (tie and neither stay).",
    "Per order, the verdict held by a strict majority of the valid samples wins; without one: "
    "tie if tie is among the votes, else neither if it is among them, else the criterion's "
    "null verdict (tie for benefit criteria, neither for risk criteria); both tie and neither "
    "present gives the null verdict.",
    "A sample that cannot be parsed (after bounded retries) is a failed sample and never "
    "votes; an order with no valid sample makes the verdict missing (never a tie).",
    "AB = BA gives that verdict; AB ≠ BA gives the null verdict and counts as a position "
    "inconsistency.",
    "Panel of several judge models: all equal gives that verdict, otherwise the null verdict "
    "(conservative) or the plurality (if so configured).",
    "Statements: strict majority of the samples' labels (entailed / neutral / contradicted), "
    "else neutral; in the K-QA protocol each sample asks 'entails?' and 'contradicts?' and "
    "a yes to 'contradicts' wins.",
    "Ratings: the median of the samples (lower median for an even count); an options "
    "criterion keeps each option named by a strict majority of samples.",
]


@dataclass(frozen=True)
class ReportOptions:
    """How the report's intervals are computed.

    Attributes:
        n_boot: Bootstrap resamples.
        seed: Bootstrap seed; None uses the study's own seed setting.
        confidence: Confidence level.
        slices: Include sliced views (batch, answer source, statement category).
        project_items: Project reviewer time and judge cost for this many more items.
        by: Item metadata fields to slice every figure by (``report --by``).
        target_halfwidth: The half-width the corrected figures' "labels needed" aims at
            (``report --target-halfwidth``).
        alt_test: The alternative annotator test's ε, q and items per physician
            (``report --epsilon --fdr-q --alt-test-min-items``).
    """

    n_boot: int = N_BOOT
    seed: int | None = None
    confidence: float = 0.95
    slices: bool = True
    project_items: int = 100
    by: tuple[str, ...] = ()
    target_halfwidth: float = 0.05
    alt_test: AltTestOptions = AltTestOptions()


def judge_orders(data: StudyData) -> list[str]:
    """The orders the study's kinds ask a judge in (pairwise ``AB``, ``BA``; a ranking's
    rotations), each once, in the registry's order; none for kinds asked in one order."""
    present = [k for k in kinds.KINDS.values() if data.items_by_kind.get(k.name)]
    found = [o for k in present if k.judge is not None for o in k.judge.orders if o]
    return list(dict.fromkeys(found))


def protocol_section(study: Study, data: StudyData, opts: ViewOptions) -> Protocol:
    """Judges with their settings and templates (with hashes), the voting rules, statistics."""
    templates = reads.template_usage(study)
    judges = []
    for name, config in reads.judge_configs(study):
        judges.append(
            {
                "name": name,
                "panel": "panel" in config or name.startswith("panel:"),
                "provider": config.get("provider"),
                "model": config.get("model"),
                "samples": config.get("samples"),
                "temperature": config.get("temperature"),
                "max_tokens": config.get("max_tokens"),
                "statements_protocol": config.get("statements_protocol"),
                "members": config.get("panel"),
                "panel_rule": config.get("rule"),
                "templates": templates.get(name, []),
                "verdicts": len(data.verdicts_of(name)),
            }
        )
    return record(
        Protocol,
        {
            "judges": judges,
            "orders": judge_orders(data),
            "voting_rules": VOTING_RULES,
            "statistics": STATISTICS,
            "intervals": {
                "methods": INTERVAL_METHODS,
                "n_boot": opts.n_boot,
                "seed": opts.seed,
                "confidence": opts.confidence,
            },
            "blind_review": study.settings.blind,
        },
    )


def effort_section(study: Study, project_items: int) -> Effort:
    """Judge calls, tokens, cost and latency (sums of ``judge_calls``); reviewer time."""
    total_calls, by_judge = reads.call_totals_all(study)
    total = total_calls._asdict()
    per_judge = [{"judge": judge, **t._asdict()} for judge, t in by_judge.items()]
    reviewers = [
        ReviewerTime(
            reviewer=r.reviewer,
            seconds=r.seconds,
            items=r.items,
            visits=r.visits,
            labels=r.labels,
            seconds_per_item=r.seconds / r.items if r.items else None,
        )
        for r in reads.reviewer_times(study)
    ]
    return Effort(
        judge_calls=record(
            CallTotals,
            {**total, "cost_usd": float(total["cost_usd"]), "latency_s": float(total["latency_s"])},
        ),
        per_judge=records(JudgeCallTotals, per_judge),
        reviewers=reviewers,
        review_seconds=sum(r.seconds for r in reviewers),
        per_item=per_item_effort(study, project_items),
    )


def criterion_section(data: StudyData, criterion: str, opts: ViewOptions) -> CriterionSection:
    """One criterion: its definition, raters, counts and every agreement view."""
    crit = data.criterion(criterion)
    units = data.labelled_units(criterion)
    m = data.labels.get(criterion)
    cats = criterion_categories(data, criterion)
    section = {
        "name": criterion,
        "kind": data.kind_of(criterion),
        "question": crit.question if crit else None,
        "polarity": crit.polarity if crit else None,
        "ordinal": bool(crit and crit.ordinal),
        "scale": crit.level if crit is not None else "nominal",
        "categories": cats.values,
        "categories_declared": cats.declared,
        "categories_extra": cats.extra,
        "categories_note": cats.note(criterion),
        "n_units_total": len(data.units_by_criterion.get(criterion, [])),
        "n_units": len(m.units()) if m is not None else 0,
        "n_labels": len(m) if m is not None else 0,
        "reviewers": data.raters(criterion, "human"),
        "judges": data.raters(criterion, "judge"),
        "headline_judge": headline_judge(
            {j: m.count(j) for j in data.raters(criterion, "judge")} if m is not None else {},
            data.settings.headline_judge,
        ),
        "adjudicated": sum(u in data.adjudications for u in units),
        "unresolved": unresolved_disagreements(data, criterion),
        "comparisons": [],
    }
    # the comparisons are records already: only the plain fields need checking
    return record(CriterionSection, section).model_copy(
        update={"comparisons": criterion_comparisons(data, criterion, opts)}
    )


def adjudication_section(data: StudyData, opts: ViewOptions) -> AdjudicationSection:
    """Each rater vs the adjudicated reference, and the unresolved disagreements."""
    rows = []
    for criterion in data.criteria():
        units = data.labelled_units(criterion)
        rows.append(
            AdjudicationRow(
                criterion=criterion,
                adjudicated=sum(u in data.adjudications for u in units),
                unresolved=unresolved_disagreements(data, criterion),
                comparisons=reference_comparisons(data, criterion, opts),
            )
        )
    return AdjudicationSection(
        definition="accuracy = percent agreement with the latest adjudication of each unit; "
        "κ = Cohen's κ against it; unresolved = units where the current labels of "
        "two or more raters differ and no adjudication exists",
        adjudicated_total=len(data.adjudications),
        unresolved_total=sum(r.unresolved for r in rows),
        criteria=rows,
    )


def build_report(
    study: Study, options: ReportOptions | None = None, *, now: datetime | None = None
) -> Report:
    """Every figure of a study's report, as the typed :class:`.model.Report`.

    Args:
        study: the open study (read only).
        options: interval settings.
        now: the generation time to record (default: now, UTC).

    Returns:
        The report: its JSON has no NaN or infinity (an undefined figure is null with a
        reason), and every figure its n.
    """
    options = options or ReportOptions()
    seed = study.settings.seed if options.seed is None else options.seed
    opts = ViewOptions(
        n_boot=options.n_boot,
        seed=seed,
        confidence=options.confidence,
        slices=options.slices,
        by=options.by,
    )
    data = load_study_data(study)
    when = (now or datetime.now(UTC)).astimezone(UTC)
    units_by_kind = data.units.kind_counts()
    inputs = SectionInputs(study, data, options.n_boot, seed, options.confidence)
    own = {s.key: s.build(inputs) for s in kind_sections()}
    return report_model()(
        format="medjudge-report",
        version=1,
        generated_at=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        medjudge_version=_package_version("medjudge"),
        study=StudyInfo(
            name=data.name,
            file=study.path.name,
            items=data.items_by_kind,
            units=units_by_kind,
            kqa_questions=data.kqa_questions,
        ),
        protocol=protocol_section(study, data, opts),
        effort=effort_section(study, options.project_items),
        criteria=[criterion_section(data, c, opts) for c in data.criteria()],
        adjudication=adjudication_section(data, opts),
        consistency=judge_consistency(data, options.confidence),
        judges=judges_section(study, data, options.confidence),
        alt_test=alt_tests(data, replace(options.alt_test, seed=seed)),
        anchoring=anchoring(study, options.confidence),
        consensus=consensus(data),
        gold=gold_accuracy(study, data, options.confidence),
        exclusions=exclusions(data, figures_sections()),
        retired=retired(data),
        audit=audit_section(
            study, data, confidence=options.confidence, target=options.target_halfwidth
        ),
        notes=Notes(
            majority=f"'{MAJORITY}': the label held by more than half of the reviewers who "
            "labelled the unit",
            benefit=BENEFIT_NOTE,
            risk=RISK_NOTE,
            undefined="an undefined figure is null with a reason (e.g. only one category "
            "used, so chance agreement is 1 and κ is 0/0)",
        ),
        **own,
    )


def render(report: Report, fmt: str) -> str:
    """Render a report in one format: ``md``, ``html``, ``json`` or ``csv``.

    Raises:
        ValueError: unknown format.
    """
    if fmt == "json":
        from medjudge.judging.report.render.json import json_chunks

        return "".join(json_chunks(report))
    if fmt == "md":
        from medjudge.judging.report.templating import render_template

        return render_template("report.md.j2", report)
    if fmt == "html":
        from medjudge.judging.report.templating import render_template

        return render_template("report.html.j2", report)
    if fmt == "csv":
        from medjudge.judging.report.render.csv import render_csv

        return render_csv(report)
    raise ValueError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")
