"""The report as one self-contained HTML file: inline CSS and inline SVG charts, no scripts.

No JavaScript, no external fonts, stylesheets, images or links: the file opens offline and a
Content-Security-Policy in the page forbids loading anything. Every text from the study goes
through :func:`.report_svg.esc` (control characters made visible, then HTML-escaped).
"""

from __future__ import annotations

from typing import Any

from . import report_text as rt
from .report_html_kit import CSP, CSS, cell, mcell, share, table
from .report_svg import COLORS, ForestRow, bars, esc, forest, heatmap, stacked


def _cards(report: dict[str, Any]) -> str:
    e = report["effort"]
    items = sum(report["study"]["items"].values())
    labels = sum(c["n_labels"] for c in report["criteria"])
    reviewers = len(e["reviewers"])
    judges = len(report["protocol"]["judges"])
    a = report["adjudication"]
    cards = [
        (f"{items:,}", "items"),
        (f"{labels:,}", "labels"),
        (f"{reviewers}", "reviewers"),
        (f"{judges}", "judges"),
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


def _summary(report: dict[str, Any]) -> str:
    rows, points = [], []
    for c in report["criteria"]:
        h = rt.headline(c)
        rows.append(
            [
                esc(c["name"]),
                esc(c["kind"]),
                f"{c['n_units']:,} / {c['n_units_total']:,}",
                str(len(c["reviewers"])),
                cell(h["reviewer_percent"], pct=True),
                cell(h["reviewer_kappa"])
                + ("<small>Fleiss' κ</small>" if h["kappa_name"].startswith("Fleiss") else ""),
                esc(h["judge"]) if h["judge"] else "–",
                cell(h["judge_percent"], pct=True),
                cell(h["judge_kappa"]),
                f"{c['unresolved']:,}",
            ]
        )
        if c["reviewers"]:
            points.append(
                ForestRow(
                    c["name"],
                    f"reviewers ({h['kappa_name']})",
                    h["reviewer_kappa"],
                    COLORS["reviewers"],
                )
            )
        view = "majority_judge" if len(c["reviewers"]) >= 2 else "human_judge"
        for r in rt.whole(c):
            if r["view"] == view:
                who = "majority" if view == "majority_judge" else r["rater_a"]
                points.append(
                    ForestRow(
                        c["name"],
                        f"{who} vs {r['rater_b']}",
                        r["metrics"]["cohen"],
                        COLORS["judge"],
                    )
                )
    out = table(
        [
            "Criterion",
            "Kind",
            "Units labelled",
            "Reviewers",
            "Agreement",
            "κ",
            "Judge",
            "Agreement",
            "κ",
            "Unresolved",
        ],
        rows,
        numeric=(2, 3, 4, 5, 7, 8, 9),
        header_groups=(("", 4), ("Among reviewers", 2), ("Reviewers vs first judge", 3), ("", 1)),
    )
    out += (
        '<p class="note">Reviewers vs judge: the reviewers\' strict majority (or the single '
        "reviewer) against the first judge by name. 95% intervals in brackets.</p>"
    )
    if points:
        title = (
            "Cohen's / Fleiss' κ per criterion with 95% intervals (blue: among reviewers; "
            "orange: reviewers vs each judge)"
        )
        out += '<div class="chart">' + forest(points, title=title) + "</div>"
    return out


def _two_table(c: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    names = rt.two_metric_names(c)
    body = [
        [
            esc(rt.VIEW_NAMES[r["view"]]),
            esc(r["rater_a"]),
            esc(r["rater_b"]),
            f"{r['n']:,}",
            *[mcell(r, m) for m in names],
        ]
        for r in rows
    ]
    return table(
        ["View", "Rater A", "Rater B", "n", *[rt.METRIC_NAMES[m] for m in names]],
        body,
        numeric=range(3, 4 + len(names)),
    )


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
    with_ties = [r for r in rt.whole(c, ties="with") if r["view"] != "reviewers"]
    if c["kind"] == "pairwise":
        out.append("<h4>With ties</h4>")
    out.append(_two_table(c, with_ties))
    if c["kind"] == "pairwise":
        without = [r for r in rt.whole(c, ties="without") if r["view"] != "reviewers"]
        out.append(
            f"<details><summary>Without ties ({len(without)} comparisons; units where "
            "either side said tie dropped)</summary>" + _two_table(c, without) + "</details>"
        )
    multi = next((r for r in c["comparisons"] if r["view"] == "reviewers"), None)
    if multi is not None:
        m = multi["metrics"]
        out.append(f"<h4>All {len(multi['raters'])} reviewers</h4>")
        out.append(
            table(
                ["Figure", "Value [95% CI]", "n"],
                [
                    [rt.METRIC_NAMES[k], cell(m[k], pct=k in rt.PERCENT_METRICS), f"{m[k]['n']:,}"]
                    for k in ("fleiss", "krippendorff_alpha", "mean_pairwise_percent")
                ]
                + [
                    [f"{esc(v['rater'])} vs the others' majority", cell(v, pct=True), f"{v['n']:,}"]
                    for v in multi["vs_majority"]
                ],
                numeric=(1, 2),
            )
        )
    sliced = [r for r in c["comparisons"] if r["slice"] != "all"]
    if sliced:
        body = [
            [
                esc(rt.VIEW_NAMES[r["view"]]),
                esc(r["rater_a"]),
                esc(r["rater_b"]),
                esc(r["slice"]),
                f"{r['n']:,}",
                mcell(r, "percent"),
                mcell(r, "cohen"),
            ]
            for r in sliced
        ]
        out.append(
            f"<details><summary>Slices by batch, answer source and statement category "
            f"({len(sliced)} rows, analytic intervals)</summary>"
            + table(
                ["View", "Rater A", "Rater B", "Slice", "n", "% agreement", "Cohen's κ"],
                body,
                numeric=(4, 5, 6),
            )
            + "</details>"
        )
    maps = [
        r
        for r in with_ties
        if r["view"] in ("human_human", "majority_judge", "ab_ba")
        or (r["view"] == "human_judge" and len(c["reviewers"]) == 1)
    ]
    figs = [
        "<figure>"
        + heatmap(r["confusion"], r["rater_a"], r["rater_b"], title=rt.VIEW_NAMES[r["view"]])
        + "</figure>"
        for r in maps[:8]
        if r.get("confusion") and r["confusion"]["categories"]
    ]
    if figs:
        out.append('<h4>Confusion matrices</h4><div class="figs">' + "".join(figs) + "</div>")
        if len(maps) > 8:
            out.append(
                f'<p class="note">{len(maps) - 8} more confusion tables are in the JSON '
                "and CSV reports.</p>"
            )
    return "".join(out)


def _adjudication(report: dict[str, Any]) -> str:
    a = report["adjudication"]
    out = [
        f"<p>Adjudicated units: <b>{a['adjudicated_total']:,}</b>. Unresolved disagreements: "
        f'<b>{a["unresolved_total"]:,}</b>.</p><p class="note">{esc(a["definition"])}.</p>'
    ]
    out.append(
        table(
            ["Criterion", "Adjudicated", "Unresolved disagreements"],
            [
                [esc(c["criterion"]), f"{c['adjudicated']:,}", f"{c['unresolved']:,}"]
                for c in a["criteria"]
            ],
            numeric=(1, 2),
        )
    )
    rows = [
        [
            esc(c["criterion"]),
            esc(r["rater_a"]),
            f"{r['n']:,}",
            mcell(r, "percent"),
            mcell(r, "cohen"),
        ]
        for c in a["criteria"]
        for r in c["comparisons"]
    ]
    out.append(table(["Criterion", "Rater", "n", "Accuracy", "Cohen's κ"], rows, numeric=(2, 3, 4)))
    return "".join(out)


def _consistency(report: dict[str, Any]) -> str:
    recs = report["consistency"]
    if not recs:
        return '<p class="muted">No judge verdicts.</p>'
    rows = [
        [
            esc(r["judge"]),
            esc(r["criterion"]),
            f"{r['n_verdicts']:,}",
            f"{r['missing']:,}",
            f"{r['failed_samples']:,}",
            share(r["samples_disagreed"]),
            share(r["position_inconsistent"]),
            share(r["judges_disagreed"]),
        ]
        for r in recs
    ]
    out = table(
        [
            "Judge",
            "Criterion",
            "Verdicts",
            "Missing",
            "Failed samples",
            "Samples disagreed",
            "Position inconsistent (AB ≠ BA)",
            "Panel members disagreed",
        ],
        rows,
        numeric=range(2, 8),
    )
    points = []
    for r in recs:
        if r["samples_disagreed"] is not None:
            points.append(
                (
                    r["judge"],
                    f"{r['criterion']}: samples disagreed",
                    r["samples_disagreed"],
                    COLORS["samples"],
                )
            )
        if r["position_inconsistent"] is not None:
            points.append(
                (
                    r["judge"],
                    f"{r['criterion']}: AB ≠ BA",
                    r["position_inconsistent"],
                    COLORS["position"],
                )
            )
        if r["judges_disagreed"] is not None:
            points.append(
                (
                    r["judge"],
                    f"{r['criterion']}: members disagreed",
                    r["judges_disagreed"],
                    COLORS["panel"],
                )
            )
    if points:
        out += (
            '<div class="chart">'
            + bars(points, title="Judge inconsistency (share of verdicts, 95% Wilson intervals)")
            + "</div>"
        )
    return out


def _win_rates(report: dict[str, Any]) -> str:
    recs = report["win_rates"]
    notes = list(dict.fromkeys((r["criterion"], r["note"]) for r in recs))
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
    rows = [
        [
            esc(r["criterion"]),
            esc(r["rater"]),
            esc(s["source"]),
            f"{s['n']:,}",
            *[cell(s[o], pct=True) for o in ("win", "tie", "loss", "neither")],
        ]
        for r in recs
        for s in r["sources"]
    ]
    out.append(
        "<details><summary>Every rater, with 95% Wilson intervals</summary>"
        + table(
            ["Criterion", "Rater", "Model", "n", "Win", "Tie", "Loss", "Neither"],
            rows,
            numeric=range(3, 8),
        )
        + "</details>"
    )
    return "".join(out)


def _kqa(k: dict[str, Any]) -> str:
    n_all = k["questions_all"]
    out = [
        '<p class="note">Comprehensiveness = entailed Must_have / labelled Must_have '
        "statements; hallucinations = contradicted statements per answer. “All questions” "
        "divides by "
        + (
            f"the {n_all:,} K-QA reference questions"
            if n_all
            else "the number of answers of that model"
        )
        + " (unanswered or unlabelled answers count as 0). Per-answer figures are in the "
        "JSON and CSV reports.</p>"
    ]
    rows = []
    for r in k["raters"]:
        for src, f in r["by_source"].items():
            rows.append(
                [
                    esc(r["rater"]),
                    esc(src),
                    f"{f['answers_with_labels']:,}/{f['answers']:,}",
                    f"{f['statements_labelled']:,}/{f['statements']:,}",
                    cell(f["comprehensiveness_answered"], pct=True),
                    cell(f["comprehensiveness_all"], pct=True),
                    cell(f["hallucinations_answered"]),
                    cell(f["hallucinations_all"]),
                    cell(f["contradiction_share"], pct=True),
                ]
            )
    out.append(
        table(
            [
                "Rater",
                "Model",
                "Answers",
                "Statements",
                "Answered",
                "All questions",
                "Answered",
                "All questions",
                "Answers with ≥1 contradiction",
            ],
            rows,
            numeric=range(2, 9),
            header_groups=(
                ("", 2),
                ("Labelled", 2),
                ("Comprehensiveness", 2),
                ("Hallucinations per answer", 2),
                ("", 1),
            ),
        )
    )
    return "".join(out)


def _ratings(recs: list[dict[str, Any]]) -> str:
    rows = []
    for r in recs:
        for s in [{"source": "all models", **r["overall"]}, *r["sources"]]:
            rows.append(
                [
                    esc(r["criterion"]),
                    esc(r["rater"]),
                    esc(s["source"]),
                    rt.integer(s["n"]),
                    cell(s),
                    "–" if s.get("sd") is None else f"{s['sd']:.2f}",
                ]
            )
    return table(
        ["Criterion", "Rater", "Model", "n", "Mean [95% CI]", "SD"], rows, numeric=(3, 4, 5)
    )


def _protocol(p: dict[str, Any]) -> str:
    judges = [
        [
            esc(j["name"]),
            esc(j.get("provider") or "–"),
            esc(j.get("model") or "–"),
            rt.integer(j.get("samples")),
            "–" if j.get("temperature") is None else esc(j["temperature"]),
            esc(j.get("statements_protocol") or "–"),
            esc(", ".join(j.get("members") or [])) or "–",
            rt.integer(j.get("verdicts")),
        ]
        for j in p["judges"]
    ]
    out = [
        "<h3>Judges</h3>",
        table(
            [
                "Judge",
                "Provider",
                "Model",
                "Samples",
                "Temperature",
                "Statements protocol",
                "Panel of",
                "Verdicts",
            ],
            judges,
            numeric=(3, 7),
        ),
    ]
    templates = [
        [
            esc(j["name"]),
            esc(t["template"]),
            f"<code>{esc(t['hash'])}</code>",
            rt.integer(t["calls"]),
        ]
        for j in p["judges"]
        for t in j["templates"]
    ]
    out += [
        "<h3>Templates</h3>",
        table(["Judge", "Template", "Hash", "Calls"], templates, numeric=(3,)),
    ]
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
    out = [
        f"<p>Judge calls: {t['calls']:,} ({t['ok']:,} ok, {t['failed']:,} failed samples, "
        f"{t['errors']:,} errors); tokens {t['input_tokens']:,} in / {t['output_tokens']:,} "
        f"out; cost {esc(rt.money(t['cost_usd']))}; summed latency "
        f"{esc(rt.duration(t['latency_s']))}. Reviewer time: "
        f"{esc(rt.duration(e['review_seconds']))}.</p>"
    ]
    out.append(
        table(
            [
                "Judge",
                "Calls",
                "Failed",
                "Errors",
                "Input tokens",
                "Output tokens",
                "Cost",
                "Latency (sum)",
            ],
            [
                [
                    esc(j["judge"]),
                    rt.integer(j["calls"]),
                    rt.integer(j["failed"]),
                    rt.integer(j["errors"]),
                    rt.integer(j["input_tokens"]),
                    rt.integer(j["output_tokens"]),
                    esc(rt.money(j["cost_usd"])),
                    esc(rt.duration(j["latency_s"])),
                ]
                for j in e["per_judge"]
            ],
            numeric=range(1, 8),
        )
    )
    out.append(
        table(
            ["Reviewer", "Labels", "Items timed", "Time", "Time per item"],
            [
                [
                    esc(r["reviewer"]),
                    rt.integer(r["labels"]),
                    rt.integer(r["items"]),
                    esc(rt.duration(r["seconds"])),
                    esc(rt.duration(r["seconds_per_item"])),
                ]
                for r in e["reviewers"]
            ],
            numeric=range(1, 5),
        )
    )
    return "".join(out)


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
    ]
    if report["win_rates"]:
        sections.append(("wins", "Win rates (pairwise)", _win_rates(report)))
    if report.get("kqa"):
        sections.append(("kqa", "K-QA metrics (statements)", _kqa(report["kqa"])))
    if report["ratings"]:
        sections.append(("ratings", "Rating means", _ratings(report["ratings"])))
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
