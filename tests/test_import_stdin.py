"""`medjudge import STUDY -` reads standard input: JSONL by default, --format for others,
errors name "standard input" and the line, and a failed import leaves no study behind."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from .support.kind_rows import pairwise_row


def run(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "medjudge", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


def test_jsonl_from_stdin(tmp_path: Path) -> None:
    rows = "".join(json.dumps(pairwise_row(i)) + "\n" for i in range(3))
    r = run(["import", "s.db", "-", "--kind", "pairwise"], rows, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "standard input: 3 new pairwise item(s)" in r.stdout
    conn = sqlite3.connect(tmp_path / "s.db")
    assert [x[0] for x in conn.execute("SELECT ext_id FROM items ORDER BY id")] == [
        "p0",
        "p1",
        "p2",
    ]
    assert conn.execute("SELECT file, sha256 != '' FROM imports").fetchall() == [("-", 1)]


def test_csv_from_stdin_needs_format(tmp_path: Path) -> None:
    row = pairwise_row(0)
    text = ",".join(row) + "\n" + ",".join(str(v) for v in row.values()) + "\n"
    r = run(["import", "s.db", "-", "--kind", "pairwise", "--format", "csv"], text, tmp_path)
    assert r.returncode == 0, r.stderr
    r = run(["import", "t.db", "-", "--kind", "pairwise"], text, tmp_path)
    assert r.returncode == 1 and "standard input, line 1: not valid JSON" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "t.db").exists(), "a failed first import leaves no study"


def test_bad_record_on_stdin_names_the_line_and_field(tmp_path: Path) -> None:
    rows = json.dumps(pairwise_row(0)) + "\n" + json.dumps({"id": "x", "question": "Q"}) + "\n"
    r = run(["import", "s.db", "-", "--kind", "pairwise"], rows, tmp_path)
    assert r.returncode == 1
    assert r.stderr.startswith("error: standard input, line 2, field ")


def test_an_endless_stream_fails_at_its_first_bad_line(tmp_path: Path) -> None:
    """Two good lines, a bad one, then standard input stays open and is fed without end: the
    import fails on line 3 while the stream is still running (it copied all of standard input
    to a temporary file first, up to 4 GiB, before reading line 1). The feeding stops when
    the import has exited and closed its end."""
    import threading

    good = "".join(json.dumps(pairwise_row(i)) + "\n" for i in range(2))
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge", "import", "s.db", "-", "--kind", "pairwise"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert proc.stdin is not None
    fed = [0]

    def feed() -> None:
        assert proc.stdin is not None
        block = (json.dumps(pairwise_row(9)) + "\n").encode() * 1000
        try:
            proc.stdin.write(good.encode() + b'{"id": "bad", "question": 3}\n')
            proc.stdin.flush()
            while fed[0] < 8 << 30:  # bounded: never more than the old 4 GiB limit twice
                proc.stdin.write(block)
                fed[0] += len(block)
        except (BrokenPipeError, OSError):
            return

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    code = proc.wait(timeout=120)
    feeder.join(timeout=120)
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert code == 1, err
    assert "standard input, line 3" in err and "Traceback" not in err
    assert fed[0] < 1 << 30, f"{fed[0]:,} bytes were read before the bad line was seen"
    assert not (tmp_path / "s.db").exists(), "a failed first import leaves no study"
