"""A consistent copy of a study while it is in use (``medjudge backup``).

Copying the file with ``cp`` while reviewers write can miss the latest labels (they may still
sit in the ``-wal`` file) or copy a half-written page. SQLite's online backup copies a
consistent snapshot through the database engine in one read transaction: in WAL mode readers
never block writers, so reviewers keep saving while it runs, and the copy holds every label
committed before it started. (Copying in steps would restart whenever a reviewer saves, and
might never finish on a busy study.) The copy is written to a new temporary file beside
``DEST`` (:func:`~medjudge.store.safe_write.replacing`), checked (``PRAGMA integrity_check``),
switched out of WAL mode into a single self-contained file, and only then renamed to ``DEST``.
A study read as it is (by a login that cannot write it, with no ``-wal``: ``store.db``) is
copied again through the writer's files when a writer opened it during the copy.
When anything fails, every file the backup made — the temporary copy and the ``-journal`` (or
``-wal``/``-shm``) SQLite made for it — is removed, and nothing else is touched.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from .db import StudyError, classify
from .safe_write import refuse_protected, replacing
from .study import Study

# SQLite errors that come from writing the copy, not from reading the study.
_WRITING = ("unable to open", "readonly", "read-only", "disk I/O")


def _size(study: Path) -> int:
    """The study's size on disk, its -wal included."""
    return sum(os.stat(p).st_size for p in (str(study), f"{study}-wal") if os.path.exists(p))


def _free(dest: Path) -> int:
    try:
        return shutil.disk_usage(os.path.dirname(os.path.realpath(dest))).free
    except OSError:
        return 0


def _little_room(dest: Path, study: Path) -> bool:
    """Whether a write error is likely the disk filling up: a copy (and its switch out of WAL
    mode) needs about twice the study's size."""
    return _free(dest) < 2 * _size(study) + (1 << 20)


def backup(study: Study, dest: Path, *, overwrite: bool = False) -> int:
    """Copy ``study`` to ``dest``; returns the copy's size in bytes.

    Raises:
        StudyError: ``dest`` is the study (or one of its side files) or part of another
            database, exists (without ``overwrite``), is a folder, has a ``-wal`` or
            ``-journal`` file beside it, or cannot be written; or the copy failed its check.
    """
    source = study.path
    refuse_protected(dest, (source,), replace_study=True)
    if dest.is_dir():
        raise StudyError(f"{dest}: is a folder; give a file name")
    if os.path.lexists(dest) and not overwrite:
        raise StudyError(f"{dest}: already exists (use --force to replace it)")
    real = os.path.realpath(dest)
    for suffix in ("-wal", "-journal"):
        # SQLite would apply it to the copy the first time the copy is opened
        if os.path.lexists(real + suffix):
            raise StudyError(
                f"{dest}: {real}{suffix} exists (the file at {dest} is open or was not closed "
                "cleanly); open it in medjudge once, or give another file name"
            )
    try:
        with replacing(
            dest,
            studies=(source,),
            replace_study=True,  # with --force, an older backup may be replaced
            sqlite=True,
            new_mode=0o666,  # less the umask, like a new study: a team's group can use it
            what="the copy",
        ) as staged:
            # nofollow: SQLite opens the new file itself, and never through a symlink
            target = sqlite3.connect(f"{staged.path.as_uri()}?nofollow=1", uri=True)
            try:
                study.refresh()
                study.conn.backup(target)  # one step: one consistent snapshot
                if study.refresh():
                    # read as it was (no -wal) and a writer started meanwhile: it may have
                    # changed pages under the copy; copy again, through the writer's -wal
                    study.conn.backup(target)
                target.execute("PRAGMA journal_mode = DELETE")
                check = target.execute("PRAGMA integrity_check").fetchall()
            finally:
                target.close()
            if [tuple(r) for r in check] != [("ok",)]:
                raise StudyError(
                    f"{source}: the study file is damaged ({check[0][0]}); the copy was not kept"
                )
    except sqlite3.Error as exc:
        text = str(exc)
        if "full" in text or ("disk I/O" in text and _little_room(dest, source)):
            raise StudyError(
                f"{dest}: cannot write the copy: the disk is full (the study is "
                f"{_size(source):,} bytes; {_free(dest):,} bytes are free there)"
            ) from None
        if any(w in text for w in _WRITING):
            raise StudyError(f"{dest}: cannot write the copy ({text})") from None
        raise classify(source, exc) from None
    return dest.stat().st_size
