"""A study at a glance: items, labels per rater, judge coverage, spend (for ``status``)."""

from __future__ import annotations

from typing import Any

from .assignments import assignment_counts
from .items import unit_count
from .json_types import JsonObject
from .judge_versions import JudgeVersion, list_versions
from .judgments import not_judged
from .label_reads import progress
from .reads import item_kind_counts
from .retirements import retired_ids, retirements
from .study import Study


def summary(study: Study) -> JsonObject:
    """Everything ``medjudge status`` shows, as JSON-ready data."""
    conn = study.conn
    kinds = item_kind_counts(study)  # retired items (``medjudge retire``) counted apart
    units_by_kind = {
        r[0]: r[1]
        for r in conn.execute(
            "SELECT i.kind, count(*) FROM units u JOIN items i ON i.id = u.item_id GROUP BY i.kind"
        )
    }
    for r in retirements(study):
        units_by_kind[r.kind] -= unit_count(study, r.item_id)
    units_by_kind = {k: n for k, n in units_by_kind.items() if n}
    reviewers: list[dict[str, Any]] = []
    judges: list[dict[str, Any]] = []
    assigned = assignment_counts(study)
    for p in progress(study):
        row: dict[str, Any] = {
            "name": p.rater,
            "units_labelled": p.units_labelled,
            "items_done": p.items_done,
        }
        if p.kind == "human":
            row["items_assigned"] = assigned.pop(p.rater, 0)
            reviewers.append(row)
        else:
            judges.append(row)
    for login, n in sorted(assigned.items()):  # assigned, nothing labelled yet
        reviewers.append({"name": login, "units_labelled": 0, "items_done": 0, "items_assigned": n})
    missing = {
        r[0]: r[1]
        for r in conn.execute(
            "SELECT r.name, count(*) FROM current_verdicts v JOIN raters r ON r.id = v.rater_id "
            "WHERE v.status = 'missing' GROUP BY r.name"
        )
    }
    versions = {v.name: v for v in list_versions(study)}
    listed = {j["name"] for j in judges}
    for name in versions:  # a version whose verdicts are all missing has no labels
        if name not in listed:
            judges.append({"name": name, "units_labelled": 0, "items_done": 0})
    unjudged = not_judged(study)
    # a judge with nothing stored (a run that failed before its first call: no key) is not one
    judges = [j for j in judges if j["units_labelled"] or j["name"] in versions]
    for name in unjudged:  # a version whose every call errored has no labels either
        if name not in {j["name"] for j in judges}:
            judges.append({"name": name, "units_labelled": 0, "items_done": 0})
    for j in judges:
        j["missing_verdicts"] = missing.get(j["name"], 0)
        why = unjudged.get(j["name"], {})
        j["not_judged_items"] = sum(why.values())
        j["not_judged_why"] = why
        j["version"] = _version_info(versions.get(j["name"]))
    calls = conn.execute(
        "SELECT count(*), coalesce(sum(status = 'failed'), 0), coalesce(sum(status = 'error'), 0), "
        "coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0) "
        "FROM judge_calls"
    ).fetchone()
    roles: dict[str, list[str]] = {}
    for r in conn.execute("SELECT login, role FROM roles ORDER BY role, login"):
        roles.setdefault(r[1], []).append(r[0])
    seconds = conn.execute("SELECT coalesce(sum(seconds), 0) FROM item_time").fetchone()[0]
    return {
        "study": study.settings.name,
        "path": str(study.path),
        "items": {"total": sum(kinds.values()), **kinds},
        "units": {"total": sum(units_by_kind.values()), **units_by_kind},
        "retired_items": len(retired_ids(study)),
        "reviewers": reviewers,
        "judges": judges,
        "judge_calls": {
            "total": calls[0],
            "failed_samples": calls[1],
            "errors": calls[2],
            "input_tokens": calls[3],
            "output_tokens": calls[4],
            "cost_usd": round(calls[5], 6),
        },
        "adjudications": conn.execute(
            "SELECT count(DISTINCT unit_id) FROM adjudications"
        ).fetchone()[0],
        "roles": roles,
        "review_seconds": round(float(seconds), 1),
        "batches_pending": [
            {
                "judge": r[0],
                "provider": r[1],
                "id": r[2],
                "state": r[3],
                "provider_status": r[4],
                "calls": r[5],
                "submitted_at": r[6],
            }
            for r in conn.execute(
                "SELECT judge, provider, provider_id, state, provider_status, n_calls, "
                "submitted_at FROM judge_batches WHERE state IN ('intent', 'submitted', 'ended') "
                "ORDER BY id"
            )
        ],
        "blind": study.settings.blind,
    }


def _version_info(v: JudgeVersion | None) -> JsonObject | None:
    """What ``status`` says about a judge version (None: a judge imported with labels)."""
    if v is None:
        return None
    return {
        "key": v.key,
        "short": v.short,
        "spec": v.spec,
        "params": v.params,
        "templates": {task: t.get("template") for task, t in v.templates.items()},
        "members": list(v.members),
        "created_at": v.created_at,
    }


def describe_version(info: JsonObject | None) -> str:
    """One line of a judge version's identity, for ``status``."""
    if info is None:
        return "imported with labels (no version)"
    if info["members"]:
        return f"version {info['short']}: panel ({info['params'].get('rule')}) of " + ", ".join(
            info["members"]
        )
    p = info["params"]
    parts = [f"version {info['short']}: {info['spec']}"]
    if "samples" in p:
        parts.append(
            f"{p['samples']} samples, temperature {p.get('temperature')}, "
            f"max tokens {p.get('max_tokens')}, statements {p.get('statements_protocol')}"
        )
    if info["templates"]:
        parts.append("templates " + ", ".join(f"{k}={v}" for k, v in info["templates"].items()))
    return "; ".join(parts)
