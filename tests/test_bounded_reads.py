"""Reads with a stated limit: `/dev/zero` as guidelines, a prompt template, an import
file or standard input ends in one clear line naming the limit — not a MemoryError after
eating every byte of memory. Each command runs in its own process under a 2 GiB address-space
cap, so a reader that holds its input whole fails fast instead of swapping the machine."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from .support.kind_rows import pairwise_row, write_jsonl

ZERO = Path("/dev/zero")
pytestmark = pytest.mark.skipif(not ZERO.exists(), reason="needs /dev/zero")


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run(
    args: list[str], cwd: Path, stdin: int | IO[Any] = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medjudge", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        preexec_fn=_cap,
    )


@pytest.fixture
def study(tmp_path: Path) -> Path:
    rows = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(2)])
    r = run(["import", "s.db", str(rows), "--kind", "pairwise"], tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / "s.db"


def _one_clear_line(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 1, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr[-2000:]
    for w in words:
        assert w in lines[0], lines[0]


def test_guidelines_from_dev_zero(study: Path) -> None:
    r = run(["settings", str(study), "--guidelines", str(ZERO)], study.parent)
    _one_clear_line(r, "--guidelines /dev/zero", "more than 100,000 characters")


def test_guidelines_from_endless_stdin(study: Path) -> None:
    with ZERO.open("rb") as zero:
        r = run(["settings", str(study), "--guidelines", "-"], study.parent, stdin=zero)
    _one_clear_line(r, "--guidelines -", "more than 100,000 characters")


def test_prompt_template_from_dev_zero(study: Path) -> None:
    r = run(
        ["judge", str(study), "-j", "openai:m@http://127.0.0.1:9/v1", "--prompt", str(ZERO)],
        study.parent,
    )
    _one_clear_line(r, "/dev/zero", "larger than 1 MiB")


def test_import_of_a_device_is_refused(tmp_path: Path) -> None:
    """A device or pipe has no end: the import says to redirect it to standard input."""
    r = run(["import", "s.db", str(ZERO), "--kind", "pairwise", "--format", "jsonl"], tmp_path)
    _one_clear_line(r, "/dev/zero: is not a regular file", "give -")
    assert not (tmp_path / "s.db").exists(), "a failed first import leaves no study"


def test_import_file_with_a_line_over_the_limit(tmp_path: Path) -> None:
    """A file of one 65 MiB line (sparse: no disk used) is refused at that line."""
    big = tmp_path / "big.jsonl"
    with big.open("wb") as fh:
        fh.truncate(65 << 20)
    r = run(["import", "s.db", str(big), "--kind", "pairwise"], tmp_path)
    _one_clear_line(r, "big.jsonl, line 1", "longer than 64 MiB")
    assert not (tmp_path / "s.db").exists(), "a failed first import leaves no study"


def test_import_endless_stdin(tmp_path: Path) -> None:
    with ZERO.open("rb") as zero:
        r = run(["import", "s.db", "-", "--kind", "pairwise"], tmp_path, stdin=zero)
    _one_clear_line(r, "standard input", "line 1 is longer than 64 MiB")
    assert not (tmp_path / "s.db").exists(), "a failed first import leaves no study"
