"""People's names: one normal form wherever a name enters the study.

A name (a login, a reviewer named in an import file or by ``--reviewer``, a role holder, an
assignee) is Unicode-normalised to NFC and stripped of surrounding white space, so "José" typed
on a Mac (decomposed) and on Linux (composed) is one person; an empty name is refused.

A name a person *gives* for someone — a login on the command line (``role add``, ``assign``,
``review --reviewer``), a judge's ``--name`` — is also refused when it holds a control
character (:func:`given_name`): ESC, BEL, C1 controls and bidi overrides would act on every
terminal and page that shows the name. Names already in a study (or in an import file's labels)
are kept as they are and shown neutralised (:func:`medjudge.store.literal.printable`).
"""

from __future__ import annotations

import unicodedata

from .db import StudyError
from .literal import control_character


class BadName(StudyError):
    """A name that is empty once stripped, or a given name with a control character."""


def person_name(raw: str, what: str = "name") -> str:
    """``raw`` in NFC, stripped.

    Raises:
        BadName: the name is empty (``what`` says which name, for the message).
    """
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise BadName(f"{what} is empty")
    return name


def given_name(raw: str, what: str = "name") -> str:
    """A person's name as given by a user (:func:`person_name`), with no control characters.

    Raises:
        BadName: the name is empty, or holds a C0/C1 control character (ESC, BEL, tab, newline
            …) or a bidi control (U+202A–U+202E, U+2066–U+2069 …); ``what`` names the argument.
    """
    name = person_name(raw, what)
    bad = control_character(name)
    if bad is not None:
        raise BadName(
            f"{what} {name!r} contains the control character U+{ord(bad):04X}; "
            "a name must be printable text"
        )
    return name
