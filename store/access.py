"""Whether this login can write a study, and if not, which file stops it and why.

SQLite writes a study through three files: the study, its ``-wal`` and its ``-shm`` (made by
the first connection, in the study's folder). A reviewer whose login cannot write any one of
them can read the study but never save a label; the app says so before the first key
(:func:`unwritable`), naming the file with its owner, group and mode, and what to run.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from pathlib import Path


def _owner(st: os.stat_result) -> str:
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return f"{user}:{group}"


def describe(path: Path) -> str:
    """``study.db (owner alice:cardio, mode 640)``."""
    st = path.stat()
    return f"{path.name} (owner {_owner(st)}, mode {stat.S_IMODE(st.st_mode):o})"


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def others_side_file(f: Path) -> tuple[str, str] | None:
    """For a side file (``-wal``, ``-shm``, ``-journal``) owned by another login, which this
    login cannot change: (what to say, the command to run). None: the file is this login's
    (or this is root), so ``chmod``/``chgrp`` work.

    Only the owner (or root) may change a file's mode. Removing it takes write access to the
    folder instead (a team's shared folder gives it), and is safe only for what SQLite can
    make again: a ``-shm``, or an empty ``-wal``/``-journal`` (a reader's leftovers), and only
    while nobody has the study open. A ``-wal`` or ``-journal`` holding data is part of the
    study: its owner (or root) must make it group-writable.
    """
    st = f.stat()
    me = os.geteuid()
    if me == 0 or st.st_uid == me:
        return None
    owner = _user(st.st_uid)
    folder = f.parent
    fst = folder.stat()
    sticky = bool(fst.st_mode & stat.S_ISVTX) and fst.st_uid != me
    removable = os.access(folder, os.W_OK | os.X_OK) and not sticky
    if removable and (f.name.endswith("-shm") or st.st_size == 0):
        return (
            f"owned by {owner}, not you; SQLite makes it again, so you can remove it while "
            "nobody has the study open",
            f"rm {f}   # only while nobody has the study open",
        )
    return (
        f"owned by {owner}, not you: only {owner} (or root) can change it",
        f"chmod g+rw {f}   # as {owner} or root",
    )


def unwritable(path: str | os.PathLike[str]) -> str | None:
    """Why this login cannot write the study at ``path`` (None: it can).

    Checks the study file, its ``-wal`` and ``-shm`` where they exist, and otherwise the
    folder they would be made in.
    """
    study = Path(path)
    files = [study, *(study.with_name(study.name + s) for s in ("-wal", "-shm"))]
    for f in files:
        if f.exists() and not os.access(f, os.W_OK):
            other = others_side_file(f) if f is not study else None
            if other is not None:
                return (
                    f"{study}: read-only here — {describe(f)} is not writable for you, "
                    f"{other[0]}: {other[1].split('   #')[0]} (see `medjudge doctor`)"
                )
            return (
                f"{study}: read-only here — {describe(f)} is not writable for you; "
                f"a lead can run: chmod g+w {f} (see `medjudge doctor`)"
            )
    folder = study.parent
    if not all(f.exists() for f in files[1:]) and not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"{study}: read-only here — the folder {folder} is not writable for you, so "
            "SQLite cannot make the study's -wal/-shm files; a lead can run: "
            f"chmod g+ws {folder}"
        )
    return None
