"""Report tables and lines of the judge-audit section (corrected figures): the samples,
each source's win / tie / loss three ways, the paired differences, the figures per answer three
ways (K-QA comprehensiveness and hallucinations, rubric score, match score, mean rating) with
the differences between two sources' answers, and one line per criterion
saying what the figures rest on (or why they are withheld). The Markdown and HTML templates
place them; the CSV writes the same figures as rows (:mod:`.render.csv`)."""

from __future__ import annotations

from medjudge.judging.analysis.records_audit import AuditCriterion, AuditSection, CorrectedFigure

from .cells import Cell, Column, Count, Est, Label, Number, Ratio, Share, Table, Text
from .tables import _cols, _table


def target_text(section: AuditSection) -> str:
    """The target half-width as the tables' headers name it: ``±0.05``."""
    return f"±{section.target_halfwidth:g}"


def samples(section: AuditSection) -> Table:
    """The recorded random samples."""
    columns = _cols(
        "Sample", "Seed", "Drawn", "Inclusion probability", "Batch", "Drawn by", "At",
        numeric=(0, 1, 2, 3),
    )  # fmt: skip
    rows = (
        (
            Count(s.sample),
            Count(s.seed, grouped=False),
            Ratio(s.size, s.frame_size, " of "),
            Number(s.inclusion_probability, 4),
            Text(s.batch or "–"),
            Text(s.drawn_by),
            Text(s.at),
        )
        for s in section.samples
    )
    return _table("Random physician samples", columns, rows)


def _needed(f: CorrectedFigure) -> Cell:
    if f.labels_needed is None:
        return Label(f.labels_needed_note or "–" if f.value is not None else "–")
    if f.labels_needed == 0:
        return Label("0 (reached)")
    return Count(f.labels_needed)


def _basis(f: CorrectedFigure) -> Cell:
    """Physicians' units of all units: ``80/300``."""
    return Ratio(f.n_labelled, f.n_labelled + f.n_judge_only)


def _three_ways(section: AuditSection, basis: str, *, lam: bool = True) -> tuple[Column, ...]:
    """The columns every three-ways table ends with: judge only, physicians only, corrected,
    the physicians' share of ``basis`` (units, answers), λ (when shown) and labels needed."""
    return (
        Column("Judge only", True),
        Column("Physicians only", True),
        Column("Corrected (PPI++)", True, "Corrected"),
        Column(f"Physician labels / {basis}", True, f"Labels / {basis}"),
        *((Column("λ", True),) if lam else ()),
        Column(f"Labels needed for {target_text(section)}", True, "Labels needed"),
    )


def shares(section: AuditSection) -> Table:
    """Each source's win, tie and loss share: judge only, physicians only, corrected."""
    columns = (*_cols("Criterion", "Model", "Outcome"), *_three_ways(section, "units"))
    rows = []
    for c in section.criteria:
        for s in c.sources:
            for outcome, f in (("win", s.win), ("tie", s.tie), ("loss", s.loss)):
                rows.append(
                    (
                        Text(c.criterion),
                        Text(s.source),
                        Label(outcome),
                        Share(f.judge_only),
                        Share(f.physicians_only),
                        Est(f.corrected, pct=True),
                        _basis(f.corrected),
                        Number(f.corrected.lam),
                        _needed(f.corrected),
                    )
                )
    return _table("Win, tie and loss shares: judge only, physicians only, corrected", columns, rows)


def differences(section: AuditSection) -> Table:
    """Each pair of sources' win-share difference on the units where both answered."""
    columns = (
        *_cols("Criterion", "Models (A − B)", "Units", numeric=(2,)),
        *_three_ways(section, "units", lam=False),
    )
    rows = (
        (
            Text(c.criterion),
            Text(f"{d.source_a} − {d.source_b}"),
            Count(d.units),
            Est(d.win_difference.judge_only),
            Est(d.win_difference.physicians_only),
            Est(d.win_difference.corrected),
            _basis(d.win_difference.corrected),
            _needed(d.win_difference.corrected),
        )
        for c in section.criteria
        for d in c.differences
    )
    return _table("Win share of A minus win share of B (paired, same units)", columns, rows)


def means(section: AuditSection) -> Table:
    """Each source's mean figures per answer: judge only, physicians only, corrected."""
    columns = (
        *_cols("Criterion", "Model", "Figure per answer", "Answers", numeric=(3,)),
        *_three_ways(section, "answers"),
    )
    rows = []
    for c in section.criteria:
        for r in c.means:
            f, pct = r.figures, r.metric == "comprehensiveness"
            rows.append(
                (
                    Text(c.criterion),
                    Text(r.source),
                    Label(r.metric),
                    Count(r.answers),
                    Est(f.judge_only, pct=pct),
                    Est(f.physicians_only, pct=pct),
                    Est(f.corrected, pct=pct),
                    _basis(f.corrected),
                    Number(f.corrected.lam),
                    _needed(f.corrected),
                )
            )
    return _table(
        "Figures per answer (K-QA, rubric, match, rating): judge only, physicians only, corrected",
        columns,
        rows,
    )


def mean_differences(section: AuditSection) -> Table:
    """Each pair of sources' difference in a mean figure per answer (different answers)."""
    columns = (
        *_cols("Criterion", "Models (A − B)", "Figure per answer", "Answers", numeric=(3,)),
        *_three_ways(section, "answers", lam=False),
    )
    rows = (
        (
            Text(c.criterion),
            Text(f"{d.source_a} − {d.source_b}"),
            Label(d.metric),
            Ratio(d.answers_a, d.answers_b, " and "),
            Est(d.figures.judge_only),
            Est(d.figures.physicians_only),
            Est(d.figures.corrected),
            _basis(d.figures.corrected),
            _needed(d.figures.corrected),
        )
        for c in section.criteria
        for d in c.mean_differences
    )
    return _table(
        "Mean of A minus mean of B per answer (different answers: independent)", columns, rows
    )


def criterion_line(c: AuditCriterion) -> str:
    """What a criterion's corrected figures rest on, or why they are withheld."""
    if c.withheld:
        return f"{c.criterion}: {c.withheld}."
    text = (
        f"{c.criterion}: judge {c.judge}; {c.population:,} {c.unit} in the sampled frame, "
        f"{c.sampled:,} sampled, {c.labelled:,} with a reference label"
    )
    return text + "".join(f"; {n}" for n in c.notes) + "."


def criterion_lines(section: AuditSection) -> list[str]:
    """One line per criterion (study text inside: the templates escape the whole line)."""
    return [criterion_line(c) for c in section.criteria]
