"""People's names: one normal form wherever a name enters the study.

A name (a login, a reviewer named in an import file or by ``--reviewer``, a role holder, an
assignee) is Unicode-normalised to NFC and stripped of surrounding white space, so "José" typed
on a Mac (decomposed) and on Linux (composed) is one person; an empty name is refused.
"""

from __future__ import annotations

import unicodedata

from .db import StudyError


class BadName(StudyError):
    """A name that is empty once stripped."""


def person_name(raw: str, what: str = "name") -> str:
    """``raw`` in NFC, stripped.

    Raises:
        BadName: the name is empty (``what`` says which name, for the message).
    """
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise BadName(f"{what} is empty")
    return name
