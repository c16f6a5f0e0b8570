"""Several processes opening an older study at once: each migration is re-checked under
the write lock, so the one that waited finds it applied instead of failing with a misleading
error ("cannot add the match kind"). The interleaving is made exact: the second opener read
the applied list before the first one's migrations committed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from medjudge.store import db, migrations

from .support.old_studies import old_study


def _old_study(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old_study(path, monkeypatch, 1, pairwise=2, statements=1).close()


def test_a_migration_applied_meanwhile_is_not_applied_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    _old_study(path, monkeypatch)
    first, second = db.connect(path), db.connect(path)
    stale = migrations.applied(second)  # the second opener's read, before the first commits
    assert len(stale) == 1
    assert migrations.migrate(first, path) == [n for n, _ in migrations.MIGRATIONS[1:]]

    real = migrations.applied
    calls = iter([stale])
    monkeypatch.setattr(migrations, "applied", lambda conn: next(calls, None) or real(conn))
    assert migrations.migrate(second, path) == [], "nothing left to apply"
    assert migrations.applied(second) == [n for n, _ in migrations.MIGRATIONS]
    first.close()
    second.close()


def test_four_processes_open_an_older_study_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    _old_study(path, monkeypatch)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "medjudge", "status", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
