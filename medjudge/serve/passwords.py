"""Password hashing for browser logins: argon2id (argon2-cffi), never a hand-made KDF.

A password lives only in this process's memory while it is hashed or checked; what is stored
(``store.accounts``) is the PHC string argon2-cffi returns, parameters and salt included, so
stronger parameters later still verify older hashes.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 10
"""The shortest password an account may have (NIST SP 800-63B asks for at least 8)."""

_HASHER = PasswordHasher()  # argon2id, argon2-cffi's RFC 9106 "low memory" profile
_DUMMY = _HASHER.hash("not a password of anyone's")
"""Checked against when the name has no account, so that a wrong name takes as long as a
wrong password (the time would otherwise say which names exist)."""


class WeakPassword(ValueError):
    """A password refused before it is hashed (the message says why)."""


def hash_password(password: str) -> str:
    """The argon2id PHC string of ``password``.

    Raises:
        WeakPassword: shorter than :data:`MIN_LENGTH`, or only white space.
    """
    if len(password) < MIN_LENGTH:
        raise WeakPassword(f"a password needs at least {MIN_LENGTH} characters")
    if not password.strip():
        raise WeakPassword("a password cannot be only spaces")
    return _HASHER.hash(password)


def verify(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored`` (None: no such account, always False, in the
    same time as a wrong password)."""
    try:
        return _HASHER.verify(stored or _DUMMY, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False
