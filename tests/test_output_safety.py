"""`-o` never destroys the study or what it names: the study itself, through a symlink, a
hard link or its -wal/-shm is refused before anything is written; a FIFO or /dev/null is written
in place, never replaced by a rename; a symlink to a regular file stays a symlink."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medjudge.cli import app

from .support.studies import small_study

cli = CliRunner()


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=2, statements=0).close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _targets(study: Path, tmp_path: Path) -> list[Path]:
    link = tmp_path / "link.db"
    link.symlink_to(study)
    hard = tmp_path / "hard.db"
    os.link(study, hard)
    return [study, link, hard, Path(str(study) + "-wal"), Path(str(study) + "-shm")]


@pytest.mark.parametrize("command", [["report", "-f", "md"], ["export", "labels"]])
def test_the_study_is_never_an_output(study: Path, tmp_path: Path, command: list[str]) -> None:
    before = _digest(study)
    for target in _targets(study, tmp_path):
        args = [command[0], str(study), *command[1:], "-o", str(target)]
        r = cli.invoke(app, args)
        assert r.exit_code == 1, (target, r.output)
        assert "Traceback" not in r.output and "write the output somewhere else" in r.stderr
        assert _digest(study) == before
        assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left"
    r = cli.invoke(app, ["status", str(study)])
    assert r.exit_code == 0, "the study still opens"


def test_a_fifo_is_written_in_place(study: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    r = cli.invoke(app, ["export", str(study), "labels", "-f", "csv", "-o", str(fifo)])
    reader.join(timeout=30)
    assert r.exit_code == 0, r.output
    assert got and got[0].startswith(b"item,kind,batch,criterion")
    assert fifo.is_fifo(), "still a FIFO, not replaced by a regular file"


def test_dev_null_stays_a_device(study: Path) -> None:
    r = cli.invoke(app, ["report", str(study), "-o", "/dev/null"])
    assert r.exit_code == 0, r.output
    assert Path("/dev/null").is_char_device()


def test_a_socket_is_refused(study: Path, tmp_path: Path) -> None:
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        r = cli.invoke(app, ["report", str(study), "-o", str(path)])
        assert r.exit_code == 1 and "is a socket" in r.stderr
        assert path.is_socket()
    finally:
        s.close()


def test_a_symlink_to_a_file_stays_a_symlink(study: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "report.md"
    link.symlink_to(real)
    r = cli.invoke(app, ["report", str(study), "-o", str(link)])
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and real.read_text().startswith("# Agreement report")
