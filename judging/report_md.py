"""The report as Markdown: tables to paste into a paper or a pull request.

Study text (item ids, rater, criterion and model names) is shown literally: control and
bidi characters become visible escapes (:func:`medjudge.store.literal.printable`), line breaks
become spaces, and Markdown's active characters (``|`` and backticks among them) are
backslash-escaped, so a name can neither break a table nor turn into markup or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from medjudge.store.literal import printable

from . import report_text as rt

_ACTIVE = re.compile(r"([\\`|*\[\]<>#&~!])")
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md(text: object) -> str:
    """Study text made literal for a Markdown table cell or line."""
    t = printable("" if text is None else str(text))
    t = " ".join(t.replace("\r", " ").replace("\n", " ").replace("\t", " ").split(" "))
    t = _ACTIVE.sub(r"\\\1", t)
    return _UNDERSCORE.sub(r"\\_", t)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured Markdown table (cells must already be escaped)."""
    if not rows:
        return ["_(none)_", ""]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def _summary(report: dict[str, Any]) -> list[str]:
    rows = []
    for c in report["criteria"]:
        h = rt.headline(c)
        rows.append(
            [
                md(c["name"]),
                c["kind"],
                f"{c['n_units']:,} / {c['n_units_total']:,}",
                str(len(c["reviewers"])),
                rt.est(h["reviewer_percent"], pct=True),
                f"{rt.est(h['reviewer_kappa'])}"
                + (" (Fleiss)" if h["kappa_name"].startswith("Fleiss") else ""),
                md(h["judge"]) if h["judge"] else "–",
                rt.est(h["judge_percent"], pct=True),
                rt.est(h["judge_kappa"]),
                str(c["unresolved"]),
            ]
        )
    return [
        "## Summary",
        "",
        *table(
            [
                "Criterion",
                "Kind",
                "Units labelled",
                "Reviewers",
                "Reviewer agreement",
                "Reviewer κ",
                "Judge",
                "Reviewers vs judge agreement",
                "Reviewers vs judge κ",
                "Unresolved",
            ],
            rows,
        ),
        "Reviewers vs judge: the reviewers' majority (or the single reviewer) against the first "
        "judge by name. 95% intervals in brackets.",
        "",
    ]


def _protocol(report: dict[str, Any]) -> list[str]:
    p = report["protocol"]
    out = ["## Protocol", ""]
    judges = [
        [
            md(j["name"]),
            md(j.get("provider") or "–"),
            md(j.get("model") or "–"),
            rt.integer(j.get("samples")),
            _opt(j.get("temperature")),
            md(j.get("statements_protocol") or "–"),
            md(
                ", ".join(j.get("members") or [])
                + (f" ({j['panel_rule']})" if j.get("panel_rule") else "")
            )
            or "–",
            rt.integer(j.get("verdicts")),
        ]
        for j in p["judges"]
    ]
    out += [
        "### Judges",
        "",
        *table(
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
        ),
    ]
    templates = [
        [md(j["name"]), md(t["template"]), md(t["hash"]), rt.integer(t["calls"])]
        for j in p["judges"]
        for t in j["templates"]
    ]
    out += ["### Templates", "", *table(["Judge", "Template", "Hash", "Calls"], templates)]
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
    return out


def _opt(value: object) -> str:
    return "–" if value is None else md(value)


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
    rows = [
        [
            md(j["judge"]),
            rt.integer(j["calls"]),
            rt.integer(j["failed"]),
            rt.integer(j["errors"]),
            rt.integer(j["input_tokens"]),
            rt.integer(j["output_tokens"]),
            rt.money(j["cost_usd"]),
            rt.duration(j["latency_s"]),
        ]
        for j in e["per_judge"]
    ]
    out += table(
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
        rows,
    )
    rows = [
        [
            md(r["reviewer"]),
            rt.integer(r["labels"]),
            rt.integer(r["items"]),
            rt.duration(r["seconds"]),
            rt.duration(r["seconds_per_item"]),
        ]
        for r in e["reviewers"]
    ]
    return out + table(["Reviewer", "Labels", "Items timed", "Time", "Time per item"], rows)


def _confusion(r: dict[str, Any]) -> list[str]:
    conf = r.get("confusion")
    if not conf or not conf["categories"]:
        return []
    cats = [md(x) for x in conf["categories"]]
    rows = [[f"**{cats[i]}**", *[str(v) for v in row]] for i, row in enumerate(conf["matrix"])]
    title = f"{md(r['rater_a'])} (rows) vs {md(r['rater_b'])} (columns), n = {r['n']:,}"
    return [f"Confusion: {title}", "", *table(["", *cats], rows)]


def _criterion(c: dict[str, Any]) -> list[str]:
    names = rt.two_metric_names(c)
    out = [f"### {md(rt.criterion_title(c))}", ""]
    if c.get("question"):
        out += [f"> {md(c['question'])}", ""]
    out += [
        f"Units labelled: {c['n_units']:,} of {c['n_units_total']:,} ({c['n_labels']:,} "
        f"labels). Reviewers: {md(', '.join(c['reviewers'])) or 'none'}. Judges: "
        f"{md(', '.join(c['judges'])) or 'none'}.",
        "",
    ]
    variants = ["with", "without"] if c["kind"] == "pairwise" else [None]
    for ties in variants:
        rows = [
            [
                rt.VIEW_NAMES[r["view"]],
                md(r["rater_a"]),
                md(r["rater_b"]),
                f"{r['n']:,}",
                *[rt.metric(r, m) for m in names],
            ]
            for r in rt.whole(c, ties=ties)
            if r["view"] != "reviewers"
        ]
        if ties:
            out += [
                "With ties:"
                if ties == "with"
                else "Without ties (units where either side said tie dropped):",
                "",
            ]
        out += table(
            ["View", "Rater A", "Rater B", "n", *[rt.METRIC_NAMES[m] for m in names]], rows
        )
    multi = next((r for r in c["comparisons"] if r["view"] == "reviewers"), None)
    if multi is not None:
        m = multi["metrics"]
        out += [
            f"All {len(multi['raters'])} reviewers ({multi['n']:,} units, "
            f"{multi['n_complete']:,} labelled by all): Fleiss' κ {rt.est(m['fleiss'])} "
            f"(n = {m['fleiss']['n']:,}); Krippendorff's α "
            f"{rt.est(m['krippendorff_alpha'])} (n = {m['krippendorff_alpha']['n']:,}); "
            f"mean pairwise agreement {rt.est(m['mean_pairwise_percent'], pct=True)}.",
            "",
        ]
        rows = [
            [md(v["rater"]), rt.integer(v["n"]), rt.est(v, pct=True)] for v in multi["vs_majority"]
        ]
        out += table(["Reviewer", "n", "Agreement with the others' majority"], rows)
    sliced = [r for r in c["comparisons"] if r["slice"] != "all"]
    if sliced:
        rows = [
            [
                rt.VIEW_NAMES[r["view"]],
                md(r["rater_a"]),
                md(r["rater_b"]),
                md(r["slice"]),
                f"{r['n']:,}",
                rt.metric(r, "percent"),
                rt.metric(r, "cohen"),
            ]
            for r in sliced
        ]
        out += [
            "Slices (analytic intervals):",
            "",
            *table(["View", "Rater A", "Rater B", "Slice", "n", "% agreement", "Cohen's κ"], rows),
        ]
    for r in rt.whole(c):
        if r["view"] in ("human_human", "majority_judge", "ab_ba") or (
            r["view"] == "human_judge" and len(c["reviewers"]) == 1
        ):
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
    out += table(
        ["Criterion", "Adjudicated", "Unresolved disagreements"],
        [
            [md(c["criterion"]), f"{c['adjudicated']:,}", f"{c['unresolved']:,}"]
            for c in a["criteria"]
        ],
    )
    rows = [
        [
            md(c["criterion"]),
            md(r["rater_a"]),
            f"{r['n']:,}",
            rt.metric(r, "percent"),
            rt.metric(r, "cohen"),
        ]
        for c in a["criteria"]
        for r in c["comparisons"]
    ]
    return out + table(["Criterion", "Rater", "n", "Accuracy", "Cohen's κ"], rows)


def _consistency(report: dict[str, Any]) -> list[str]:
    rows = [
        [
            md(r["judge"]),
            md(r["criterion"]),
            f"{r['n_verdicts']:,}",
            f"{r['missing']:,}",
            f"{r['failed_samples']:,}",
            _share(r["samples_disagreed"]),
            _share(r["position_inconsistent"]),
            _share(r["judges_disagreed"]),
        ]
        for r in report["consistency"]
    ]
    return [
        "## Judge self-consistency",
        "",
        *table(
            [
                "Judge",
                "Criterion",
                "Verdicts",
                "Missing",
                "Failed samples",
                "Samples disagreed (within an order)",
                "Position inconsistent (AB ≠ BA)",
                "Panel members disagreed",
            ],
            rows,
        ),
    ]


def _share(s: dict[str, Any] | None) -> str:
    if s is None:
        return "–"
    if s.get("value") is None:
        return rt.est(s)
    return f"{s['count']:,}/{s['n']:,} = {rt.est(s, pct=True)}"


def _win_rates(report: dict[str, Any]) -> list[str]:
    if not report["win_rates"]:
        return []
    notes = list(dict.fromkeys((r["criterion"], r["note"]) for r in report["win_rates"]))
    out = ["## Win rates (pairwise)", ""]
    out += [f"- {md(crit)}: {md(note)}" for crit, note in notes] + [""]
    rows = [
        [
            md(r["criterion"]),
            md(r["rater"]),
            md(s["source"]),
            f"{s['n']:,}",
            *[rt.est(s[o], pct=True) for o in ("win", "tie", "loss", "neither")],
        ]
        for r in report["win_rates"]
        for s in r["sources"]
    ]
    return out + table(["Criterion", "Rater", "Model", "n", "Win", "Tie", "Loss", "Neither"], rows)


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
        + " (unanswered or unlabelled count as 0). Per-answer figures are in the JSON and "
        "CSV reports.",
        "",
    ]
    rows = []
    for r in k["raters"]:
        for src, f in r["by_source"].items():
            rows.append(
                [
                    md(r["rater"]),
                    md(src),
                    f"{f['answers_with_labels']:,}/{f['answers']:,}",
                    f"{f['statements_labelled']:,}/{f['statements']:,}",
                    rt.est(f["comprehensiveness_answered"], pct=True),
                    rt.est(f["comprehensiveness_all"], pct=True),
                    rt.est(f["hallucinations_answered"]),
                    rt.est(f["hallucinations_all"]),
                    rt.est(f["contradiction_share"], pct=True),
                ]
            )
    return out + table(
        [
            "Rater",
            "Model",
            "Answers labelled",
            "Statements labelled",
            "Comprehensiveness (answered)",
            "Comprehensiveness (all)",
            "Hallucinations (answered)",
            "Hallucinations (all)",
            "Answers with ≥1 contradiction",
        ],
        rows,
    )


def _ratings(report: dict[str, Any]) -> list[str]:
    if not report["ratings"]:
        return []
    rows = []
    for r in report["ratings"]:
        for s in [{"source": "all models", **r["overall"]}, *r["sources"]]:
            rows.append(
                [
                    md(r["criterion"]),
                    md(r["rater"]),
                    md(s["source"]),
                    rt.integer(s["n"]),
                    rt.est(s),
                    "–" if s.get("sd") is None else f"{s['sd']:.2f}",
                ]
            )
    return [
        "## Rating means",
        "",
        *table(["Criterion", "Rater", "Model", "n", "Mean [95% CI]", "SD"], rows),
    ]


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
    out += _adjudication(report) + _consistency(report) + _win_rates(report) + _kqa(report)
    out += _ratings(report) + _protocol(report) + _effort(report)
    out += ["## Notes", ""] + [f"- {md(v)}" for v in report["notes"].values()] + [""]
    return "\n".join(out)
