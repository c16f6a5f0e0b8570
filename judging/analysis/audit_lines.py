"""The judge audit as one line per figure, for the app's overview: what the overview shows
of the report's corrected figures (:mod:`.audit`) — each figure judge only, physicians only and
corrected, with intervals — and, for a withheld criterion, why.

:func:`study_audit_lines` reads a study on the caller's connection (the overview calls it in a
thread worker, on a connection of its own) and returns None when the study has no recorded
random sample, so the overview shows nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from medjudge.judging.analysis.audit import audit_section
from medjudge.judging.analysis.records import Figure
from medjudge.judging.analysis.records_audit import AuditMeans, AuditSection, AuditShares
from medjudge.judging.analysis.study_data import load_study_data
from medjudge.store.samples import recorded_samples
from medjudge.store.study import Study


@dataclass(frozen=True)
class AuditLine:
    """One corrected figure, or a withheld criterion (``withheld`` set, no figures).

    Attributes:
        criterion: the criterion.
        figure: what is measured: ``model-x win``, ``model-x − model-y win``,
            ``model-x mean_score``.
        judge: the judge's figure on every unit.
        physicians: the reference labels' on the sampled units.
        corrected: PPI++ from both.
        percent: shares (shown as percentages).
        withheld: why the criterion has no figures.
    """

    criterion: str
    figure: str
    judge: Figure | None = None
    physicians: Figure | None = None
    corrected: Figure | None = None
    percent: bool = False
    withheld: str | None = None


def _line(criterion: str, figure: str, f: AuditShares | AuditMeans, pct: bool) -> AuditLine:
    return AuditLine(criterion, figure, f.judge_only, f.physicians_only, f.corrected, pct)


def audit_lines(section: AuditSection) -> list[AuditLine]:
    """The section's figures, one line each, in the report's order."""
    out = []
    for c in section.criteria:
        if c.withheld:
            out.append(AuditLine(c.criterion, "", withheld=c.withheld))
            continue
        for s in c.sources:
            for outcome in ("win", "tie", "loss"):
                out.append(_line(c.criterion, f"{s.source} {outcome}", getattr(s, outcome), True))
        for d in c.differences:
            figure = f"{d.source_a} − {d.source_b} win"
            out.append(_line(c.criterion, figure, d.win_difference, False))
        for r in c.means:
            pct = r.metric == "comprehensiveness"
            out.append(_line(c.criterion, f"{r.source} {r.metric}", r.figures, pct))
        for m in c.mean_differences:
            figure = f"{m.source_a} − {m.source_b} {m.metric}"
            out.append(_line(c.criterion, figure, m.figures, False))
    return out


def study_audit_lines(
    study: Study, *, confidence: float = 0.95, target: float = 0.05
) -> list[AuditLine] | None:
    """The study's corrected figures as lines; None without a recorded random sample."""
    if not recorded_samples(study):
        return None
    section = audit_section(study, load_study_data(study), confidence=confidence, target=target)
    return None if section is None else audit_lines(section)
