"""Opening a study file and running transactions on it.

Storage contract:
- One SQLite file per study, in WAL mode with foreign keys on and ``synchronous=FULL``: a
  transaction that returned from ``COMMIT`` survives a killed process and a power cut.
- Every write goes through :func:`transaction`, which starts with ``BEGIN IMMEDIATE`` so the
  write lock is taken up front; together with the busy timeout, several processes (reviewers,
  a judge run, a report) can write the same file at once and wait for each other instead of
  failing with "database is locked". A lock that is still held after the timeout is retried a
  few more times before a :class:`StudyBusyError` reaches the user.
- Connections are opened in autocommit mode (``isolation_level=None``); nothing is committed
  implicitly.
- A login that cannot write the study (:func:`~medjudge.store.access.unwritable`) opens it
  read-only and never makes a file beside it: SQLite would otherwise create ``-wal``/``-shm``
  files owned by that login, which the study's writers then cannot write. With the ``-wal`` and
  ``-shm`` there (a writer has the study open) it reads through them (``mode=ro``); without a
  ``-wal`` every committed change is in the study file, which is read as it is
  (``immutable=1``: no locks, no side files). The trade-off: an immutable reader does not see
  a writer that starts after it opened, so :meth:`Study.refresh
  <medjudge.store.study.Study.refresh>` reopens it through the writer's files once they appear
  (the review app's poll does, and ``backup`` before it keeps a copy).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .access import unwritable

BUSY_TIMEOUT_MS = 15_000
"""How long one statement waits for another process's write lock before SQLite gives up."""

LOCK_RETRIES = 4
"""How many more times a whole transaction is retried when the lock wait ran out."""


class StudyError(Exception):
    """A problem with a study file that the user can act on (the message says how)."""


class StudyBusyError(StudyError):
    """Another process held the study's write lock for longer than we were willing to wait."""


def classify(path: str | os.PathLike[str], exc: sqlite3.Error) -> StudyError:
    """The user-facing :class:`StudyError` for an SQLite error on a study file (reads too)."""
    return _classify(Path(path), exc)


def _classify(path: Path, exc: sqlite3.Error) -> StudyError:
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
        return StudyError(f"{path}: not a medjudge study (the file is not an SQLite database)")
    if "Could not decode to UTF-8" in text:
        column = text.split(" with text")[0].removeprefix("Could not decode to UTF-8 ")
        return StudyError(
            f"{path}: the study file is damaged (text that is not valid UTF-8 in {column}); "
            "restore it from a backup or run `sqlite3 FILE .recover` on a copy"
        )
    if "malformed" in text or "corrupt" in text:
        return StudyError(
            f"{path}: the study file is damaged ({text}); restore it from a backup "
            "or run `sqlite3 FILE .recover` on a copy"
        )
    if "readonly" in text or "read-only" in text:
        return StudyError(
            f"{path}: the study file is read-only here; ask its owner for write access"
        )
    if (
        "disk is full" in text
        or "database or disk is full" in text
        or ("disk I/O error" in text and _disk_full(path))
    ):
        # A full disk often shows up as "disk I/O error": the -shm/-wal file cannot grow.
        return StudyError(f"{path}: the disk is full; nothing was saved by this step")
    if "unable to open" in text:
        return StudyError(f"{path}: cannot open the study file ({text})")
    if "locked" in text or "busy" in text:
        return StudyBusyError(
            f"{path}: the study is busy (another process holds its lock); try again"
        )
    return StudyError(f"{path}: {text}")


def check_pages(conn: sqlite3.Connection, path: str | os.PathLike[str]) -> None:
    """``PRAGMA quick_check``: every page and index readable and consistent (about 2 ms per MB).

    Commands that write run it before they change anything (and ``judge`` before it pays for a
    call), so a damaged file is never written to.

    Raises:
        StudyError: the file is damaged (with SQLite's first finding).
    """
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as exc:
        raise _classify(Path(path), exc) from None
    if [tuple(r) for r in rows] != [("ok",)]:
        raise StudyError(
            f"{path}: the study file is damaged ({rows[0][0]}); restore it from a backup "
            "or run `sqlite3 FILE .recover` on a copy"
        )


def _disk_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent if str(path.parent) else ".").free < 64 * 1024
    except OSError:
        return False


class StudyConnection(sqlite3.Connection):
    """A connection to a study that knows how it was opened."""

    read_only: str | None = None
    """Why this login cannot write the study (None: it can); every write is refused with it."""
    immutable: bool = False
    """Opened with ``immutable=1`` (read-only, no ``-wal`` there): a writer that starts later is
    not seen (:meth:`Study.refresh <medjudge.store.study.Study.refresh>`)."""


def _read_only_uri(p: Path) -> tuple[str, bool]:
    """The URI that reads the study without making any file beside it, and whether it is
    immutable. Measured with real logins (SQLite 3.40): ``mode=ro`` alone still creates the
    ``-wal`` and ``-shm`` (owned by the reader) when they are missing and the folder is
    writable; ``readonly_shm=1`` fails to open then and still creates the ``-wal``; only
    ``immutable=1`` makes nothing. With both files there, ``mode=ro`` uses them and makes
    nothing, even when they are not writable for this login."""
    wal, shm = Path(f"{p}-wal"), Path(f"{p}-shm")
    uri = p.absolute().as_uri() + "?mode=ro"
    if wal.exists() and shm.exists():
        return uri, False
    if wal.exists() and wal.stat().st_size > 0:
        raise StudyError(
            f"{p}: {wal.name} holds changes not yet in the study and its {shm.name} is "
            f"missing; someone who can write the study must open it once (`medjudge status {p}`) "
            "before it can be read here"
        )
    return uri + "&immutable=1", True


APP_ID = 0x4D4A4447
"""``PRAGMA application_id`` of a medjudge study ("MJDG"; set by the first migration)."""


def connect(
    path: str | os.PathLike[str],
    *,
    create: bool = False,
    synchronous: str = "FULL",
    read_only: bool = False,
) -> StudyConnection:
    """Open a study file with medjudge's pragmas.

    A login that cannot write the study gets a read-only connection that makes no file beside
    it (see the module's contract); so does ``read_only``.

    Args:
        path: the study file.
        create: allow creating a new file; otherwise a missing file is an error.
        synchronous: ``FULL`` (every commit durable on its own: votes, labels) or ``NORMAL``
            (WAL-safe, faster; the judge call cache, whose rows a re-run can fetch again).
        read_only: open read-only even where this login could write (``doctor``).

    Returns:
        An autocommit connection with WAL, foreign keys, ``synchronous=FULL`` and a busy timeout
        (read-only: :attr:`StudyConnection.read_only` says why).

    Raises:
        StudyError: the file is missing, not a database, damaged or unreadable.
    """
    p = Path(path)
    if not create and not p.exists():
        raise StudyError(f"{p}: no such study (create it with `medjudge init {p}`)")
    if create and not p.parent.exists():
        raise StudyError(f"{p}: folder {p.parent} does not exist")
    if create and not p.exists() and not os.access(p.parent, os.W_OK):
        raise StudyError(
            f"{p}: cannot create the study: folder {p.parent} is not writable for you "
            "(or is on a read-only file system)"
        )
    if create and not p.exists():
        _create_group_file(p)
    reason = None if create else unwritable(p)
    if read_only and reason is None:
        reason = f"{p}: opened read-only"
    target, immutable = (str(p), False) if reason is None else _read_only_uri(p)
    try:
        conn = sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
            uri=reason is not None,
            factory=StudyConnection,
        )
        conn.read_only, conn.immutable = reason, immutable
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            # Switching to WAL writes the file header: never do that to a file that is not
            # (yet) a study — an empty file, or another program's SQLite database. (Read
            # without a -wal, a study says "delete": it stays as it is.)
            if not create and conn.execute("PRAGMA application_id").fetchone()[0] != APP_ID:
                conn.close()
                what = (
                    "is empty (0 bytes)"
                    if p.stat().st_size == 0
                    else "is an SQLite file of another program"
                )
                raise StudyError(f"{p}: not a medjudge study (the file {what})")
            if reason is None:
                conn.execute("PRAGMA journal_mode = WAL")
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        if reason is None:
            conn.execute(f"PRAGMA synchronous = {synchronous}")
        # Parse the whole schema now, inside this guard: a damaged schema (text that is not
        # valid UTF-8 makes even SQLite's error message undecodable) is said here, once.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise _classify(p, exc) from None
    except UnicodeDecodeError:
        raise StudyError(
            f"{p}: the study file is damaged (its schema holds text that is not valid UTF-8); "
            "restore it from a backup or run `sqlite3 FILE .recover` on a copy"
        ) from None
    return conn


def _create_group_file(p: Path) -> None:
    """Create the empty study file with mode ``0666 & ~umask``, as other programs create
    files: SQLite's own default is ``0644 & ~umask``, which leaves a study in a team's
    setgid folder (``umask 007``) unwritable for the group. SQLite gives the ``-wal`` and
    ``-shm`` files the study file's mode, so they follow."""
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    except FileExistsError:
        return  # another process created it first; SQLite opens what is there
    except OSError as exc:
        raise StudyError(f"{p}: cannot create the study ({exc.strerror})") from None
    os.close(fd)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the lock."""
    return "locked" in str(exc) or "busy" in str(exc)


def set_lock_wait(conn: sqlite3.Connection, ms: int) -> None:
    """How long a statement on ``conn`` waits for another connection's write lock (0: not at
    all; the default is ``BUSY_TIMEOUT_MS``)."""
    conn.execute(f"PRAGMA busy_timeout = {int(ms)}")


def try_begin(conn: sqlite3.Connection) -> bool:
    """``BEGIN IMMEDIATE``, once: False when another connection holds the write lock (for a
    caller that must not block, e.g. an event loop, on a connection with ``PRAGMA busy_timeout
    = 0``; it tries again later and runs its body in ``transaction(conn, path, begun=True)``).

    Raises:
        StudyError: any other failure to begin.
    """
    _refuse_read_only(conn)
    try:
        conn.execute("BEGIN IMMEDIATE")
        return True
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            return False
        raise _classify(Path(_db_file(conn)), exc) from None


@contextmanager
def transaction(
    conn: sqlite3.Connection, path: str | os.PathLike[str] = "", *, begun: bool = False
) -> Iterator[None]:
    """Run the body as one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction (``begun``: the caller
    began it already, with :func:`try_begin`).

    On any exception the transaction is rolled back and nothing of it reaches the file.
    SQLite errors are turned into :class:`StudyError` with a message for the user.
    """
    label = Path(path) if path else Path(_db_file(conn))
    if not begun:
        _refuse_read_only(conn)
    for attempt in range(0 if begun else LOCK_RETRIES + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if _is_busy(exc) and attempt < LOCK_RETRIES:
                time.sleep(0.05 * (attempt + 1))
                continue
            raise _classify(label, exc) from None
    try:
        yield
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise _classify(label, exc) from None
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            raise StudyError(f"{label}: the disk is full; nothing was saved by this step") from None
        raise


def _refuse_read_only(conn: sqlite3.Connection) -> None:
    """A write on a read-only connection is refused before SQLite is asked, with the reason
    (which file, whose, and what a lead can run)."""
    reason = getattr(conn, "read_only", None)
    if reason is not None:
        raise StudyError(reason)


def _db_file(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row else "study"
