"""Writing a command's output file (``-o``) without ever destroying what is there.

- The study itself is never an output: ``-o`` naming the study file, its ``-wal``, ``-shm`` or
  ``-journal`` — directly, through a symlink or a hard link — is refused before anything is
  written.
- A regular file (or a new one) is written as ``NAME.part`` beside its real path (symlinks
  followed) and renamed into place when complete: a full disk or an unwritable folder leaves no
  half-written file, and a symlink stays a symlink.
- Anything else that exists — a FIFO, a terminal, ``/dev/null`` — is written in place, never
  replaced by a rename; what cannot be opened for writing (a socket) is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .common import UserError

STUDY_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def refuse_study(output: Path, study: Path) -> None:
    """Refuse ``output`` when it is the study or one of its side files.

    Raises:
        UserError: naming the study.
    """
    for suffix in STUDY_SIDE_FILES:
        if _same_file(output, Path(str(study) + suffix)):
            what = "the study file itself" if not suffix else f"the study's {suffix[1:]} file"
            raise UserError(f"{output}: is {what} ({study}); write the output somewhere else")


@contextmanager
def atomic_output(output: Path, *, study: Path | None = None) -> Iterator[TextIO]:
    """A text file for ``output`` (see the module docstring for what is refused and how).

    Raises:
        UserError: the output is the study, the folder is missing, ``output`` is a folder or a
            socket, or it cannot be written.
    """
    if study is not None:
        refuse_study(output, study)
    if output.is_dir():
        raise UserError(f"{output}: is a folder; give a file name")
    try:
        mode = output.stat().st_mode if output.exists() else None
    except OSError as exc:
        raise UserError(f"{output}: cannot write it ({exc.strerror})") from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISSOCK(mode):
            raise UserError(f"{output}: is a socket; give a file name")
        try:
            with output.open("w", encoding="utf-8", newline="") as fh:
                yield fh
        except OSError as exc:
            raise UserError(f"{output}: cannot write it ({exc.strerror})") from None
        return
    target = Path(os.path.realpath(output))
    if not target.parent.is_dir():
        raise UserError(f"{output}: folder {output.parent} does not exist")
    tmp = target.with_name(target.name + ".part")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            yield fh
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UserError(f"{output}: cannot write it ({exc.strerror})") from None
