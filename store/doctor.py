"""``medjudge doctor``: is this study ready for a team on a shared server, and if not, what to run.

A team shares a study through a folder owned by its Unix group, setgid (so new files take the
group) and group-writable (``2770``); the study and its ``-wal`` / ``-shm`` files are made
group-writable (``0666 & ~umask`` under ``umask 007``). Each check below returns a
:class:`Finding`: what was found, whether it is a problem, and the command that fixes it. Nothing
here changes a file; the lead runs the fixes.
"""

from __future__ import annotations

import grp
import os
import shutil
import sqlite3
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from medjudge.store.access import describe, others_side_file
from medjudge.store.db import StudyError, connect

SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Finding:
    """One check: ``ok`` or a problem with the command that fixes it."""

    check: str
    ok: bool
    detail: str
    fix: str | None = None


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def folder_findings(folder: Path) -> list[Finding]:
    """The shared folder: group-writable and setgid."""
    st = folder.stat()
    mode = stat.S_IMODE(st.st_mode)
    group = _group_name(st.st_gid)
    out = []
    writable = mode & 0o070 == 0o070
    out.append(
        Finding(
            "folder",
            writable,
            f"{folder} (group {group}, mode {mode:o})"
            + ("" if writable else ": the group cannot create the study's -wal/-shm files here"),
            None if writable else f"chmod g+rwx {folder}",
        )
    )
    setgid = bool(mode & stat.S_ISGID)
    out.append(
        Finding(
            "setgid",
            setgid,
            "new files take the folder's group"
            if setgid
            else "new files take their creator's own group, not the team's",
            None if setgid else f"chmod g+s {folder}",
        )
    )
    return out


def file_findings(study: Path) -> list[Finding]:
    """The study and its side files: the folder's group, group read and write."""
    folder_gid = study.parent.stat().st_gid
    group = _group_name(folder_gid)
    out = []
    for f in (study, *(study.with_name(study.name + s) for s in SIDE_FILES)):
        if not f.exists():
            continue
        st = f.stat()
        mode = stat.S_IMODE(st.st_mode)
        problems = []
        fixes = []
        if st.st_gid != folder_gid:
            problems.append(f"its group is not the folder's ({group})")
            fixes.append(f"chgrp {group} {f}")
        if mode & 0o060 != 0o060:
            problems.append("the group cannot write it")
            fixes.append(f"chmod g+rw {f}")
        other = others_side_file(f) if problems and f != study else None
        if other is not None:
            # chmod/chgrp would fail: the file is another login's
            problems.append(other[0])
            fixes = [other[1]]
        out.append(
            Finding(
                f.name,
                not problems,
                describe(f) + (": " + "; ".join(problems) if problems else ""),
                " && ".join(fixes) or None,
            )
        )
    return out


def umask_finding() -> Finding:
    """This shell's umask: group-writable files need it to leave the group's write bit."""
    mask = os.umask(0)
    os.umask(mask)
    ok = not mask & 0o020
    return Finding(
        "umask",
        ok,
        f"umask {mask:03o}"
        + ("" if ok else ": files you create (a new study, its -wal) are not group-writable"),
        None if ok else "umask 007   # in ~/.profile of every team member",
    )


def integrity_finding(study: Path) -> Finding:
    """``PRAGMA quick_check`` and the schema's tables, views, triggers and indexes, through a
    read-only connection (which makes no file beside the study)."""
    from medjudge.store.migrations import missing_objects

    try:
        conn = connect(study, read_only=True)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
            missing = missing_objects(conn) if [tuple(r) for r in rows] == [("ok",)] else ""
        finally:
            conn.close()
    except (sqlite3.Error, StudyError) as exc:
        return Finding("integrity", False, f"cannot be read: {exc}", "restore from a backup")
    if missing:
        return Finding("integrity", False, f"damaged: {missing}", "restore it from a backup")
    ok = [tuple(r) for r in rows] == [("ok",)]
    return Finding(
        "integrity",
        ok,
        "every page and index consistent" if ok else f"damaged: {rows[0][0]}",
        None if ok else f"sqlite3 {study} .recover > recovered.sql   # on a copy",
    )


def _world_or_group_traversable(path: Path, gid: int) -> Path | None:
    """The first folder above ``path`` that members of group ``gid`` cannot enter (None: all)."""
    for parent in [*reversed(path.parents)]:
        try:
            st = parent.stat()
        except OSError:
            return parent
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o001:
            continue
        if st.st_gid == gid and mode & 0o010:
            continue
        return parent
    return None


def executable_finding(gid: int) -> Finding:
    """Whether the group's members can run this ``medjudge`` (and its Python)."""
    program = shutil.which("medjudge") or sys.argv[0]
    for path in (Path(program).resolve(), Path(sys.executable).resolve()):
        blocked = _world_or_group_traversable(path, gid)
        if blocked is not None:
            st = blocked.stat()
            return Finding(
                "medjudge",
                False,
                f"{path} is inside {blocked} (mode {stat.S_IMODE(st.st_mode):o}), which the "
                f"group {_group_name(gid)} cannot enter",
                "install medjudge where the team can run it, e.g. "
                "python3 -m venv /opt/medjudge && /opt/medjudge/bin/pip install medjudge",
            )
    return Finding("medjudge", True, f"{program} can be run by the group {_group_name(gid)}")


def roles_finding(leads: list[str], members: dict[str, list[str]]) -> Finding:
    """Who holds which role; a study without a lead cannot settle or judge."""
    listed = "; ".join(f"{role}: {', '.join(names)}" for role, names in members.items() if names)
    return Finding(
        "roles",
        bool(leads),
        listed or "no roles recorded",
        None if leads else "medjudge role STUDY add LOGIN --as lead",
    )


def _roles(study: Path) -> dict[str, list[str]]:
    """role → logins, read through a read-only connection (a doctor must not need to write)."""
    out: dict[str, list[str]] = {}
    try:
        conn = connect(study, read_only=True)
        try:
            for login, role in conn.execute("SELECT login, role FROM roles ORDER BY login"):
                out.setdefault(str(role), []).append(str(login))
        finally:
            conn.close()
    except (sqlite3.Error, StudyError):
        pass  # the integrity check says what is wrong with the file
    return out


def findings(study: Path) -> list[Finding]:
    """Every check of a study, in the order they are printed."""
    path = study.resolve()
    folder = path.parent
    members = _roles(path)
    return [
        *folder_findings(folder),
        *file_findings(path),
        umask_finding(),
        roles_finding(members.get("lead", []), members),
        integrity_finding(path),
        executable_finding(folder.stat().st_gid),
    ]
