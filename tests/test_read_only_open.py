"""The read-only open path (``store.db.connect`` for a login that cannot write the study), as
far as it can be seen without a second login: no file is made beside the study, a write is
refused with the reason, and a reader opened without a ``-wal`` sees a writer that starts later
(:meth:`Study.refresh`). The real logins are in ``test_read_only_share.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.store.db import StudyConnection, StudyError, connect
from medjudge.store.settings import StudySettings
from medjudge.store.study import Study


def reader(path: Path) -> Study:
    return Study(path, connect(path, read_only=True))


def test_reading_without_a_wal_makes_no_file_and_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Study.create(path).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
    study = reader(path)
    try:
        assert isinstance(study.conn, StudyConnection) and study.conn.immutable
        assert study.read_only
        assert study.settings.name == "s"
        with pytest.raises(StudyError, match="opened read-only"):
            study.save_settings(StudySettings(name="x"), actor="t")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
    finally:
        study.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_a_reader_opened_without_a_wal_sees_a_writer_that_starts_later(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Study.create(path).close()
    study = reader(path)
    try:
        before = study.data_version()
        with Study.open(path) as writer:
            writer.save_settings(StudySettings(name="renamed"), actor="t")
            assert study.data_version() != before  # reopened through the writer's -wal
            assert isinstance(study.conn, StudyConnection) and not study.conn.immutable
            assert study.settings.name == "renamed"
    finally:
        study.close()
