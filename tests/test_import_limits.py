"""The importer states its limits and refuses beyond them: an item of more than 100,000
statements is refused with file, line and field, and the study stays unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from medjudge.kinds.statements import MAX_STATEMENTS
from medjudge.store.importing.problems import ImportProblem
from medjudge.store.importing.run import import_file
from medjudge.store.study import Study

from .support.kind_rows import statements_row, write_jsonl


def test_an_item_of_too_many_statements_is_refused(tmp_path: Path) -> None:
    s = Study.create(tmp_path / "s.db", actor="t")
    many = [f"S{i}." for i in range(MAX_STATEMENTS + 1)]
    rows = [statements_row(0), statements_row(1, must_have=many, nice_to_have=[])]
    with pytest.raises(ImportProblem) as caught:
        import_file(s, write_jsonl(tmp_path / "s.jsonl", rows), "statements", actor="t")
    assert str(caught.value).endswith(
        "s.jsonl, line 2, field 'statements': 100,001 statements; an item holds at most 100,000"
    )
    assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0
    rows[1]["must_have"] = many[:MAX_STATEMENTS]
    import_file(s, write_jsonl(tmp_path / "ok.jsonl", rows), "statements", actor="t")
    assert s.conn.execute("SELECT count(*) FROM statements").fetchone()[0] == 3 + MAX_STATEMENTS
    s.close()
