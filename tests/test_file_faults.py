"""A study file that is newer, damaged, read-only or on a full disk: one clear line, exit 1.

For every fault, through the CLI (``status``, ``import``, ``export``, ``adjudicate --list``,
``report``) and through the store (``set_label``, what the review app calls): exit code 1 with
one ``error: ...`` line naming the study, no traceback, and nothing half-written — the file
is byte-for-byte what it was, or (full disk) it still opens, passes ``integrity_check`` and
holds exactly what it held before the failed step.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.store.db import StudyError
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.study import Study

from .support.fakellm import FakeLLMServer, Reply
from .support.faults import damage, megabyte_study, new_items
from .support.judges import pairwise_responder, prefer_marked, routing

PROCS = Path(__file__).resolve().parent / "procs"
cli = CliRunner()


def one_clear_error(r: Result, study: Path, *words: str) -> str:
    """Exit 1, no traceback, exactly one ``error:`` line that names the study; returns it."""
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert study.name in lines[0], lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def commands(study: Path, folder: Path) -> list[list[str]]:
    new = new_items(folder)
    cmds = [
        ["status", str(study)],
        ["status", str(study), "--json"],
        ["import", str(study), str(new), "-k", "pairwise"],
        ["export", str(study), "labels"],
        ["export", str(study), "history", "-f", "csv"],
        ["adjudicate", str(study), "--list"],
    ]
    try:
        import medjudge.judging.report.build  # noqa: F401 - the report command, when present
    except ImportError:
        pass
    else:
        cmds.append(["report", str(study), "-f", "json", "--n-boot", "100"])
    return cmds


# --------------------------------------------------------------------------- newer medjudge


def test_study_from_a_newer_medjudge_is_refused_untouched(tmp_path: Path) -> None:
    study = megabyte_study(tmp_path, n=5)
    conn = sqlite3.connect(study)
    conn.execute("INSERT INTO _migrations (name, applied_at) VALUES ('099_from_the_future', 'x')")
    conn.commit()
    conn.close()
    before = study.read_bytes()
    for args in commands(study, tmp_path):
        one_clear_error(cli.invoke(app, args), study, "newer medjudge", "upgrade")
        assert study.read_bytes() == before, args
    with pytest.raises(StudyError, match="newer medjudge"):
        Study.open(study)
    assert study.read_bytes() == before


# --------------------------------------------------------------------------- damaged files


PATTERNS = [
    "truncated to half",
    "truncated to 100 bytes",
    "empty",
    "garbage header",
    "garbage in early pages",
    "garbage in late pages",
    "zeroed data pages",
    "a text file",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_damaged_study_gives_one_clear_line_and_is_not_written(
    pattern: str, tmp_path: Path
) -> None:
    pristine = megabyte_study(tmp_path).read_bytes()
    study = tmp_path / "damaged.db"
    study.write_bytes(damage(pristine, pattern))
    failed = 0
    for args in commands(study, tmp_path):
        before = study.read_bytes()  # a command that did not meet the damage may write
        r = cli.invoke(app, args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert "Traceback" not in r.output
        if r.exit_code != 0:
            line = one_clear_error(r, study)
            assert "damaged" in line or "not a medjudge study" in line, line
            assert study.read_bytes() == before, f"{args} changed a damaged file"
            failed += 1
    assert failed, f"{pattern}: no command noticed the damage"
    # The review app's path: open, label. A StudyError with a clear message, or it worked.
    before = study.read_bytes()
    try:
        with Study.open(study) as s:
            set_label(s, 1, "dr", "B")
    except StudyError as exc:
        assert "damaged" in str(exc) or "not a medjudge study" in str(exc), exc
        assert study.read_bytes() == before


def test_another_programs_sqlite_file_is_not_converted_to_wal(tmp_path: Path) -> None:
    """Regression: opening it switched its journal to WAL (a header write) before refusing."""
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (t TEXT)")
    conn.execute("INSERT INTO notes VALUES ('x')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    one_clear_error(cli.invoke(app, ["status", str(other)]), other, "another program")
    one_clear_error(
        cli.invoke(app, ["import", str(other), str(new_items(tmp_path)), "-k", "pairwise"]),
        other,
        "another program",
    )
    assert other.read_bytes() == before


def test_an_empty_file_is_not_turned_into_a_study(tmp_path: Path) -> None:
    """Regression: `status` on a 0-byte file wrote a whole schema into it, then failed."""
    empty = tmp_path / "empty.db"
    empty.touch()
    one_clear_error(cli.invoke(app, ["status", str(empty)]), empty, "empty")
    assert empty.read_bytes() == b""


# --------------------------------------------------------------------------- read-only


def _as_other_user() -> list[str] | None:
    """A command prefix that drops root to 'nobody', [] when not root, None when impossible."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    try:
        import pwd

        nobody = pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        return None
    if setpriv is None:
        return None
    return [setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder outside pytest's private (0700) tmp tree, so another user can reach it."""
    folder = Path(tempfile.mkdtemp(prefix="medjudge-ro-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for p in folder.rglob("*"):
            p.chmod(0o700 if p.is_dir() else 0o600)
        folder.chmod(0o700)
        shutil.rmtree(folder, ignore_errors=True)


def run_as(prefix: list[str], args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEDJUDGE_HOME": str(home), "USER": "reader", "LOGNAME": "reader"}
    return subprocess.run(prefix + args, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize(
    "folder_writable", [False, True], ids=["folder+file read-only", "file read-only"]
)
def test_read_only_study(folder_writable: bool, shared_folder: Path) -> None:
    prefix = _as_other_user()
    if prefix is None:
        pytest.skip(
            "running as root without setpriv and a 'nobody' user: cannot drop privileges, "
            "and root writes through chmod 0444"
        )
    study = megabyte_study(shared_folder, n=5)
    new = new_items(shared_folder)
    home = Path(tempfile.mkdtemp(dir=shared_folder))
    home.chmod(0o777)
    out = shared_folder / "out"
    out.mkdir()
    out.chmod(0o777)
    for p in (study, new):
        p.chmod(0o444)
    if folder_writable:
        shared_folder.chmod(0o777)
    else:
        shared_folder.chmod(0o555)
    before = study.read_bytes()
    py = [sys.executable, "-m", "medjudge"]

    def refused(r: subprocess.CompletedProcess[str]) -> None:
        assert r.returncode == 1, (r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "read-only" in lines[0], (
            r.stderr
        )

    refused(run_as(prefix, py + ["import", str(study), str(new), "-k", "pairwise"], home))
    r = run_as(
        prefix, [sys.executable, str(PROCS / "store_label.py"), str(study), "reader", "A"], home
    )
    assert (
        r.returncode == 1 and r.stdout.startswith("error StudyError:") and "read-only" in r.stdout
    ), r
    assert "Traceback" not in r.stderr
    for args in (
        ["status", str(study), "--json"],
        ["export", str(study), "labels", "-o", str(out / "l.jsonl")],
    ):
        r = run_as(prefix, py + args, home)
        if r.returncode != 0:  # reading needs the -shm beside the file: refused is fine, clearly
            refused(r)
        else:
            assert "Traceback" not in r.stderr
    assert study.read_bytes() == before


# --------------------------------------------------------------------------- full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MB tmpfs (root only); skipped where mounting is not permitted."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)], capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """Fill the disk up to ``leave`` free bytes with one file (removed to free the space)."""
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free
    with filler.open("ab") as fh:
        fh.write(bytes(max(0, free - leave)))
    return filler


def counts(study: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(study)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return tuple(
            conn.execute(
                "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM label_history), "
                "(SELECT count(*) FROM judge_calls)"
            ).fetchone()
        )
    finally:
        conn.close()


def test_full_disk_import_label_status_export(small_disk: Path, tmp_path: Path) -> None:
    study = megabyte_study(small_disk, n=20)
    big = new_items(tmp_path, n=60, size=20_000)  # ~1.2 MB of answers
    filler = fill(small_disk, leave=300_000)
    before = counts(study)
    one_clear_error(
        cli.invoke(app, ["import", str(study), str(big), "-k", "pairwise"]), study, "disk is full"
    )
    assert counts(study) == before, "a failed import left part of itself behind"
    filler.unlink()
    r = cli.invoke(app, ["import", str(study), str(big), "-k", "pairwise"])
    assert r.exit_code == 0, r.output  # the study is intact and usable once there is room
    assert counts(study)[0] == before[0] + 60

    fill(small_disk, leave=0)
    with pytest.raises(StudyError, match="disk is full"):
        with Study.open(study) as s:
            set_label(s, 1, "dr.full", "B")
    r = cli.invoke(app, ["status", str(study)])
    if r.exit_code != 0:
        one_clear_error(r, study, "disk is full")

    elsewhere = megabyte_study(tmp_path, n=5, name="elsewhere.db")
    target = small_disk / "labels.jsonl"
    r = cli.invoke(app, ["export", str(elsewhere), "history", "-o", str(target)])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.stderr.startswith("error: ") and "No space left" in r.stderr, r.stderr
    assert not target.exists() and not list(small_disk.glob(".labels.jsonl.*"))


def test_export_into_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    """Regression: a traceback (FileNotFoundError) instead of a message."""
    study = megabyte_study(tmp_path, n=2)
    r = cli.invoke(app, ["export", str(study), "labels", "-o", str(tmp_path / "nope" / "x.jsonl")])
    assert r.exit_code == 1 and "Traceback" not in r.output and "does not exist" in r.stderr, (
        r.output
    )


def test_judge_run_filling_the_disk_stops_paying_and_says_so(
    small_disk: Path, tmp_path: Path
) -> None:
    """Regression: the call writer failed on the first full commit, but the run went on paying
    for every remaining call (none of them storable) and then died with a raw sqlite3 traceback."""
    study = megabyte_study(small_disk, n=30, name="judge.db")
    good = routing(pairwise_responder(prefer_marked("A" * 10)))

    def wordy(req):  # type: ignore[no-untyped-def]
        body = json.loads(good(req).text)
        for v in body.values():
            v["reason"] = "because " * 300
        return Reply(json.dumps(body))

    fill(small_disk, leave=300_000)
    with FakeLLMServer(wordy) as server:
        spec = f"openai:fake@{server.openai_url}"
        r = cli.invoke(
            app, ["judge", str(study), "-j", spec, "--concurrency", "4", "--samples", "1"]
        )
        one_clear_error(r, study, "disk is full")
        stored = counts(study)[2]
        made = server.count()
        assert made <= stored + 2 * 4, f"{made} calls paid, {stored} stored"
        # Resume where there is room. (On the 8 MB disk itself, SQLite's checkpoint of the
        # first run's WAL into the database can need as much again, which made this step
        # depend on timing under load.)
        (small_disk / "filler").unlink()
        moved = tmp_path / "moved.db"
        src, dst = sqlite3.connect(study), sqlite3.connect(moved)
        src.backup(dst)
        src.close()
        dst.close()
        server.clear()
        r = cli.invoke(
            app, ["judge", str(moved), "-j", spec, "--concurrency", "4", "--samples", "1"]
        )
        assert r.exit_code == 0, r.output
        assert server.count() == 30 * 2 - stored, "stored calls were paid again"


def test_sqlite_full_through_the_store_rolls_back(tmp_path: Path) -> None:
    """Without a mount: SQLITE_FULL via max_page_count. The import is one clear StudyError
    and leaves nothing behind."""
    study_path = megabyte_study(tmp_path, n=10)
    big = new_items(tmp_path, n=40, size=20_000)
    with Study.open(study_path) as s:
        pages = s.conn.execute("PRAGMA page_count").fetchone()[0]
        s.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        before = s.conn.execute("SELECT count(*) FROM items").fetchone()[0]
        with pytest.raises(StudyError, match="disk is full"):
            import_file(s, big, "pairwise", actor="t")
        assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == before
        s.conn.execute("PRAGMA max_page_count = 1073741823")
        import_file(s, big, "pairwise", actor="t")
    assert counts(study_path)[0] == before + 40
