"""A consistent copy of a study while it is in use (``medjudge backup``).

Copying the file with ``cp`` while reviewers write can miss the latest labels (they may still
sit in the ``-wal`` file) or copy a half-written page. SQLite's online backup copies a
consistent snapshot through the database engine in one read transaction: in WAL mode readers
never block writers, so reviewers keep saving while it runs, and the copy holds every label
committed before it started. (Copying in steps would restart whenever a reviewer saves, and
might never finish on a busy study.) The copy is written to
``DEST.part``, checked (``PRAGMA integrity_check``), switched out of WAL mode into a single
self-contained file, and only then renamed to ``DEST``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .db import StudyError, classify
from .study import Study


def backup(study: Study, dest: Path, *, overwrite: bool = False) -> int:
    """Copy ``study`` to ``dest``; returns the copy's size in bytes.

    Raises:
        StudyError: ``dest`` is the study (or one of its side files), exists (without
            ``overwrite``), is a folder, or cannot be written; or the copy failed its check.
    """
    source = study.path
    for suffix in ("", "-wal", "-shm", "-journal"):
        side = Path(str(source) + suffix)
        if dest.resolve() == side.resolve() or (
            dest.exists() and side.exists() and dest.samefile(side)
        ):
            raise StudyError(f"{dest}: is the study itself; give another file name")
    if dest.is_dir():
        raise StudyError(f"{dest}: is a folder; give a file name")
    if dest.exists() and not overwrite:
        raise StudyError(f"{dest}: already exists (use --force to replace it)")
    if not dest.parent.is_dir():
        raise StudyError(f"{dest}: folder {dest.parent} does not exist")
    part = dest.with_name(dest.name + ".part")
    part.unlink(missing_ok=True)
    try:
        target = sqlite3.connect(part)
        try:
            study.conn.backup(target)  # one step: one consistent snapshot
            target.execute("PRAGMA journal_mode = DELETE")
            check = target.execute("PRAGMA integrity_check").fetchall()
        finally:
            target.close()
        if [tuple(r) for r in check] != [("ok",)]:
            raise StudyError(
                f"{source}: the study file is damaged ({check[0][0]}); the copy was not kept"
            )
        with part.open("rb") as fh:
            os.fsync(fh.fileno())
        part.replace(dest)
    except sqlite3.Error as exc:
        part.unlink(missing_ok=True)
        raise classify(source, exc) from None
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise StudyError(f"{dest}: cannot write the copy ({exc.strerror})") from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return dest.stat().st_size
