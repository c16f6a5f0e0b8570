"""Migration ``019_requeue_action``: a study made before it refuses a ``requeue`` history row;
opened by this medjudge it takes one (``medjudge requeue``), and the CHECK still refuses any
other action; the labels stored before stay as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.store import migrations
from medjudge.store.db import StudyError
from medjudge.store.importing.run import import_file
from medjudge.store.labels import set_label
from medjudge.store.migrations import applied
from medjudge.store.requeue import label_counts, withdraw
from medjudge.store.study import Study

from .support.kind_rows import pairwise_row, write_jsonl

_HISTORY_ROW = (
    "INSERT INTO label_history (unit_id, rater_id, old_value, new_value, action, after_reveal, "
    "actor, at) VALUES (?, (SELECT id FROM raters WHERE name = 'ann'), 'A', NULL, ?, 0, 't', 'x')"
)


def test_an_older_study_takes_requeue_rows_once_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    upto = [name for name, _ in migrations.MIGRATIONS].index("019_requeue_action")
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:upto])
    try:
        old = Study.create(path, actor="t")
        src = write_jsonl(tmp_path / "p.jsonl", [pairwise_row(i) for i in range(2)])
        import_file(old, src, "pairwise", actor="t")
        unit = int(old.conn.execute("SELECT min(id) FROM units").fetchone()[0])
        set_label(old, unit, "ann", "A")
        with pytest.raises(StudyError, match="CHECK constraint failed"), old.tx() as conn:
            conn.execute(_HISTORY_ROW, (unit, "requeue"))
        old.close()
    finally:
        monkeypatch.undo()
    with Study.open(path) as new:
        assert applied(new.conn)[-1] == "019_requeue_action"
        assert label_counts(new) == {("ann", "p0"): 1}
        (done,) = withdraw(new, [("ann", "p0"), ("ann", "p1")], actor="lead")
        assert (done.reviewer, done.item, done.labels) == ("ann", "p0", 1)
        assert label_counts(new) == {}
        row = new.conn.execute(
            "SELECT old_value, new_value, action, actor FROM label_history ORDER BY id DESC"
        ).fetchone()
        assert tuple(row) == ("A", None, "requeue", "lead")
        with pytest.raises(StudyError, match="CHECK constraint failed"), new.tx() as conn:
            conn.execute(_HISTORY_ROW, (unit, "erase"))
