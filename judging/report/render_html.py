"""The report as one self-contained HTML file: inline CSS and inline SVG charts, no scripts.

No JavaScript, no external fonts, stylesheets, images or links: the file opens offline and a
Content-Security-Policy in the page forbids loading anything. Every text from the study goes
through :func:`.report_svg.esc` (control characters made visible, then HTML-escaped).

The tables (columns and rows) are defined in :mod:`.report_tables` and written by
:func:`.report_html_kit.table`; this module adds the prose, the charts and the page around them.
"""

from __future__ import annotations

from typing import Any

from medjudge.judging.report.html_kit import CSP, CSS, table
from medjudge.judging.report.svg import (
    COLORS,
    ForestRow,
    bars,
    esc,
    forest,
    heatmap,
    lines,
    stacked,
)
from medjudge.store.literal import plural

from . import judge_tables as jt
from . import section_tables as st
from . import tables as tb
from . import text as rt


def _cards(report: dict[str, Any]) -> str:
    e = report["effort"]
    items = sum(report["study"]["items"].values())
    labels = sum(c["n_labels"] for c in report["criteria"])
    reviewers = len(e["reviewers"])
    judges = len(report["protocol"]["judges"])
    a = report["adjudication"]
    cards = [
        *(tuple(plural(n, w).split(" ", 1)) for n, w in ((items, "item"), (labels, "label"))),
        *(
            tuple(plural(n, w).split(" ", 1))
            for n, w in ((reviewers, "reviewer"), (judges, "judge"))
        ),
        (rt.money(e["judge_calls"]["cost_usd"]), "judge cost"),
        (
            f"{e['judge_calls']['input_tokens'] + e['judge_calls']['output_tokens']:,}",
            "judge tokens",
        ),
        (rt.duration(e["review_seconds"]), "reviewer time"),
        (f"{a['unresolved_total']:,}", "unresolved disagreements"),
    ]
    return (
        '<div class="cards">'
        + "".join(f'<div class="card"><b>{esc(v)}</b><span>{esc(k)}</span></div>' for v, k in cards)
        + "</div>"
    )


def _kappa_points(report: dict[str, Any]) -> list[ForestRow]:
    points = []
    for c in report["criteria"]:
        h = rt.headline(c)
        if c["reviewers"]:
            label = f"reviewers ({h['kappa_name']})"
            points.append(ForestRow(c["name"], label, h["reviewer_kappa"], COLORS["reviewers"]))
        view = "majority_judge" if len(c["reviewers"]) >= 2 else "human_judge"
        for r in rt.whole(c):
            if r["view"] == view:
                who = "majority" if view == "majority_judge" else r["rater_a"]
                label = f"{who} vs {r['rater_b']}"
                points.append(ForestRow(c["name"], label, r["metrics"]["cohen"], COLORS["judge"]))
    return points


def _summary(report: dict[str, Any]) -> str:
    out = table(tb.summary(report))
    out += (
        '<p class="note">Reviewers vs judge: the reviewers\' strict majority (or the single '
        "reviewer) against the first judge by name. 95% intervals in brackets.</p>"
    )
    points = _kappa_points(report)
    if points:
        title = (
            "Cohen's / Fleiss' κ per criterion with 95% intervals (blue: among reviewers; "
            "orange: reviewers vs each judge)"
        )
        out += '<div class="chart">' + forest(points, title=title) + "</div>"
    return out


def _heatmaps(c: dict[str, Any]) -> list[str]:
    maps = tb.confusion_records(c)
    figs = [
        "<figure>"
        + heatmap(r["confusion"], r["rater_a"], r["rater_b"], title=rt.VIEW_NAMES[r["view"]])
        + "</figure>"
        for r in maps[:8]
        if r.get("confusion") and r["confusion"]["categories"]
    ]
    if not figs:
        return []
    out = ['<h4>Confusion matrices</h4><div class="figs">' + "".join(figs) + "</div>"]
    if len(maps) > 8:
        out.append(
            f'<p class="note">{len(maps) - 8} more confusion tables are in the JSON '
            "and CSV reports.</p>"
        )
    return out


def _criterion(c: dict[str, Any], index: int) -> str:
    out = [f'<h3 id="c{index}">{esc(rt.criterion_title(c))}</h3>']
    if c.get("question"):
        out.append(f'<p class="quote">{esc(c["question"])}</p>')
    out.append(
        f'<p class="note">Units labelled: {c["n_units"]:,} of {c["n_units_total"]:,} '
        f"({c['n_labels']:,} labels). Reviewers: {esc(', '.join(c['reviewers'])) or 'none'}"
        f". Judges: {esc(', '.join(c['judges'])) or 'none'}. Adjudicated: "
        f"{c['adjudicated']:,}; unresolved disagreements: {c['unresolved']:,}.</p>"
    )
    if c["kind"] == "pairwise":
        out.append("<h4>With ties</h4>")
    out.append(table(tb.comparisons(c, tb.comparison_records(c, "with"))))
    if c["kind"] == "pairwise":
        without = tb.comparisons(c, tb.comparison_records(c, "without"))
        out.append(
            f"<details><summary>Without ties ({len(without.rows)} comparisons; units where "
            "either side said tie dropped)</summary>" + table(without) + "</details>"
        )
    multi = next((r for r in c["comparisons"] if r["view"] == "reviewers"), None)
    if multi is not None:
        figures = tb.reviewer_figures(multi)
        out.append(
            f"<h4>{figures.title}</h4>"
            + f'<p class="note">{esc(multi["units_note"])}</p>'
            + table(figures)
        )
    scores = tb.judge_scores(c)
    if scores.rows:
        out.append(f"<h4>{scores.title}</h4>" + table(scores))
    sliced = tb.slices(c)
    if sliced.rows:
        out.append(
            f"<details><summary>Slices by batch, answer source and statement category "
            f"({len(sliced.rows)} rows)</summary>" + table(sliced) + "</details>"
        )
    return "".join(out + _heatmaps(c))


def _adjudication(report: dict[str, Any]) -> str:
    a = report["adjudication"]
    return (
        f"<p>Adjudicated units: <b>{a['adjudicated_total']:,}</b>. Unresolved disagreements: "
        f'<b>{a["unresolved_total"]:,}</b>.</p><p class="note">{esc(a["definition"])}.</p>'
        + table(st.adjudicated(report))
        + table(st.reference(report))
    )


_INCONSISTENCY = (
    ("samples_disagreed", "samples disagreed", "samples"),
    ("position_inconsistent", "AB ≠ BA", "position"),
    ("judges_disagreed", "members disagreed", "panel"),
)


def _judges(report: dict[str, Any]) -> str:
    judges = report.get("judges")
    if not judges or not judges["versions"]:
        return '<p class="muted">No judge versions.</p>'
    out = "<ul>" + "".join(f"<li>{esc(d)}</li>" for d in judges["definitions"]) + "</ul>"
    for t in jt.tables(report):
        out += f"<h3>{esc(t.title)}</h3>" + table(t)
    return out


def _consistency(report: dict[str, Any]) -> str:
    recs = report["consistency"]
    if not recs:
        return '<p class="muted">No judge verdicts.</p>'
    out = table(st.consistency(report))
    points = [
        (r["judge"], f"{r['criterion']}: {label}", r[key], COLORS[color])
        for r in recs
        for key, label, color in _INCONSISTENCY
        if r[key] is not None
    ]
    if points:
        out += (
            '<div class="chart">'
            + bars(points, title="Judge inconsistency (share of verdicts, 95% Wilson intervals)")
            + "</div>"
        )
    return out


def _win_rates(report: dict[str, Any]) -> str:
    recs = report["win_rates"]
    notes = st.win_notes(report)
    out = ["<ul>" + "".join(f"<li><b>{esc(c)}</b>: {esc(n)}</li>" for c, n in notes) + "</ul>"]
    chart_rows = []
    for r in recs:
        if r["rater_kind"] == "human" and any(
            x["rater_kind"] == "majority" for x in recs if x["criterion"] == r["criterion"]
        ):
            continue  # the chart shows the majority and the judges; the table has everyone
        for s in r["sources"]:
            shares = {o: (s[o]["value"] or 0.0) for o in ("win", "tie", "neither", "loss")}
            chart_rows.append((r["criterion"], f"{r['rater']} · {s['source']}", shares, s["n"]))
    if chart_rows:
        out.append(
            '<div class="chart">'
            + stacked(
                chart_rows,
                ("win", "tie", "neither", "loss"),
                title="Win / tie / neither / loss per model (risk criteria: chosen as worse = loss)",
            )
            + "</div>"
        )
    out.append(
        "<details><summary>Every rater, with 95% Wilson intervals</summary>"
        + table(st.win_rates(report))
        + "</details>"
    )
    return "".join(out)


def _kqa(k: dict[str, Any]) -> str:
    n_all = k["questions_all"]
    return (
        '<p class="note">Comprehensiveness = entailed Must_have / labelled Must_have '
        "statements; hallucinations = contradicted statements per answer. “All questions” "
        "divides by "
        + (
            f"the {n_all:,} K-QA reference questions"
            if n_all
            else "the number of answers of that model"
        )
        + " (unanswered or unlabelled answers count as 0). Per-answer figures are in the "
        "JSON and CSV reports.</p>" + table(st.kqa(k))
    )


def _medrgb(m: dict[str, Any]) -> str:
    charts = "".join(
        lines(
            [(c["source"], [(str(p["key"]), p) for p in c["points"]]) for c in r["chart"]],
            title=f"Mean score by p — {r['rater']}",
            x_label="p: share of signal documents in the context (%)",
        )
        for r in m["raters"]
        if any(c["points"] for c in r["chart"])
    )
    return (
        f'<p class="note">{esc(rt.MEDRGB_NOTE)} {plural(m["predictions"], "prediction")}, '
        f"{plural(m['abstentions'], 'abstention')}.</p>"
        + charts
        + table(st.medrgb(m))
        + table(st.medrgb_abstentions(m))
    )


def _protocol(p: dict[str, Any]) -> str:
    out = [f"<h3>{t.title}</h3>" + table(t) for t in (st.judges(p), st.templates(p))]
    out.append(f"<h3>Orders and voting rules</h3><p>Orders: {esc(', '.join(p['orders']))}.</p>")
    out.append("<ul>" + "".join(f"<li>{esc(r)}</li>" for r in p["voting_rules"]) + "</ul>")
    iv = p["intervals"]
    out.append(
        "<h3>Statistics</h3><ul>"
        + "".join(f"<li>{esc(s)}</li>" for s in p["statistics"])
        + f"<li>Bootstrap: {iv['n_boot']:,} resamples, seed {esc(iv['seed'])}, confidence "
        f"{iv['confidence']:.0%}.</li><li>Blind review: "
        f"{'yes' if p.get('blind_review') else 'no'}.</li></ul>"
    )
    return "".join(out)


def _effort(e: dict[str, Any]) -> str:
    t = e["judge_calls"]
    return (
        f"<p>Judge calls: {t['calls']:,} ({t['ok']:,} ok, {t['failed']:,} failed samples, "
        f"{t['errors']:,} errors); tokens {t['input_tokens']:,} in / {t['output_tokens']:,} "
        f"out; cost {esc(rt.money(t['cost_usd']))}; summed latency "
        f"{esc(rt.duration(t['latency_s']))}. Reviewer time: "
        f"{esc(rt.duration(e['review_seconds']))}.</p>"
        + table(st.judge_effort(e))
        + table(st.reviewer_effort(e))
        + f"<p>{esc(rt.per_item_note(e['per_item']))}</p>"
        + table(st.per_item_reviewers(e))
        + table(st.per_item_judges(e))
    )


def render_html(report: dict[str, Any]) -> str:
    """The whole report as one HTML document (inline CSS and SVG, no scripts, no URLs)."""
    study = report["study"]
    items = ", ".join(f"{v:,} {k}" for k, v in study["items"].items()) or "no items"
    sections: list[tuple[str, str, str]] = [
        ("summary", "Summary", _cards(report) + _summary(report)),
        (
            "criteria",
            "Agreement by criterion",
            "".join(_criterion(c, i) for i, c in enumerate(report["criteria"]))
            or '<p class="muted">No labels yet.</p>',
        ),
        ("reference", "Each rater vs the adjudicated reference", _adjudication(report)),
        ("consistency", "Judge self-consistency", _consistency(report)),
        ("judges", "Judge versions", _judges(report)),
        (
            "anchoring",
            "Anchoring",
            f"<p>{esc(rt.ANCHORING_NOTE)}</p>" + table(st.anchoring(report)),
        ),
    ]
    if report["gold"]:
        sections.append(
            ("gold", "Gold items", f"<p>{esc(rt.GOLD_NOTE)}</p>" + table(st.gold(report)))
        )
    if report["consensus"]:
        sections.append(
            (
                "consensus",
                "Consensus beyond the majority (Dawid–Skene)",
                f"<p>{esc(rt.CONSENSUS_NOTE)}</p>"
                + "".join(
                    f"<p>{esc(rt.consensus_line(rec))}</p>" + table(st.consensus_accuracy(rec))
                    for rec in report["consensus"]
                ),
            )
        )
    if report["win_rates"]:
        sections.append(("wins", "Win rates (pairwise)", _win_rates(report)))
    if report.get("kqa"):
        sections.append(("kqa", "K-QA metrics (statements)", _kqa(report["kqa"])))
    if report.get("medrgb"):
        sections.append(
            ("medrgb", "MedRGB: predictions vs ground truth", _medrgb(report["medrgb"]))
        )
    if report["ratings"]:
        sections.append(("ratings", "Rating means", table(st.ratings(report["ratings"]))))
    sections += [
        ("protocol", "Protocol", _protocol(report["protocol"])),
        ("effort", "Effort", _effort(report["effort"])),
        (
            "notes",
            "Notes",
            "<ul>" + "".join(f"<li>{esc(v)}</li>" for v in report["notes"].values()) + "</ul>",
        ),
    ]
    nav = "".join(f'<a href="#{sid}">{esc(title)}</a>' for sid, title, _ in sections)
    main = "".join(
        f'<section id="{sid}"><h2>{esc(title)}</h2>{body}</section>'
        for sid, title, body in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Agreement report: {esc(study['name'])}</title><style>{CSS}</style></head>"
        f"<body><header><h1>Agreement report: {esc(study['name'])}</h1>"
        f"<p>Study file {esc(study['file'])} · {esc(items)} · generated "
        f"{esc(report['generated_at'])} by medjudge {esc(report['medjudge_version'])}</p>"
        f"</header><nav>{nav}</nav><main>{main}</main>"
        "<footer>Generated by medjudge. All figures with their n; 95% intervals in brackets; "
        "undefined figures say why.</footer></body></html>\n"
    )
