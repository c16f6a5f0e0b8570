"""The report as one long-format CSV: one row per figure.

Columns: ``section, criterion, slice, rater_a, rater_b, metric, value, ci_low, ci_high, n,
reason, method`` (the interval's method). ``section`` is the view (``human_human``,
``majority_judge``, ``ab_ba``, …; for
pairwise criteria the without-ties variant is ``human_human/without_ties``), or
``reference``, ``unresolved``, ``consistency``, ``judge_version``, ``judge_vs_judge``,
``win_rate``, ``kqa``, ``kqa_answer``, ``rating_mean``, ``classification`` (a judge against the
reviewers' majority: accuracy, macro_f1, ``precision:<verdict>`` …), ``confusion/<view>``
(metric ``row / column``, value = count) and
``effort``. Undefined figures have an empty value and a ``reason`` (a column added to the
minimal list so that "undefined" is never silent).

Spreadsheet safety: a text cell that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage
return gets a leading apostrophe so spreadsheet programs do not run it as a formula; numbers
are written as numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from medjudge.store.literal import printable

COLUMNS = (
    "section",
    "criterion",
    "slice",
    "rater_a",
    "rater_b",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "reason",
    "method",
)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    t = printable(str(value))
    return "'" + t if t[:1] in ("=", "+", "-", "@", "\t", "\r") else t


def _row(
    section: str,
    criterion: object = None,
    slice_: object = "all",
    rater_a: object = None,
    rater_b: object = None,
    metric: str = "",
    est: dict[str, Any] | None = None,
    value: object = None,
    n: object = None,
) -> list[str]:
    if est is not None:
        cells = [
            est.get("value"),
            est.get("ci_low"),
            est.get("ci_high"),
            est.get("n"),
            est.get("reason"),
            est.get("method") if est.get("ci_low") is not None else None,
        ]
    else:
        cells = [value, None, None, n, None, None]
    return [_text(x) for x in (section, criterion, slice_, rater_a, rater_b, metric, *cells)]


def _comparisons(report: dict[str, Any]) -> Iterator[list[str]]:
    for c in report["criteria"]:
        for r in c["comparisons"]:
            section = r["view"] + ("/without_ties" if r.get("ties") == "without" else "")
            for name, est in r["metrics"].items():
                yield _row(section, c["name"], r["slice"], r["rater_a"], r["rater_b"], name, est)
            for v in r.get("fleiss_per_category") or []:
                name = f"fleiss:{v['category']}"
                yield _row(section, c["name"], r["slice"], r["rater_a"], r["rater_b"], name, v)
            cl = r.get("classification")
            if cl:
                for name in ("accuracy", "macro_f1"):
                    yield _row(
                        "classification",
                        c["name"],
                        r["slice"],
                        r["rater_a"],
                        r["rater_b"],
                        name,
                        cl[name],
                    )
                for lab in cl["labels"]:
                    for name in ("precision", "recall", "f1"):
                        yield _row(
                            "classification",
                            c["name"],
                            r["slice"],
                            r["rater_a"],
                            r["rater_b"],
                            f"{name}:{lab['label']}",
                            lab[name],
                        )
            for v in r.get("vs_majority") or []:
                yield _row(
                    section,
                    c["name"],
                    r["slice"],
                    v["rater"],
                    "majority of the others",
                    "percent",
                    v,
                )
            conf = r.get("confusion")
            if conf and r["slice"] == "all" and r.get("ties") != "without":
                cats = conf["categories"]
                for i, row in enumerate(conf["matrix"]):
                    for j, count in enumerate(row):
                        yield _row(
                            f"confusion/{r['view']}",
                            c["name"],
                            "all",
                            r["rater_a"],
                            r["rater_b"],
                            f"{cats[i]} / {cats[j]}",
                            value=count,
                            n=r["n"],
                        )


def _judges(report: dict[str, Any]) -> Iterator[list[str]]:
    """Section ``judge_version`` (one judge version's figures; ``rater_a`` is the version, the
    criterion empty for whole-version figures) and ``judge_vs_judge``."""
    judges = report.get("judges") or {"versions": [], "pairs": []}
    for v in judges["versions"]:
        name = v["name"]
        yield _row("judge_version", rater_a=name, metric="key", value=v["key"])
        for key in ("missing", "samples_disagreed"):
            yield _row("judge_version", rater_a=name, metric=key, est=v[key])
        for key, est in (v["position"] or {}).items():
            if isinstance(est, dict):
                yield _row("judge_version", rater_a=name, metric=f"position_{key}", est=est)
        for key in (
            "verdicts",
            "items",
            "failed_samples",
            "calls",
            "input_tokens",
            "output_tokens",
            "cost_usd",
            "cost_per_item",
            "latency_s",
            "wall_s",
        ):
            yield _row("judge_version", rater_a=name, metric=key, value=v[key])
        for rec in v["vs_majority"]:
            c = rec["criterion"]
            for key in ("kappa", "ac1", "accuracy"):
                yield _row(
                    "judge_version",
                    c,
                    rater_a=name,
                    rater_b="majority of reviewers",
                    metric=key,
                    est=rec[key],
                )
            yield _row(
                "judge_version",
                c,
                rater_a=name,
                rater_b="majority of reviewers",
                metric="macro_f1",
                est=rec["macro_f1"],
            )
            for p in rec["per_value"]:
                for key in ("precision", "recall", "f1"):
                    yield _row(
                        "judge_version",
                        c,
                        f"verdict={p['value']}",
                        name,
                        "majority of reviewers",
                        key,
                        est=p[key],
                    )
    for p in judges["pairs"]:
        for key in ("kappa", "ac1", "percent"):
            yield _row(
                "judge_vs_judge",
                p["criterion"],
                rater_a=p["a"],
                rater_b=p["b"],
                metric=key,
                est=p[key],
            )


def _other(report: dict[str, Any]) -> Iterator[list[str]]:
    for c in report["adjudication"]["criteria"]:
        yield _row(
            "unresolved", c["criterion"], metric="unresolved_disagreements", value=c["unresolved"]
        )
        yield _row("unresolved", c["criterion"], metric="adjudicated", value=c["adjudicated"])
        for r in c["comparisons"]:
            for metric, key in (("accuracy", "percent"), ("cohen", "cohen")):
                yield _row(
                    "reference",
                    c["criterion"],
                    "all",
                    r["rater_a"],
                    r["rater_b"],
                    metric,
                    r["metrics"][key],
                )
    for r in report["consistency"]:
        for key in ("samples_disagreed", "position_inconsistent", "judges_disagreed"):
            if r[key] is not None:
                yield _row(
                    "consistency", r["criterion"], rater_a=r["judge"], metric=key, est=r[key]
                )
        for key in ("n_verdicts", "missing", "failed_samples"):
            yield _row("consistency", r["criterion"], rater_a=r["judge"], metric=key, value=r[key])
    yield from _judges(report)
    for r in report["win_rates"]:
        for s in r["sources"]:
            for o in ("win", "tie", "loss", "neither"):
                yield _row(
                    "win_rate",
                    r["criterion"],
                    f"source={s['source']}",
                    r["rater"],
                    s["source"],
                    o,
                    s[o],
                )
    m = report.get("medrgb")
    if m:
        for r in m["raters"]:
            for dim in ("by_source", "by_test", "by_p"):
                for rec in r[dim]:
                    yield _row(
                        "medrgb",
                        "match",
                        f"{dim[3:]}={rec['key']}",
                        r["rater"],
                        None,
                        "mean_score",
                        rec,
                    )
            yield _row("medrgb", "match", "all", r["rater"], None, "mean_score", r["overall"])
        for a in m["abstention_by_p"]:
            yield _row("medrgb", "match", f"p={a['key']}", None, None, "abstention_share", a)
    kqa = report.get("kqa")
    if kqa:
        for r in kqa["raters"]:
            for src, f in r["by_source"].items():
                for key in (
                    "comprehensiveness_answered",
                    "comprehensiveness_all",
                    "hallucinations_answered",
                    "hallucinations_all",
                    "contradiction_share",
                ):
                    if f[key] is not None:
                        yield _row(
                            "kqa", "entailment", f"source={src}", r["rater"], src, key, f[key]
                        )
        for a in kqa["answers"]:
            for key in ("comprehensiveness", "hallucinations"):
                yield _row(
                    "kqa_answer",
                    "entailment",
                    f"item={a['item']}",
                    a["rater"],
                    a["source"],
                    key,
                    value=a[key],
                    n=a["labelled"],
                )
    for r in report["ratings"]:
        yield _row("rating_mean", r["criterion"], "all", r["rater"], None, "mean", r["overall"])
        for s in r["sources"]:
            yield _row(
                "rating_mean",
                r["criterion"],
                f"source={s['source']}",
                r["rater"],
                s["source"],
                "mean",
                s,
            )
    e = report["effort"]
    for key, value in e["judge_calls"].items():
        yield _row("effort", metric=f"judge_{key}", value=value)
    for j in e["per_judge"]:
        for key in (
            "calls",
            "failed",
            "errors",
            "input_tokens",
            "output_tokens",
            "cost_usd",
            "latency_s",
        ):
            yield _row("effort", rater_a=j["judge"], metric=f"judge_{key}", value=j[key])
    for r in e["reviewers"]:
        yield _row(
            "effort",
            rater_a=r["reviewer"],
            metric="review_seconds",
            value=r["seconds"],
            n=r["items"],
        )


def render_csv(report: dict[str, Any]) -> str:
    """Every figure of the report as rows of one CSV table (header first)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_comparisons(report))
    writer.writerows(_other(report))
    return buf.getvalue()
