"""Roles in a study: leads, reviewers, adjudicators — and who may do what.

What this protects against: mistakes and casual curiosity among colleagues who share a study
file through medjudge (a reviewer peeking at the judge's verdict, or adjudicating). It is not
a security boundary: anyone who can write the study file can change it with any SQLite tool.
The real boundary is the file's permissions (see the README: a group, mode 660, one study file
per team). Identity is the login name.

Rules:
- ``lead``: changes settings, assignments and roles, and retires items. A study without any lead (made by a
  script) lets anyone act as lead until one is named; ``medjudge init`` names its creator.
- ``adjudicator``: the only role that records adjudications (leads grant it, also to themselves).
- ``reviewer``: labels items. Anyone may review unless the study sets ``roles_enforced``;
  then only logins with a role may.
"""

from __future__ import annotations

from .db import StudyError
from .people import given_name, person_name
from .study import Study, audit, utcnow

ROLES = ("lead", "reviewer", "adjudicator")


class PermissionDenied(StudyError):
    """The login lacks the role an action needs."""


def roles_of(study: Study, login: str) -> set[str]:
    """The roles a login holds."""
    login = person_name(login, "login")
    return {r[0] for r in study.conn.execute("SELECT role FROM roles WHERE login = ?", (login,))}


def members(study: Study) -> dict[str, list[str]]:
    """role → logins."""
    out: dict[str, list[str]] = {r: [] for r in ROLES}
    for login, role in study.conn.execute("SELECT login, role FROM roles ORDER BY login"):
        out[role].append(login)
    return out


def has_lead(study: Study) -> bool:
    """Whether any lead is named."""
    return study.conn.execute("SELECT 1 FROM roles WHERE role = 'lead'").fetchone() is not None


def require(study: Study, login: str, action: str) -> None:
    """Check that ``login`` may perform ``action`` (settings, assign, roles, judge, retire,
    requeue, adjudicate, review). Settings, assignments, roles, judge runs (which spend money),
    retiring items and sending labels back to a reviewer are the lead's, once the study names a
    lead.

    Raises:
        PermissionDenied: with a message saying which role is needed and who can grant it.
    """
    login = person_name(login, "login")
    held = roles_of(study, login)
    if action in ("settings", "assign", "roles", "judge", "retire", "requeue"):
        if "lead" in held or not has_lead(study):
            return
        leads = ", ".join(members(study)["lead"])
        raise PermissionDenied(f"{login} is not a lead of this study; ask a lead ({leads})")
    if action == "adjudicate":
        if "adjudicator" in held:
            return
        raise PermissionDenied(
            f"{login} is not an adjudicator of this study; a lead can run "
            f"`medjudge role {study.path} add {login} --as adjudicator`"
        )
    if action == "review":
        if not study.settings.roles_enforced or held:
            return
        raise PermissionDenied(
            f"{login} has no role in this study (roles are enforced); ask a lead"
        )
    raise ValueError(f"unknown action {action!r}")


def grant(study: Study, login: str, role: str, *, by: str) -> bool:
    """Give a role (True if it was new). The first lead may be named by anyone."""
    if role not in ROLES:
        raise StudyError(f"unknown role {role!r}: use {', '.join(ROLES)}")
    login, by = given_name(login, "login"), person_name(by, "login")
    require(study, by, "roles")
    with study.tx() as conn:
        cur = conn.execute(
            "INSERT OR IGNORE INTO roles (login, role, granted_by, at) VALUES (?, ?, ?, ?)",
            (login, role, by, utcnow()),
        )
        if cur.rowcount:
            audit(conn, by, "role:add", f"role:{login}", None, role)
        return cur.rowcount == 1


def revoke(study: Study, login: str, role: str, *, by: str) -> bool:
    """Take a role away (True if it was held).

    Raises:
        PermissionDenied: ``by`` is not a lead, or this would remove the study's last lead.
    """
    login, by = person_name(login, "login"), person_name(by, "login")
    require(study, by, "roles")
    with study.tx() as conn:
        if role == "lead":
            leads = [r[0] for r in conn.execute("SELECT login FROM roles WHERE role = 'lead'")]
            if leads == [login]:
                raise PermissionDenied(
                    f"{login} is the last lead of this study and cannot be removed; "
                    f"name another lead first (`medjudge role {study.path} add LOGIN --as lead`)"
                )
        cur = conn.execute("DELETE FROM roles WHERE login = ? AND role = ?", (login, role))
        if cur.rowcount:
            audit(conn, by, "role:remove", f"role:{login}", role, None)
        return cur.rowcount == 1
