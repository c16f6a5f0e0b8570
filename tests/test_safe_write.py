"""Every file medjudge writes goes through one writer (``store/safe_write.py``) that never
destroys a study or a file it did not make.

Regressions of a hostile pass: the writer used to write ``NAME.part`` and rename it over
``NAME``, never checking ``NAME.part`` — a symlink ``out.html.part -> study.db`` made ``report -o
out.html`` overwrite the study (exit 0) and ``export`` truncate it to 0 bytes; a study named
``x.part`` was replaced by ``report -o x``; ``backup S.part S`` unlinked the study's path; a
backup to a full disk left ``DEST.part-journal`` behind. Now the temporary file has a random
name made exclusively in the target's folder, a target that is (or resolves to) a study or one
of its side files is refused under any spelling, and only files the writer made are removed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from typer.testing import CliRunner, Result

from medjudge.cli import app
from medjudge.store.db import StudyError
from medjudge.store.safe_write import OutputError, refuse_protected, replacing, text_output
from medjudge.store.study import Study

from .support.studies import small_study

cli = CliRunner()
OUTPUTS = {
    "report": ["report", "{study}", "-f", "md", "--n-boot", "100", "-o", "{out}"],
    "report html": ["report", "{study}", "-f", "html", "--n-boot", "100", "-o", "{out}"],
    "export": ["export", "{study}", "labels", "-o", "{out}"],
}


def run(kind: str, study: Path, out: Path) -> Result:
    args = [a.format(study=study, out=out) for a in OUTPUTS[kind]]
    return cli.invoke(app, args)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def opens(study: Path) -> None:
    r = cli.invoke(app, ["status", str(study)])
    assert r.exit_code == 0, r.output
    conn = sqlite3.connect(study)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def listing(folder: Path) -> dict[str, str]:
    """Every entry of a folder: name → what it is (a symlink's target, a file's digest)."""
    out = {}
    for p in sorted(folder.iterdir()):
        if p.is_symlink():
            out[p.name] = "-> " + os.readlink(p)
        elif p.is_file():
            out[p.name] = digest(p)
        else:
            out[p.name] = "other"
    return out


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    small_study(path, pairwise=3, statements=0).close()
    return path


# ------------------------------------------------------------------ the old NAME.part holes


@pytest.mark.parametrize("kind", sorted(OUTPUTS))
def test_a_part_symlink_to_the_study_is_never_followed(
    study: Path, tmp_path: Path, kind: str
) -> None:
    out = tmp_path / ("out.html" if "html" in kind else "out.txt")
    part = Path(str(out) + ".part")
    part.symlink_to(study)
    before = digest(study)
    r = run(kind, study, out)
    assert r.exit_code == 0, r.output
    assert digest(study) == before, "the study was written through NAME.part"
    opens(study)
    assert part.is_symlink() and os.readlink(part) == str(study)
    assert out.is_file() and not out.is_symlink()
    if kind != "export":  # (no labels yet: an empty export)
        assert out.stat().st_size > 0


@pytest.mark.parametrize("kind", sorted(OUTPUTS))
def test_a_study_named_like_the_old_temporary_file_survives(tmp_path: Path, kind: str) -> None:
    """``report x.part -o x`` (the study itself) and ``report s.db -o out`` beside a study
    named ``out.part``."""
    x_part = tmp_path / "x.part"
    small_study(x_part, pairwise=2, statements=0).close()
    before = digest(x_part)
    r = run(kind, x_part, tmp_path / "x")
    assert r.exit_code == 0, r.output
    assert digest(x_part) == before
    opens(x_part)
    other = tmp_path / "s.db"
    small_study(other, pairwise=2, statements=0).close()
    r = run(kind, other, tmp_path / "x")
    assert r.exit_code == 0, r.output
    assert digest(x_part) == before
    opens(x_part)


def test_a_users_file_named_like_the_old_temporary_file_is_left_alone(
    study: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "out.md.part"
    mine.write_text("mine")
    r = run("report", study, tmp_path / "out.md")
    assert r.exit_code == 0, r.output
    assert mine.read_text() == "mine"


def test_backup_of_a_study_named_like_the_old_temporary_file(tmp_path: Path) -> None:
    """``backup S.part S``: the study at ``S.part`` stays where it is, whole."""
    source = tmp_path / "s.part"
    small_study(source, pairwise=4, statements=0).close()
    before = digest(source)
    dest = tmp_path / "s"
    r = cli.invoke(app, ["backup", str(source), str(dest)])
    assert r.exit_code == 0, r.output
    assert source.exists() and digest(source) == before
    opens(source)
    opens(dest)


# ------------------------------------------------------------------ never a study, any spelling


def _spellings(study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The study and its side files under other spellings (side files that do not exist)."""
    (tmp_path / "sub").mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(tmp_path, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return [
        "./s.db",
        "sub/../s.db",
        str(linked / "s.db"),
        "s.db-wal",
        "./sub/../s.db-journal",
        str(linked / "s.db-shm"),
        str(linked / "sub" / ".." / "s.db-wal"),
    ]


@pytest.mark.parametrize("kind", sorted(OUTPUTS))
def test_the_study_under_another_spelling_is_refused(
    study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    spellings = _spellings(study, tmp_path, monkeypatch)
    before = listing(tmp_path)
    for target in spellings:
        r = run(kind, study, Path(target))
        assert listing(tmp_path) == before, target
        assert r.exit_code == 1, (target, r.output)
        err = r.stderr
        assert "is the study" in err and "write the output somewhere else" in err, err
    for target in spellings:
        r = cli.invoke(app, ["backup", "s.db", target, "--force"])
        assert listing(tmp_path) == before, target
        assert r.exit_code == 1 and "is the study itself" in r.stderr, (target, r.output)
    opens(study)


def test_the_study_through_a_bind_mount_is_refused(study: Path, tmp_path: Path) -> None:
    """Another path to the same folder that no symlink resolution can see: the folder's
    device and inode can."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a bind mount needs root")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "--bind", str(tmp_path), str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot bind-mount here")
    try:
        before = {k: v for k, v in listing(tmp_path).items() if k != "mnt"}
        for name in ("s.db", "s.db-wal", "s.db-journal"):
            r2 = run("export", study, mnt / name)
            after = {k: v for k, v in listing(tmp_path).items() if k != "mnt"}
            assert after == before, name
            assert r2.exit_code == 1 and "is the study" in r2.stderr, r2.output
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.mark.parametrize("kind", sorted(OUTPUTS))
def test_another_study_and_its_side_files_are_refused(
    study: Path, tmp_path: Path, kind: str
) -> None:
    other = tmp_path / "other.db"
    small_study(other, pairwise=1, statements=0).close()
    hard = tmp_path / "hard-link-to-other"
    os.link(other, hard)
    before = listing(tmp_path)
    for target in (other, hard, Path(f"{other}-wal"), Path(f"{hard}-journal")):
        r = run(kind, study, target)
        assert r.exit_code == 1, (target, r.output)
        assert "write the output somewhere else" in r.stderr, r.stderr
        assert listing(tmp_path) == before
    opens(other)


def test_a_live_wal_file_is_refused_by_its_content(study: Path, tmp_path: Path) -> None:
    """A hard link to another open study's -wal, under a name that says nothing."""
    other = small_study(tmp_path / "other.db", pairwise=1, statements=0)
    try:
        wal = Path(f"{other.path}-wal")
        assert wal.exists()
        alias = tmp_path / "notes.txt"
        os.link(wal, alias)
        r = run("export", study, alias)
        assert r.exit_code == 1 and "SQLite -wal file" in r.stderr, r.output
    finally:
        other.close()


# ------------------------------------------------------------------ what the writer keeps


def test_permissions_are_kept_and_new_files_are_not_private(study: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.md"
    old.write_text("old")
    old.chmod(0o640)
    assert run("report", study, old).exit_code == 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o640 and old.read_text() != "old"
    mask = os.umask(0o022)
    try:
        new = tmp_path / "new.md"
        assert run("report", study, new).exit_code == 0
        assert stat.S_IMODE(new.stat().st_mode) == 0o644  # not mkstemp's 0600
        r = cli.invoke(app, ["backup", str(study), str(tmp_path / "copy.db")])
        assert r.exit_code == 0, r.output
        assert stat.S_IMODE((tmp_path / "copy.db").stat().st_mode) == 0o644
        os.umask(0o007)  # a team's folder: the group may write the new files too
        r = cli.invoke(app, ["backup", str(study), str(tmp_path / "team.db")])
        assert r.exit_code == 0, r.output
        assert stat.S_IMODE((tmp_path / "team.db").stat().st_mode) == 0o660
        assert run("report", study, tmp_path / "team.md").exit_code == 0
        assert stat.S_IMODE((tmp_path / "team.md").stat().st_mode) == 0o660
    finally:
        os.umask(mask)


def test_a_failure_halfway_leaves_the_old_file_and_nothing_else(
    study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import medjudge.judging.report.render.csv as render_csv

    def failing(data: object) -> Iterator[str]:
        yield "item,kind\n"
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(render_csv, "csv_chunks", failing)
    out = tmp_path / "r.csv"
    out.write_text("the previous report")
    before = listing(tmp_path)
    r = cli.invoke(app, ["report", str(study), "-f", "csv", "--n-boot", "100", "-o", str(out)])
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    assert r.stderr.startswith(f"error: {out}: cannot write it (No space left"), r.stderr
    assert listing(tmp_path) == before


def test_a_symlink_stays_a_symlink_and_its_target_is_written(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with text_output(link) as fh:
        fh.write("new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]


def test_only_its_own_temporary_file_is_removed(tmp_path: Path) -> None:
    """A failing block: the writer removes the file it made — and not a file that took its
    name meanwhile (it checks the inode first)."""
    target = tmp_path / "t.txt"
    with pytest.raises(RuntimeError):
        with replacing(target) as staged:
            os.write(staged.fd, b"x")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError):
        with replacing(target) as staged:
            os.unlink(staged.path)
            staged.path.write_text("someone else's")
            raise RuntimeError("boom")
    assert [p.read_text() for p in tmp_path.iterdir()] == ["someone else's"]


def test_the_temporary_file_is_new_and_in_the_target_folder(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    seen = []
    for _ in range(2):
        with replacing(target) as staged:
            seen.append(staged.path)
            assert staged.path.parent == tmp_path and staged.path.name != "t.txt.part"
            assert not staged.path.is_symlink() and staged.path.stat().st_size == 0
    assert seen[0] != seen[1]


def test_refuse_protected_directly(study: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.db"
    link.symlink_to(study)
    for target in (study, link, Path(f"{link}-wal"), Path(f"{study}-shm")):
        with pytest.raises(OutputError, match="is the study itself"):
            refuse_protected(target, (study,))
    refuse_protected(tmp_path / "fine.txt", (study,))
    with pytest.raises(OutputError, match="is a medjudge study"):
        refuse_protected(study)  # any study, even when not named
    refuse_protected(study, replace_study=True)  # a backup may replace another study
    with pytest.raises(OutputError, match="is the study itself"):
        refuse_protected(link, (study,), replace_study=True)  # but never the source


# ------------------------------------------------------------------ backup


def test_backup_refuses_a_dest_with_a_wal_or_journal_beside_it(study: Path, tmp_path: Path) -> None:
    """SQLite would apply a leftover -wal or hot -journal to the copy the first time it opens."""
    dest = tmp_path / "old-backup.db"
    small_study(dest, pairwise=1, statements=0).close()
    before = digest(dest)
    for suffix in ("-wal", "-journal"):
        side = Path(f"{dest}{suffix}")
        side.write_bytes(b"leftover")
        r = cli.invoke(app, ["backup", str(study), str(dest), "--force"])
        assert r.exit_code == 1 and f"{dest}{suffix} exists" in r.stderr, r.output
        assert digest(dest) == before and side.read_bytes() == b"leftover"
        side.unlink()
    r = cli.invoke(app, ["backup", str(study), str(dest), "--force"])
    assert r.exit_code == 0, r.output  # an older backup (a study) may be replaced
    assert digest(dest) != before
    opens(dest)


def test_backup_failing_its_check_leaves_no_file(
    study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever stops a backup, every file it made is gone: the temporary copy and the side
    files SQLite made for it."""
    from medjudge.store import backup as backup_module

    made: list[Path] = []
    real_connect = sqlite3.connect

    def connect(database: str, *a: object, **k: object) -> sqlite3.Connection:
        uri = database
        assert uri.startswith("file:") and uri.endswith("?nofollow=1")
        path = Path(unquote(urlparse(uri).path))
        made.append(path)
        conn = real_connect(uri, *a, **k)  # type: ignore[call-overload]
        conn.execute("CREATE TABLE t (x)")  # leave a -journal behind, as a crash would
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t VALUES (1)")
        Path(f"{path}-wal").write_bytes(b"sqlite made this")
        assert Path(f"{path}-journal").exists()
        raise sqlite3.OperationalError("database or disk is full")

    before = listing(tmp_path)
    with Study.open(study) as s:
        monkeypatch.setattr(sqlite3, "connect", connect)  # the module backup opens the copy with
        with pytest.raises(StudyError, match="cannot write the copy"):
            backup_module.backup(s, tmp_path / "copy.db")
        monkeypatch.undo()
    assert made and made[0].parent == tmp_path
    assert listing(tmp_path) == before


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs (root only); skipped where mounting is not permitted."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_backup_to_a_full_disk_leaves_nothing_behind(tmp_path: Path, small_disk: Path) -> None:
    """The disk fills up at every step in turn — the copy, its switch out of WAL mode (which
    made ``-wal``/``-shm`` files), its journal: each time the backup says so about DEST and
    leaves the disk as it was; with enough room, the copy is whole."""
    study = tmp_path / "big.db"
    small_study(study, pairwise=20, statements=0).close()
    conn = sqlite3.connect(study)
    with conn:
        conn.execute("CREATE TABLE padding (x)")
        conn.execute("INSERT INTO padding VALUES (zeroblob(1000000))")
    conn.close()
    size = study.stat().st_size
    dest = small_disk / "copy.db"
    outcomes = []
    for extra in range(-16_384, 65_536, 4096):
        for p in small_disk.iterdir():
            p.unlink()
        (small_disk / "keep.txt").write_text("keep")
        free = shutil.disk_usage(small_disk).free
        with (small_disk / "filler").open("wb") as fh:
            fh.write(bytes(max(0, free - size - extra)))
        before = listing(small_disk)
        r = cli.invoke(app, ["backup", str(study), str(dest)])
        assert "Traceback" not in r.output, r.output
        if r.exit_code == 0:
            assert set(listing(small_disk)) == {*before, "copy.db"}, extra
            opens(dest)
            outcomes.append("ok")
            continue
        assert r.exit_code == 1, r.output
        assert listing(small_disk) == before, f"{extra}: the backup left files behind"
        assert r.stderr.startswith(f"error: {dest}: cannot write the copy"), r.stderr
        assert "the disk is full" in r.stderr, r.stderr
        outcomes.append("full")
    assert "full" in outcomes and "ok" in outcomes, outcomes
    opens(study)


def test_the_recorded_demo_calls_never_overwrite_the_study(study: Path, tmp_path: Path) -> None:
    """``scripts/record_demo.py`` writes its JSONL through the same writer."""
    from medjudge.judging.llm.recorded import save_recorded_run

    before = digest(study)
    with Study.open(study) as s:
        with pytest.raises(OutputError, match="is the study itself"):
            save_recorded_run(s, "local:smollm2", Path(f"{study}-wal"))
        assert save_recorded_run(s, "local:smollm2", tmp_path / "calls.jsonl") == 0
    assert digest(study) == before and (tmp_path / "calls.jsonl").read_text() == ""
