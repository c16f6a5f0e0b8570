"""Judge versions: every distinct judge configuration is its own rater.

Storage contract:
- A judge version is one ``raters`` row (kind ``judge``) and one ``judge_versions`` row whose
  ``key`` is the SHA-256 of its identity (provider, model, endpoint, the templates' hashes and
  the parameters; for a panel, its members' keys and its rule). Once the key is written neither
  row changes (triggers of migration 004): a run with other settings is a new version with its
  own calls' verdicts, and nothing an earlier version wrote is replaced.
- Judges recorded before migration 004 have a row with ``key`` NULL: their templates were never
  recorded with the rater. The first run whose settings match one of them — same name, same
  parameters, and every template its calls used among the new version's templates — adopts it
  by filling in key and templates, once. Any other run is a new version.
- Names: ``--name`` if given (refused when another version or a reviewer holds it); otherwise
  the model spec, plus ``#`` and the key's first 6 hex digits when another version already uses
  the plain spec.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from .db import StudyError
from .people import given_name, person_name
from .reads import CALL_SUMS, CallTotals
from .study import Study, audit, dumps, utcnow

SHORT = 6
"""Hex digits of a version's key shown beside its name."""


class VersionError(StudyError):
    """A judge version cannot be registered under the name asked for."""


@dataclass(frozen=True)
class VersionSpec:
    """The identity of a judge version, as the judging layer computes it.

    Attributes:
        key: SHA-256 (hex) of everything below.
        spec: ``provider:model[@url]`` (``panel`` for a panel).
        templates: task → ``{"template": name, "hash": hash}``.
        params: samples, temperature, max tokens, statements protocol (panel: rule).
        members: a panel's member version names, in order.
        config: the rater row's ``config`` (shown in reports).
    """

    key: str
    spec: str
    templates: dict[str, dict[str, str]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    members: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeVersion:
    """A judge version stored in a study."""

    name: str
    rater_id: int
    key: str | None
    """None: recorded before migration 004 and not adopted by a run since."""
    spec: str
    templates: dict[str, dict[str, str]]
    params: dict[str, Any]
    members: tuple[str, ...]
    created_at: str

    @property
    def short(self) -> str:
        """The key's first hex digits, or ``legacy`` for an unadopted pre-004 judge."""
        return self.key[:SHORT] if self.key else "legacy"

    @property
    def is_panel(self) -> bool:
        """A panel of several versions."""
        return bool(self.members)


def _loads(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        return None


def _version(row: sqlite3.Row) -> JudgeVersion:
    members = _loads(row["members"])
    return JudgeVersion(
        name=row["name"],
        rater_id=int(row["rater_id"]),
        key=row["key"],
        spec=row["spec"],
        templates=_loads(row["templates"]) or {},
        params=_loads(row["params"]) or {},
        members=tuple(members) if isinstance(members, list) else (),
        created_at=row["created_at"],
    )


_SELECT = (
    "SELECT r.name, v.rater_id, v.key, v.spec, v.templates, v.params, v.members, v.created_at "
    "FROM judge_versions v JOIN raters r ON r.id = v.rater_id"
)


_USED = (
    " WHERE EXISTS (SELECT 1 FROM judge_calls c WHERE c.judge = r.name)"
    " OR EXISTS (SELECT 1 FROM verdicts x WHERE x.rater_id = v.rater_id)"
    " OR EXISTS (SELECT 1 FROM judge_batches b WHERE b.judge = r.name)"
)
"""A version that has something to show: a stored call, a verdict, or a batch at a provider."""


def list_versions(study: Study, *, unused: bool = False) -> list[JudgeVersion]:
    """The study's judge versions, in the order they were first registered: those with a
    stored call, a verdict or a batch (a run that failed before its first call — no key —
    leaves no version in ``status``, the report or the app), or with ``unused`` every one."""
    where = "" if unused else _USED
    return [_version(r) for r in study.conn.execute(_SELECT + where + " ORDER BY r.id")]


def get_version(study: Study, name: str) -> JudgeVersion | None:
    """The version registered under a rater name, if any."""
    row = study.conn.execute(_SELECT + " WHERE r.name = ?", (name,)).fetchone()
    return _version(row) if row else None


def _adoptable(conn: sqlite3.Connection, old: JudgeVersion, new: VersionSpec) -> bool:
    """A pre-004 judge is this version if its parameters and the templates it used match."""
    if old.key is not None:
        return False
    if new.members:
        return list(old.members) == list(new.members) and old.params.get("rule") == new.params.get(
            "rule"
        )
    if any(old.params.get(k) != v for k, v in new.params.items()) or old.spec != new.spec:
        return False
    known = {(t["template"], t["hash"]) for t in new.templates.values()}
    used = {
        (r[0], r[1])
        for r in conn.execute(
            "SELECT DISTINCT template, template_hash FROM judge_calls WHERE judge = ?", (old.name,)
        )
    }
    return used <= known


def version_name(study: Study, version: VersionSpec, name: str | None = None) -> str:
    """The rater name a version has or would get (read only; see :func:`register_version`).

    Raises:
        VersionError: ``name`` is held by a reviewer or another judge version, or the version
            is already in the study under another name.
    """
    conn = study.conn
    row = conn.execute(_SELECT + " WHERE v.key = ?", (version.key,)).fetchone()
    if row is not None:
        existing = _version(row)
        if name is not None and person_name(name, "--name") != existing.name:
            raise VersionError(
                f"this judge version ({version.spec}, {existing.short}) is already in the study "
                f"as {existing.name!r}; run it again under that name (a version is never renamed)"
            )
        return existing.name
    if name is not None:
        name = given_name(name, "--name")
        holder = conn.execute("SELECT kind FROM raters WHERE name = ?", (name,)).fetchone()
        if holder is not None and holder[0] != "judge":
            raise VersionError(f"--name {name!r}: that name is a reviewer's in this study")
        if holder is not None:
            old = get_version(study, name)
            if old is None or not _adoptable(conn, old, version):
                what = (
                    f"version {old.short} ({old.spec})" if old else "a judge imported with labels"
                )
                raise VersionError(
                    f"--name {name!r} is already used by {what} with other settings; "
                    "choose another name (each version keeps its own verdicts)"
                )
        return name
    base = version.spec if not version.members else "panel:" + "+".join(version.members)
    candidates = [base] + [f"{base}#{version.key[:n]}" for n in range(SHORT, len(version.key) + 1)]
    for candidate in candidates:
        holder = conn.execute("SELECT kind FROM raters WHERE name = ?", (candidate,)).fetchone()
        if holder is None:
            return candidate
        old = get_version(study, candidate)
        if old is not None and _adoptable(conn, old, version):
            return candidate
    raise VersionError(f"no free name for judge version {version.key}")  # pragma: no cover


def register_version(
    study: Study, version: VersionSpec, name: str | None = None, *, actor: str = "medjudge"
) -> str:
    """Make sure a judge version exists in the study; returns its rater name.

    An existing version with the same key is reused as it is; a pre-004 judge with matching
    settings is adopted; otherwise a new rater and version row are added (and audited).

    Raises:
        VersionError: see :func:`version_name`.
    """
    with study.tx() as conn:
        chosen = version_name(study, version, name)
        current = get_version(study, chosen)
        if current is not None and current.key == version.key:
            return chosen
        templates, params = dumps(version.templates), dumps(version.params)
        members = dumps(list(version.members)) if version.members else None
        if current is not None:  # a pre-004 judge with these settings: fill its identity in
            conn.execute(
                "UPDATE judge_versions SET key = ?, templates = ?, params = ?, members = ? "
                "WHERE rater_id = ? AND key IS NULL",
                (version.key, templates, params, members, current.rater_id),
            )
            audit(conn, actor, "judge_version", chosen, None, version.key)
            return chosen
        rater_id = study.rater_id(chosen, "judge", version.config, conn=conn)
        conn.execute(
            "INSERT INTO judge_versions (rater_id, key, spec, templates, params, members, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rater_id, version.key, version.spec, templates, params, members, utcnow()),
        )
        audit(conn, actor, "judge_version", chosen, None, version.key)
    return chosen


_TRAIL_KEYS = """
    SELECT t.value FROM current_verdicts v JOIN raters r ON r.id = v.rater_id,
        json_tree(v.trail) t
    WHERE r.name = ? AND json_valid(v.trail) AND t.type = 'text'
        AND (t.key = 'key' OR t.fullkey GLOB '*.calls[[]*]')
"""
"""The call keys a judge's current verdict trails name: each sample's ``calls`` and each
failed sample's ``key``, at any depth of the trail."""


def verdict_call_totals(study: Study, judge: str) -> CallTotals | None:
    """Calls, tokens, cost and summed latency of the stored calls that a judge's current
    verdicts were made from (each call once, however many verdicts name it); None when the
    trails name no call (verdicts imported with labels).

    Computed inside SQLite from the trails, so a judge of 100,000 units costs no memory here.
    """
    conn = study.conn
    if conn.execute(f"SELECT EXISTS ({_TRAIL_KEYS})", (judge,)).fetchone()[0] == 0:
        return None
    row = conn.execute(
        f"SELECT {CALL_SUMS} FROM judge_calls WHERE key IN ({_TRAIL_KEYS})", (judge,)
    ).fetchone()
    calls, ok, failed, errors, tokens_in, tokens_out, cost, latency = row
    return CallTotals(
        int(calls),
        int(ok),
        int(failed),
        int(errors),
        int(tokens_in),
        int(tokens_out),
        float(cost),
        float(latency),
    )


def run_seconds(study: Study) -> dict[str, float]:
    """Wall time of the finished judge runs each judge (by rater name) took part in, summed."""
    out: dict[str, float] = {}
    for name, seconds in study.conn.execute(
        "SELECT j.value, sum((julianday(r.finished_at) - julianday(r.started_at)) * 86400) "
        "FROM judge_runs r, json_each(r.judges) j WHERE r.finished_at IS NOT NULL "
        "AND json_valid(r.judges) GROUP BY j.value"
    ):
        if isinstance(name, str) and seconds is not None:
            out[name] = float(seconds)
    return out
