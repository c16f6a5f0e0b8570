"""The report's tables, defined once for the Markdown and the HTML report.

Each function here picks its rows out of the report dict (built by :mod:`.report`) and returns
a :class:`.report_cells.Table` of typed cells (study text, counts, estimates, shares, money,
durations) that :mod:`.report_md` and :mod:`.report_html_kit` format, each for its own format
(escaping, intervals). Header wording and ``Label`` cells are medjudge's own words.

Where the two formats deliberately differ, it is said here: a column's ``short`` header (the
HTML report groups columns under common headings) and ``ByFormat`` cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from medjudge.judging.report.cells import (
    ByFormat,
    Cell,
    Code,
    Column,
    Concat,
    Count,
    Duration,
    Est,
    Label,
    Money,
    Number,
    Ratio,
    Share,
    Table,
    Text,
)

from . import text as rt


def _cols(*names: str, numeric: Iterable[int] = ()) -> tuple[Column, ...]:
    num = set(numeric)
    return tuple(Column(n, i in num) for i, n in enumerate(names))


def _table(title: str, columns: tuple[Column, ...], rows: Iterable[Sequence[Cell]]) -> Table:
    return Table(title, columns, tuple(tuple(r) for r in rows))


def _metric(record: dict[str, Any], name: str) -> Est:
    return Est(record.get("metrics", {}).get(name), pct=name in rt.PERCENT_METRICS)


_PAIR = ("View", "Rater A", "Rater B")


def _pair(r: dict[str, Any]) -> tuple[Cell, ...]:
    """The view and the two raters of a comparison record."""
    return Text(rt.VIEW_NAMES[r["view"]]), Text(r["rater_a"]), Text(r["rater_b"])


_BY_MODEL = ("Criterion", "Rater", "Model", "n")


def _by_model(r: dict[str, Any], s: dict[str, Any]) -> tuple[Cell, ...]:
    """Criterion and rater of a record, model and n of one of its per-model figures."""
    return Text(r["criterion"]), Text(r["rater"]), Text(s["source"]), Count(s["n"])


def summary(report: dict[str, Any]) -> Table:
    """One row per criterion: units, reviewer agreement, reviewers vs the first judge."""
    rows = []
    for c in report["criteria"]:
        h = rt.headline(c)
        # pₑ beside every κ: a high agreement with a high pₑ is what a low κ means.
        pe = rt.chance_note(h["reviewer_chance"])
        kappa: Cell = Est(h["reviewer_kappa"], note=pe)
        if h["kappa_name"].startswith("Fleiss"):  # say which κ: three or more reviewers
            kappa = ByFormat(
                Est(h["reviewer_kappa"], note=rt.join_notes("Fleiss", pe)),
                Est(h["reviewer_kappa"], note=rt.join_notes("Fleiss' κ", pe)),
            )
        rows.append(
            (
                Text(c["name"]),
                Text(c["kind"]),
                Ratio(c["n_units"], c["n_units_total"], " / "),
                Count(len(c["reviewers"]), grouped=False),
                Est(h["reviewer_percent"], pct=True),
                kappa,
                Text(h["judge"] or "–"),
                Est(h["judge_percent"], pct=True),
                Est(h["judge_kappa"], note=rt.chance_note(h["judge_chance"])),
                # Markdown has always written this count without thousands separators.
                ByFormat(Count(c["unresolved"], grouped=False), Count(c["unresolved"])),
            )
        )
    columns = (
        Column("Criterion"),
        Column("Kind"),
        Column("Units labelled", True),
        Column("Reviewers", True),
        Column("Reviewer agreement", True, "Agreement"),
        Column("Reviewer κ", True, "κ"),
        Column("Judge"),
        Column("Reviewers vs judge agreement", True, "Agreement"),
        Column("Reviewers vs judge κ", True, "κ"),
        Column("Unresolved", True),
    )
    groups = (("", 4), ("Among reviewers", 2), ("Reviewers vs first judge", 3), ("", 1))
    return Table("Summary", columns, tuple(rows), groups)


def comparison_records(c: dict[str, Any], ties: str | None = "with") -> list[dict[str, Any]]:
    """A criterion's whole-criterion two-rater comparisons for one tie setting."""
    return [r for r in rt.whole(c, ties=ties) if r["view"] != "reviewers"]


def comparisons(c: dict[str, Any], records: list[dict[str, Any]]) -> Table:
    """Two-rater comparisons of a criterion, with its metrics (ordinal scales get more)."""
    names = rt.two_metric_names(c)
    # Chance agreement (pₑ of Cohen's κ) sits beside κ: a high percent agreement with a
    # high pₑ is what a low κ means.
    at = names.index("cohen") + 1 if "cohen" in names else len(names)
    heads = [rt.METRIC_NAMES[m] for m in names]
    heads.insert(at, "Chance (pₑ)")
    columns = _cols(*_PAIR, "n", *heads, numeric=range(3, 5 + len(names)))
    rows = []
    for r in records:
        cells: list[Cell] = [_metric(r, m) for m in names]
        cells.insert(at, Number(r.get("chance"), 3))
        rows.append((*_pair(r), Count(r["n"]), *cells))
    return _table(f"{c['name']}: two-rater comparisons", columns, rows)


def reviewer_figures(multi: dict[str, Any]) -> Table:
    """The all-reviewers figures (Fleiss, α, pairwise, Randolph, unanimous, ICC), each vs majority."""
    m = multi["metrics"]
    rows: list[tuple[Cell, ...]] = [
        (
            Label(rt.METRIC_NAMES[k]),
            Est(
                m[k],
                pct=k in rt.PERCENT_METRICS,
                note=rt.chance_note(multi.get("chance")) if k == "fleiss" else None,
            ),
            Count(m[k]["n"]),
        )
        for k in rt.METRIC_NAMES
        if k in m
    ]
    rows += [
        (
            Concat((Label("Fleiss' κ, category "), Text(str(e["category"])))),
            Est(e),
            Count(e["n"]),
        )
        for e in multi.get("fleiss_per_category", [])
    ]
    rows += [
        (
            Concat((Text(v["rater"]), Label(" vs the others' majority"))),
            Est(v, pct=True),
            Count(v["n"]),
        )
        for v in multi["vs_majority"]
    ]
    columns = _cols("Figure", "Value [95% CI]", "n", numeric=(1, 2))
    return _table(f"All {len(multi['raters'])} reviewers", columns, rows)


def judge_scores(c: dict[str, Any]) -> Table:
    """Each judge scored against the reviewers' majority: accuracy, per-verdict P / R / F1."""
    rows: list[tuple[Cell, ...]] = []
    for r in rt.whole(c, ties="with" if c["kind"] == "pairwise" else None):
        cl = r.get("classification")
        if r["view"] != "majority_judge" or cl is None:
            continue
        rows.append(
            (
                Text(r["rater_b"]),
                Label("all"),
                Count(cl["n"]),
                Est(cl["accuracy"], pct=True),
                Est(None),
                Est(None),
                Est(cl["macro_f1"]),
            )
        )
        for s in cl["labels"]:
            rows.append(
                (
                    Text(r["rater_b"]),
                    Text(str(s["label"])),
                    Count(s["support"]),
                    Est(None),
                    Est(s["precision"], pct=True),
                    Est(s["recall"], pct=True),
                    Est(s["f1"]),
                )
            )
    columns = _cols(
        "Judge",
        "Verdict",
        "n (majority)",
        "Accuracy",
        "Precision",
        "Recall",
        "F1 (all: macro)",
        numeric=(2, 3, 4, 5, 6),
    )
    return _table("Judge vs the reviewers' majority, per verdict", columns, rows)


def slices(c: dict[str, Any]) -> Table:
    """The sliced comparisons of a criterion (batch, answer source, statement category)."""
    columns = _cols(*_PAIR, "Slice", "n", "% agreement", "Cohen's κ", numeric=(4, 5, 6))
    rows = (
        (
            *_pair(r),
            Text(r["slice"]),
            Count(r["n"]),
            _metric(r, "percent"),
            _metric(r, "cohen"),
        )
        for r in c["comparisons"]
        if r["slice"] != "all"
    )
    return _table("Slices", columns, rows)


def confusion_records(c: dict[str, Any]) -> list[dict[str, Any]]:
    """The comparisons whose confusion matrix the report shows (reviewers, majority, AB/BA)."""
    return [
        r
        for r in rt.whole(c)
        if r["view"] in ("human_human", "majority_judge", "ab_ba")
        or (r["view"] == "human_judge" and len(c["reviewers"]) == 1)
    ]


def adjudicated(report: dict[str, Any]) -> Table:
    """Adjudicated units and unresolved disagreements per criterion."""
    columns = _cols("Criterion", "Adjudicated", "Unresolved disagreements", numeric=(1, 2))
    rows = (
        (Text(c["criterion"]), Count(c["adjudicated"]), Count(c["unresolved"]))
        for c in report["adjudication"]["criteria"]
    )
    return _table("Adjudication", columns, rows)


def reference(report: dict[str, Any]) -> Table:
    """Each rater against the adjudicated reference: accuracy and Cohen's κ."""
    columns = _cols("Criterion", "Rater", "n", "Accuracy", "Cohen's κ", numeric=(2, 3, 4))
    rows = (
        (
            Text(c["criterion"]),
            Text(r["rater_a"]),
            Count(r["n"]),
            _metric(r, "percent"),
            _metric(r, "cohen"),
        )
        for c in report["adjudication"]["criteria"]
        for r in c["comparisons"]
    )
    return _table("Each rater vs the adjudicated reference", columns, rows)


def consistency(report: dict[str, Any]) -> Table:
    """Judge self-consistency per judge and criterion."""
    columns = (
        *_cols("Judge", "Criterion", "Verdicts", "Missing", "Failed samples", numeric=(2, 3, 4)),
        Column("Samples disagreed (within an order)", True, "Samples disagreed"),
        Column("Position inconsistent (AB ≠ BA)", True),
        Column("Panel members disagreed", True),
    )
    rows = (
        (
            Text(r["judge"]),
            Text(r["criterion"]),
            Count(r["n_verdicts"]),
            Count(r["missing"]),
            Count(r["failed_samples"]),
            Share(r["samples_disagreed"]),
            Share(r["position_inconsistent"]),
            Share(r["judges_disagreed"]),
        )
        for r in report["consistency"]
    )
    return _table("Judge self-consistency", columns, rows)


def anchoring(report: dict[str, Any]) -> Table:
    """Labels changed after the reveal, per reviewer, and toward whom."""
    columns = (
        *_cols("Reviewer", "Labels", numeric=(1,)),
        Column("Changed after the reveal", True, "Changed"),
        Column("Of those: toward a judge's verdict", True, "Toward judge"),
        Column("Of those: toward the other reviewers' majority", True, "Toward reviewers"),
        Column("Of those: elsewhere", True, "Elsewhere"),
    )
    rows = (
        (
            Text(r["reviewer"]),
            Count(r["n_labels"]),
            Share(r["changed"]),
            Share(r["toward_judge"]),
            Share(r["toward_reviewers"]),
            Share(r["elsewhere"]),
        )
        for r in report["anchoring"]
    )
    return _table("Anchoring: labels changed after the reveal", columns, rows)


def consensus_accuracy(rec: dict[str, Any]) -> Table:
    """One criterion's Dawid–Skene fit: each reviewer's accuracy and confusion-matrix diagonal."""
    cats = rec["categories"]
    columns = (
        *_cols("Reviewer", "Estimated accuracy", numeric=(1,)),
        *(Column(f"Says {c} when it is {c}", True, f"{c}") for c in cats),
    )
    rows: list[tuple[Cell, ...]] = [
        (
            Text(name),
            Number(rec["accuracy"][name], 3),
            # A category the model gives no units (prior ≈ 0) has no confusion row to speak of:
            # its diagonal is only the smoothing; shown as "–".
            *(
                Number(
                    rec["confusion"][name][i][i] if rec["prior"].get(c, 1.0) >= 1e-3 else None,
                    3,
                )
                for i, c in enumerate(cats)
            ),
        )
        for name in rec["reviewers"]
    ]
    return _table(f"Dawid–Skene consensus: {rec['criterion']}", columns, rows)


def gold(report: dict[str, Any]) -> Table:
    """Each rater's accuracy on the gold units, per criterion."""
    columns = (
        *_cols("Rater", "Kind", "Criterion", "Gold units", "Correct", numeric=(3, 4)),
        Column("Accuracy on gold", True, "Accuracy"),
    )
    rows = (
        (
            Text(r["rater"]),
            Text(r["rater_kind"]),
            Text(r["criterion"]),
            Count(r["n"]),
            Count(r["correct"]),
            Share(r["accuracy"]),
        )
        for r in report["gold"]
    )
    return _table("Accuracy on gold items", columns, rows)


def per_item_reviewers(e: dict[str, Any]) -> Table:
    """Active seconds per item per reviewer (median, IQR) and the projection."""
    p = e["per_item"]
    columns = _cols(
        "Reviewer",
        "Items timed",
        "Median per item",
        "IQR",
        f"Projected for {p['n_more']:,} items",
        numeric=(1, 2, 4),
    )
    rows = (
        (
            Text(r["reviewer"]),
            Count(r["items"]),
            Duration(r["median_s"]),
            Concat((Duration(r["q1_s"]), Label("–"), Duration(r["q3_s"]))),
            Duration(r["projected_s"]),
        )
        for r in p["reviewers"]
    )
    return _table("Reviewer time per item", columns, rows)


def per_item_judges(e: dict[str, Any]) -> Table:
    """Cost and calls per judged item per judge, and the projection."""
    p = e["per_item"]
    columns = _cols(
        "Judge",
        "Items judged",
        "Calls per item",
        "Cost per item",
        f"Projected for {p['n_more']:,} items",
        numeric=(1, 2, 3, 4),
    )
    rows = (
        (
            Text(r["judge"]),
            Count(r["items"]),
            Number(r["calls_per_item"], 1),
            Money(r["cost_per_item_usd"]),
            Money(r["projected_cost_usd"]),
        )
        for r in p["judges"]
    )
    return _table("Judge cost per item", columns, rows)


def win_notes(report: dict[str, Any]) -> list[tuple[str, str]]:
    """``(criterion, note)`` once per criterion with win rates: how wins are counted."""
    return list(dict.fromkeys((r["criterion"], r["note"]) for r in report["win_rates"]))


def win_rates(report: dict[str, Any]) -> Table:
    """Win / tie / loss / neither shares per criterion, rater and model."""
    columns = _cols(*_BY_MODEL, "Win", "Tie", "Loss", "Neither", numeric=range(3, 8))
    rows = (
        (*_by_model(r, s), *[Est(s[o], pct=True) for o in ("win", "tie", "loss", "neither")])
        for r in report["win_rates"]
        for s in r["sources"]
    )
    return _table("Win rates", columns, rows)


def kqa(k: dict[str, Any]) -> Table:
    """K-QA comprehensiveness and hallucinations per rater and model."""
    columns = (
        Column("Rater"),
        Column("Model"),
        Column("Answers labelled", True, "Answers"),
        Column("Statements labelled", True, "Statements"),
        Column("Comprehensiveness (answered)", True, "Answered"),
        Column("Comprehensiveness (all)", True, "All questions"),
        Column("Hallucinations (answered)", True, "Answered"),
        Column("Hallucinations (all)", True, "All questions"),
        Column("Answers with ≥1 contradiction", True),
        Column("Declined to answer", True, "Declined"),
    )
    rows = tuple(
        (
            Text(r["rater"]),
            Text(src),
            Ratio(f["answers_with_labels"], f["answers"]),
            Ratio(f["statements_labelled"], f["statements"]),
            Est(f["comprehensiveness_answered"], pct=True),
            Est(f["comprehensiveness_all"], pct=True),
            Est(f["hallucinations_answered"]),
            Est(f["hallucinations_all"]),
            Est(f["contradiction_share"], pct=True),
            Share(f["declined_share"]),
        )
        for r in k["raters"]
        for src, f in r["by_source"].items()
    )
    groups = (
        ("", 2),
        ("Labelled", 2),
        ("Comprehensiveness", 2),
        ("Hallucinations per answer", 2),
        ("", 2),
    )
    return Table("K-QA metrics", columns, rows, groups)


def ratings(recs: list[dict[str, Any]]) -> Table:
    """Rating means per criterion and rater, over all models and per model."""
    columns = _cols(*_BY_MODEL, "Mean [95% CI]", "SD", numeric=(3, 4, 5))
    rows = (
        (*_by_model(r, s), Est(s), Number(s.get("sd")))
        for r in recs
        for s in [{"source": "all models", **r["overall"]}, *r["sources"]]
    )
    return _table("Rating means", columns, rows)


def judges(p: dict[str, Any]) -> Table:
    """The judges and their settings (the protocol section)."""
    columns = _cols(
        "Judge",
        "Provider",
        "Model",
        "Samples",
        "Temperature",
        "Statements protocol",
        "Panel of",
        "Verdicts",
        numeric=(3, 7),
    )
    rows = []
    for j in p["judges"]:
        members = ", ".join(j.get("members") or [])
        rule = f" ({j['panel_rule']})" if j.get("panel_rule") else ""
        temperature = j.get("temperature")
        rows.append(
            (
                Text(j["name"]),
                Text(j.get("provider") or "–"),
                Text(j.get("model") or "–"),
                Count(j.get("samples")),
                Text("–" if temperature is None else temperature),
                Text(j.get("statements_protocol") or "–"),
                # Markdown names the panel rule too; HTML only the members.
                ByFormat(Text(members + rule or "–"), Text(members or "–")),
                Count(j.get("verdicts")),
            )
        )
    return _table("Judges", columns, rows)


def templates(p: dict[str, Any]) -> Table:
    """The prompt templates each judge used, with their hashes and call counts."""
    columns = _cols("Judge", "Template", "Hash", "Calls", numeric=(3,))
    rows = (
        (Text(j["name"]), Text(t["template"]), Code(t["hash"]), Count(t["calls"]))
        for j in p["judges"]
        for t in j["templates"]
    )
    return _table("Templates", columns, rows)


def judge_effort(e: dict[str, Any]) -> Table:
    """Judge calls, tokens, cost and latency per judge."""
    columns = _cols(
        "Judge",
        "Calls",
        "Failed",
        "Errors",
        "Input tokens",
        "Output tokens",
        "Cost",
        "Latency (sum)",
        numeric=range(1, 8),
    )
    rows = (
        (
            Text(j["judge"]),
            Count(j["calls"]),
            Count(j["failed"]),
            Count(j["errors"]),
            Count(j["input_tokens"]),
            Count(j["output_tokens"]),
            Money(j["cost_usd"]),
            Duration(j["latency_s"]),
        )
        for j in e["per_judge"]
    )
    return _table("Judge effort", columns, rows)


def reviewer_effort(e: dict[str, Any]) -> Table:
    """Labels and time per reviewer."""
    columns = _cols(
        "Reviewer", "Labels", "Items timed", "Time", "Time per item", numeric=range(1, 5)
    )
    rows = (
        (
            Text(r["reviewer"]),
            Count(r["labels"]),
            Count(r["items"]),
            Duration(r["seconds"]),
            Duration(r["seconds_per_item"]),
        )
        for r in e["reviewers"]
    )
    return _table("Reviewer effort", columns, rows)


def medrgb(m: dict[str, Any]) -> Table:
    """MedRGB: each rater's mean score by source model, test and p (BCa intervals)."""
    rows: list[tuple[Cell, ...]] = []
    for r in m["raters"]:
        groups = (("all", [r["overall"]]), ("model", r["by_source"]), ("test", r["by_test"]))
        for dim, records in (*groups, ("p", r["by_p"])):
            for rec in records:
                rows.append(
                    (Text(r["rater"]), Label(dim), Text(str(rec["key"])), Count(rec["n"]), Est(rec))
                )
    columns = _cols("Rater", "By", "Value", "n", "Mean score [95% CI]", numeric=(3, 4))
    return _table("Mean score against the ground truth (1 / 0.5 / 0)", columns, rows)


def medrgb_abstentions(m: dict[str, Any]) -> Table:
    """MedRGB: the share of predictions that decline to answer, per p."""
    rows = (
        (Text(str(a["key"])), Count(a["n"]), Count(a["count"]), Est(a, pct=True))
        for a in m["abstention_by_p"]
    )
    columns = _cols("p", "Predictions", "Abstentions", "Share [95% CI]", numeric=(1, 2, 3))
    return _table("Abstentions (insufficient information) by p", columns, rows)
