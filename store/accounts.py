"""Browser logins for ``medjudge serve``: one password hash per login, kept in the study.

Storage contract: the table holds argon2id hashes only (a CHECK refuses anything else, so a
clear-text password cannot be stored by mistake); hashing and verifying are the server's
(``medjudge.serve.passwords``), this module never sees a password. Setting and removing an
account is the lead's and is audited, without the hash. The login is the name the served app
reviews under, exactly as a login name over SSH: roles and assignments name it.
"""

from __future__ import annotations

from .db import StudyError
from .people import given_name, person_name
from .roles import require
from .study import Study, audit, utcnow

HASH_PREFIX = "$argon2id$"
"""How every stored hash begins (the PHC string of argon2id)."""


def set_account(study: Study, login: str, password_hash: str, *, by: str) -> bool:
    """Create the account ``login`` or change its password (the lead's).

    Args:
        study: the study.
        login: the reviewer name the account logs in as.
        password_hash: the argon2id PHC string of the password.
        by: who sets it (must be a lead once the study names one).

    Returns:
        True if the account is new, False if its password was changed.

    Raises:
        StudyError: not a hash, or a bad name.
        PermissionDenied: ``by`` is not a lead.
    """
    if not password_hash.startswith(HASH_PREFIX):
        raise StudyError("an account stores an argon2id hash, never a password")
    login, by = given_name(login, "the account name"), person_name(by, "login")
    require(study, by, "roles")
    with study.tx() as conn:
        new = conn.execute("SELECT 1 FROM accounts WHERE login = ?", (login,)).fetchone() is None
        conn.execute(
            "INSERT INTO accounts (login, password_hash, set_by, set_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (login) DO UPDATE SET password_hash = excluded.password_hash, "
            "set_by = excluded.set_by, set_at = excluded.set_at",
            (login, password_hash, by, utcnow()),
        )
        audit(
            conn, by, "account:add" if new else "account:password", f"account:{login}", None, None
        )
    return new


def remove_account(study: Study, login: str, *, by: str) -> bool:
    """Delete an account (True if there was one); the lead's.

    Raises:
        PermissionDenied: ``by`` is not a lead.
    """
    login, by = person_name(login, "the account name"), person_name(by, "login")
    require(study, by, "roles")
    with study.tx() as conn:
        cur = conn.execute("DELETE FROM accounts WHERE login = ?", (login,))
        if cur.rowcount:
            audit(conn, by, "account:remove", f"account:{login}", None, None)
    return bool(cur.rowcount)


def password_hash(study: Study, login: str) -> str | None:
    """The stored hash of an account, or None when there is no such account."""
    try:
        login = person_name(login, "the account name")
    except StudyError:
        return None
    row = study.conn.execute("SELECT password_hash FROM accounts WHERE login = ?", (login,))
    found = row.fetchone()
    return None if found is None else str(found[0])


def account_names(study: Study) -> list[str]:
    """Every account's login, sorted."""
    return [str(r[0]) for r in study.conn.execute("SELECT login FROM accounts ORDER BY login")]
