"""Writing a file medjudge makes — a report, an export, a backup — without destroying anything.

Every file medjudge writes outside a study goes through here (``report -o``, ``export -o``,
``backup``, the recorded demo calls):

- A study is never an output. A target that is a study, or its ``-wal``, ``-shm`` or
  ``-journal`` file, is refused before anything is written: the study of the command under
  any spelling of its path (``./s.db``, ``dir/../s.db``, through a symlinked folder), through
  a symlink or a hard link; and any other medjudge study or SQLite side file as well (a backup
  may replace another study with ``--force``).
- A regular file (or a new one) is written to a temporary file with a random name made in the
  target's real folder (``tempfile.mkstemp``: created exclusively, never through a symlink,
  readable as the target would be), flushed to disk and renamed over the target's real path
  when complete. A full disk or a failure halfway leaves no half-written file and no temporary
  one; a symlink stays a symlink; the target's permissions are kept.
- Nothing is ever unlinked that this module did not create: on failure it removes its own
  temporary file (checked by inode before the unlink) and the side files SQLite made for it.
- Anything else that exists — a FIFO, a terminal, ``/dev/null`` — is written in place, never
  replaced by a rename; a socket is refused.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .db import APP_ID, StudyError

SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database while it is in use (or after a crash)."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
_JOURNAL_MAGIC = b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7"
_SHM_VERSION = 3007000  # a -shm file's first word (native byte order)
_ELSEWHERE = "write the output somewhere else"


class OutputError(StudyError):
    """An output file that is refused or cannot be written; the message says which and why."""


# ----------------------------------------------------------------------------- what is a study


def _place(path: Path) -> tuple[int, int, str] | None:
    """Where ``path`` leads: the (device, inode) of its real folder and its real name — equal
    for every spelling of one path (symlinks, ``..``, a symlinked or bind-mounted folder), even
    when the file does not exist; None when the folder does not exist."""
    folder, name = os.path.split(os.path.realpath(path))
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino, name


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file: the same place, or (hard links) the same inode."""
    place = _place(a)
    if place is not None and place == _place(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _head(path: Path) -> bytes:
    """The first 100 bytes of a regular file (b"" for anything else or what cannot be read:
    a FIFO is never opened, so this never blocks)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as fh:
            return fh.read(100)
    except OSError:
        return b""


def _is_study(path: Path) -> bool:
    head = _head(path)
    return head.startswith(_SQLITE_MAGIC) and head[68:72] == APP_ID.to_bytes(4, "big")


def _sqlite_side(head: bytes) -> str | None:
    if head[:4] in _WAL_MAGIC:
        return "-wal"
    if head.startswith(_JOURNAL_MAGIC):
        return "-journal"
    if len(head) >= 4 and int.from_bytes(head[:4], sys.byteorder) == _SHM_VERSION:
        return "-shm"
    return None


def _what_it_is(target: Path, studies: Sequence[Path], replace_study: bool) -> str | None:
    """Why ``target`` must not be written (None: it may be)."""
    for study in studies:
        for base in dict.fromkeys((study, Path(os.path.realpath(study)))):
            if _same_file(target, base):
                return f"is the study itself ({study})"
            for suffix in SIDE_SUFFIXES:
                if _same_file(target, Path(str(base) + suffix)):
                    return f"is the study itself (its {suffix} file, {study}{suffix})"
    if not replace_study and _is_study(target):
        return f"is a medjudge study ({os.path.realpath(target)})"
    for spelling in dict.fromkeys((str(target), os.path.realpath(target))):
        for suffix in SIDE_SUFFIXES:
            if spelling.endswith(suffix):
                base = Path(spelling[: -len(suffix)])
                if any(_same_file(base, study) for study in studies):  # a link to the study
                    return f"is the study itself (its {suffix} file, through {base})"
                if _head(base).startswith(_SQLITE_MAGIC):
                    return f"is the {suffix} file of the database {base}, part of it"
    side = _sqlite_side(_head(target))
    if side is not None:
        return f"is an SQLite {side} file (part of a database)"
    return None


def refuse_protected(
    target: Path, studies: Sequence[Path] = (), *, replace_study: bool = False
) -> None:
    """Refuse ``target`` when it is one of ``studies`` or a side file of one (under any
    spelling, through a symlink or a hard link), another medjudge study (unless
    ``replace_study``), or a side file of any SQLite database.

    Raises:
        OutputError: saying what the target is.
    """
    why = _what_it_is(target, studies, replace_study)
    if why is not None:
        raise OutputError(f"{target}: {why}; {_ELSEWHERE}")


# ----------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class Staged:
    """The temporary file a :func:`replacing` block writes: its path and an open descriptor."""

    path: Path
    fd: int


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it the only way there is, and put it back
    os.umask(mask)
    return mask


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _remove_own(path: Path, identity: tuple[int, int]) -> None:
    """Unlink ``path`` if it is still the file this module created (same inode)."""
    try:
        if _identity(os.lstat(path)) == identity:
            os.unlink(path)
    except OSError:
        pass


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every system can)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_temp(folder: Path, name: str, sqlite: bool) -> tuple[int, Path]:
    """A new, empty, exclusively created file in ``folder``; with ``sqlite``, one that no
    SQLite side file exists for yet (so every side file found later was made for it)."""
    while True:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name[:80]}.", suffix=".tmp")
        path = Path(tmp)
        if not sqlite or not any(os.path.lexists(f"{tmp}{s}") for s in SIDE_SUFFIXES):
            return fd, path
        identity = _identity(os.fstat(fd))
        os.close(fd)
        _remove_own(path, identity)


def _cannot(target: Path, exc: OSError, what: str) -> OutputError:
    return OutputError(f"{target}: cannot write {what} ({exc.strerror or exc})")


@contextmanager
def replacing(
    target: Path,
    *,
    studies: Sequence[Path] = (),
    replace_study: bool = False,
    sqlite: bool = False,
    new_mode: int = 0o666,
    what: str = "it",
) -> Iterator[Staged]:
    """A new temporary file beside ``target``'s real path, renamed over it when the block
    returns and removed (with any SQLite side files made for it: ``sqlite``) when it fails.

    The block writes the file through ``fd`` or (SQLite) by ``path``; it must close whatever it
    opened by path before it returns. The file gets ``target``'s permissions when it exists,
    ``new_mode`` less the umask when not.

    Raises:
        OutputError: the target is refused (:func:`refuse_protected`), its folder is missing,
            or the file cannot be written (``what`` names it in the message: "it", "the copy").
    """
    refuse_protected(target, studies, replace_study=replace_study)
    real = Path(os.path.realpath(target))
    if not real.parent.is_dir():
        raise OutputError(f"{target}: folder {target.parent} does not exist")
    try:
        old = os.stat(real)
        mode = stat.S_IMODE(old.st_mode) if stat.S_ISREG(old.st_mode) else None
    except OSError:
        mode = None
    try:
        fd, tmp = _new_temp(real.parent, real.name, sqlite)
    except OSError as exc:
        raise _cannot(target, exc, what) from None
    identity = _identity(os.fstat(fd))
    done = False
    try:
        with contextlib.suppress(OSError):  # (a file system without modes refuses: no matter)
            os.fchmod(fd, mode if mode is not None else new_mode & ~_umask())
        yield Staged(tmp, fd)
        os.fsync(fd)
        # Once more just before the rename: nothing may have turned the target, or the file
        # it resolved to, into a study meanwhile.
        for path in dict.fromkeys((target, real)):
            refuse_protected(path, studies, replace_study=replace_study)
        if _identity(os.lstat(tmp)) != identity:
            raise OutputError(f"{target}: the temporary file {tmp} was replaced while writing")
        os.replace(tmp, real)
        done = True
        _sync_folder(real.parent)
    except OSError as exc:
        raise _cannot(target, exc, what) from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
        if not done:
            _remove_own(tmp, identity)
            if sqlite:  # absent when the file was made: SQLite made them for it
                for suffix in SIDE_SUFFIXES:
                    with contextlib.suppress(OSError):
                        os.unlink(f"{tmp}{suffix}")


@contextmanager
def text_output(target: Path, *, studies: Sequence[Path] = ()) -> Iterator[TextIO]:
    """A UTF-8 text file for ``target`` (see the module docstring for what is refused and how).

    Raises:
        OutputError: the target is a study (or part of one), a folder or a socket, its folder
            is missing, or it cannot be written.
    """
    refuse_protected(target, studies)
    if target.is_dir():
        raise OutputError(f"{target}: is a folder; give a file name")
    try:
        mode = os.stat(target).st_mode if target.exists() else None
    except OSError as exc:
        raise _cannot(target, exc, "it") from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISSOCK(mode):
            raise OutputError(f"{target}: is a socket; give a file name")
        try:  # a FIFO, a terminal, /dev/null: written in place, never replaced
            with target.open("w", encoding="utf-8", newline="") as fh:
                yield fh
        except OSError as exc:
            raise _cannot(target, exc, "it") from None
        return
    with replacing(target, studies=studies) as staged:
        with os.fdopen(staged.fd, "w", encoding="utf-8", newline="", closefd=False) as fh:
            yield fh
