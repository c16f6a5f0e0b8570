"""The report as Markdown: tables to paste into a paper or a pull request.

Study text (item ids, rater, criterion and model names) is shown literally: control and
bidi characters become visible escapes (:func:`medjudge.store.literal.printable`), line breaks
become spaces, and Markdown's active characters (``|`` and backticks among them) are
backslash-escaped, so a name can neither break a table nor turn into markup or HTML.

The tables themselves (columns and rows) are defined in :mod:`.report_tables`; this module
formats their cells and writes the prose around them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from medjudge.store.literal import plural, printable

from . import cells as rc
from . import judge_tables as jt
from . import section_tables as st
from . import tables as tb
from . import text as rt

_ACTIVE = re.compile(r"([\\`|*\[\]<>#&~!])")
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md(text: object) -> str:
    """Study text made literal for a Markdown table cell or line."""
    t = printable("" if text is None else str(text))
    t = " ".join(t.replace("\r", " ").replace("\n", " ").replace("\t", " ").split(" "))
    t = _ACTIVE.sub(r"\\\1", t)
    return _UNDERSCORE.sub(r"\\_", t)


def _share(s: dict[str, Any] | None) -> str:
    if s is None:
        return "–"
    if s.get("value") is None:
        return rt.est(s)
    return f"{s['count']:,}/{s['n']:,} = {rt.est(s, pct=True)}"


def _est(e: dict[str, Any] | None, pct: bool, note: str | None) -> str:
    text = rt.est(e, pct=pct)
    return f"{text} ({note})" if note else text


STYLE = rc.Style("md", text=md, code=md, est=_est, share=_share)
"""Markdown cells: study text escaped by :func:`md`, estimates as ``0.61 [0.52, 0.70]``."""


def grid(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured Markdown table (cells must already be escaped)."""
    if not rows:
        return ["_(none)_", ""]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def table(t: rc.Table) -> list[str]:
    """A :class:`.report_cells.Table` as Markdown lines (full header wording)."""
    return grid(t.header, [[STYLE.cell(c) for c in row] for row in t.rows])


def _summary(report: dict[str, Any]) -> list[str]:
    return [
        "## Summary",
        "",
        *table(tb.summary(report)),
        "Reviewers vs judge: the reviewers' majority (or the single reviewer) against the first "
        "judge by name. 95% intervals in brackets.",
        "",
    ]


def _protocol(report: dict[str, Any]) -> list[str]:
    p = report["protocol"]
    out = []
    for t in (st.judges(p), st.templates(p)):
        out += [f"### {t.title}", "", *table(t)]
    out += ["### Orders and voting rules", "", "Orders: " + ", ".join(p["orders"]) + ".", ""]
    out += [f"- {rule}" for rule in p["voting_rules"]] + [""]
    iv = p["intervals"]
    out += ["### Statistics", ""] + [f"- {s}" for s in p["statistics"]]
    out += [
        f"- Bootstrap: {iv['n_boot']:,} resamples, seed {iv['seed']}, "
        f"confidence {iv['confidence']:.0%}.",
        f"- Blind review: {'yes' if p.get('blind_review') else 'no'}.",
        "",
    ]
    return ["## Protocol", "", *out]


def _effort(report: dict[str, Any]) -> list[str]:
    e = report["effort"]
    t = e["judge_calls"]
    out = [
        "## Effort",
        "",
        f"Judge calls: {t['calls']:,} ({t['ok']:,} ok, {t['failed']:,} failed samples, "
        f"{t['errors']:,} errors); tokens: {t['input_tokens']:,} in, {t['output_tokens']:,} "
        f"out; cost {rt.money(t['cost_usd'])}; summed latency {rt.duration(t['latency_s'])}.",
        f"Reviewer time: {rt.duration(e['review_seconds'])}.",
        "",
    ]
    out += table(st.judge_effort(e)) + table(st.reviewer_effort(e))
    out += [md(rt.per_item_note(e["per_item"])), ""]
    return out + table(st.per_item_reviewers(e)) + table(st.per_item_judges(e))


def _confusion(r: dict[str, Any]) -> list[str]:
    conf = r.get("confusion")
    if not conf or not conf["categories"]:
        return []
    cats = [md(x) for x in conf["categories"]]
    rows = [[f"**{cats[i]}**", *[str(v) for v in row]] for i, row in enumerate(conf["matrix"])]
    title = f"{md(r['rater_a'])} (rows) vs {md(r['rater_b'])} (columns), n = {r['n']:,}"
    return [f"Confusion: {title}", "", *grid(["", *cats], rows)]


def _criterion(c: dict[str, Any]) -> list[str]:
    out = [f"### {md(rt.criterion_title(c))}", ""]
    if c.get("question"):
        out += [f"> {md(c['question'])}", ""]
    out += [
        f"Units labelled: {c['n_units']:,} of {c['n_units_total']:,} ({c['n_labels']:,} "
        f"labels). Reviewers: {md(', '.join(c['reviewers'])) or 'none'}. Judges: "
        f"{md(', '.join(c['judges'])) or 'none'}.",
        "",
    ]
    if c["kind"] == "pairwise":
        out += ["With ties:", "", *table(tb.comparisons(c, tb.comparison_records(c, "with")))]
        out += ["Without ties (units where either side said tie dropped):", ""]
        out += table(tb.comparisons(c, tb.comparison_records(c, "without")))
    else:
        out += table(tb.comparisons(c, tb.comparison_records(c, None)))
    multi = next((r for r in c["comparisons"] if r["view"] == "reviewers"), None)
    if multi is not None:
        out += [md(multi["units_note"]), ""]
        out += table(tb.reviewer_figures(multi))
    scores = tb.judge_scores(c)
    if scores.rows:
        out += table(scores)
    sliced = tb.slices(c)
    if sliced.rows:
        out += ["Slices:", "", *table(sliced)]
    for r in tb.confusion_records(c):
        out += _confusion(r)
    return out


def _adjudication(report: dict[str, Any]) -> list[str]:
    a = report["adjudication"]
    out = [
        "## Each rater vs the adjudicated reference",
        "",
        f"Adjudicated units: {a['adjudicated_total']:,}. Unresolved disagreements: "
        f"{a['unresolved_total']:,}. Definitions: {md(a['definition'])}.",
        "",
    ]
    return out + table(st.adjudicated(report)) + table(st.reference(report))


def _win_rates(report: dict[str, Any]) -> list[str]:
    if not report["win_rates"]:
        return []
    out = ["## Win rates (pairwise)", ""]
    out += [f"- {md(crit)}: {md(note)}" for crit, note in st.win_notes(report)] + [""]
    return out + table(st.win_rates(report))


def _kqa(report: dict[str, Any]) -> list[str]:
    k = report.get("kqa")
    if not k:
        return []
    n_all = k["questions_all"]
    out = [
        "## K-QA metrics (statements)",
        "",
        "Comprehensiveness = entailed Must_have / labelled Must_have statements; "
        "hallucinations = contradicted statements per answer. 'All questions' divides by "
        + (
            f"the {n_all:,} K-QA reference questions"
            if n_all
            else "the number of answers of that model"
        )
        + " (unanswered or unlabelled count as 0). Answers that decline to answer (e.g. "
        "'insufficient information') are abstentions: counted apart, not scored, and 0 in "
        "'all questions'. Per-answer figures are in the JSON and CSV reports.",
        "",
    ]
    return out + table(st.kqa(k))


def _medrgb(report: dict[str, Any]) -> list[str]:
    m = report.get("medrgb")
    if not m:
        return []
    out = ["## MedRGB: predictions against the ground truth", "", rt.MEDRGB_NOTE, ""]
    out += [
        f"{plural(m['predictions'], 'prediction')}, {plural(m['abstentions'], 'abstention')}.",
        "",
    ]
    return out + table(st.medrgb(m)) + table(st.medrgb_abstentions(m))


def _judges(report: dict[str, Any]) -> list[str]:
    judges = report.get("judges")
    if not judges or not judges["versions"]:
        return []
    out = ["## Judge versions", ""] + [f"- {md(d)}" for d in judges["definitions"]] + [""]
    for t in jt.tables(report):
        out += [f"### {md(t.title)}", "", *table(t)]
    return out


def render_markdown(report: dict[str, Any]) -> str:
    """The whole report as one Markdown document."""
    study = report["study"]
    items = ", ".join(f"{v:,} {k}" for k, v in study["items"].items()) or "no items"
    out = [
        f"# Agreement report: {md(study['name'])}",
        "",
        f"Study file {md(study['file'])} ({items}). Generated {report['generated_at']} by "
        f"medjudge {md(report['medjudge_version'])}.",
        "",
    ]
    out += _summary(report)
    out += ["## Agreement by criterion", ""]
    for c in report["criteria"]:
        out += _criterion(c)
    out += _adjudication(report)
    out += ["## Judge self-consistency", "", *table(st.consistency(report))]
    out += _judges(report)
    out += ["## Anchoring", "", md(rt.ANCHORING_NOTE), "", *table(st.anchoring(report))]
    if report["gold"]:
        out += ["## Gold items", "", md(rt.GOLD_NOTE), "", *table(st.gold(report))]
    if report["consensus"]:
        out += ["## Consensus beyond the majority (Dawid–Skene)", "", md(rt.CONSENSUS_NOTE), ""]
        for rec in report["consensus"]:
            out += [md(rt.consensus_line(rec)), "", *table(st.consensus_accuracy(rec))]
    out += _win_rates(report) + _kqa(report) + _medrgb(report)
    if report["ratings"]:
        out += ["## Rating means", "", *table(st.ratings(report["ratings"]))]
    out += _protocol(report) + _effort(report)
    out += ["## Notes", ""] + [f"- {md(v)}" for v in report["notes"].values()] + [""]
    return "\n".join(out)
