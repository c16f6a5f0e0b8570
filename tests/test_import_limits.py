"""The importer states its limits and refuses beyond them: an item of more than 100,000
statements is refused with file, line and field, and the study stays unchanged; a CSV cell
over the text limit is refused as it is read, before the whole cell is built."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from medjudge.kinds.statements import MAX_STATEMENTS
from medjudge.store.importing.problems import MAX_TEXT, ImportProblem
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


def test_a_csv_cell_over_the_text_limit_is_refused_while_it_is_read(tmp_path: Path) -> None:
    """A 20-million-character cell: refused with line and field, holding the line about twice
    (its bytes and its text: 41 MB traced). The csv module builds a cell at 4 bytes a
    character, doubling its buffer: read whole before the length check, it peaked at 214 MB."""
    s = Study.create(tmp_path / "s.db", actor="t")
    size = 20_000_000
    path = tmp_path / "big.csv"
    path.write_text(
        "id,question,answer_a,answer_b,source_a,source_b\n"
        + 'b1,"a ""quoted"" question, on\ntwo lines",a,"'
        + "x" * size
        + '",m,n\n'
    )
    tracemalloc.start()
    try:
        with pytest.raises(ImportProblem) as caught:
            import_file(s, path, "pairwise", actor="t")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        s.close()
    assert (caught.value.line, caught.value.field) == (2, "answer_b")  # where the record starts
    assert peak < 3 * size, f"{peak / 1e6:.0f} MB traced for a {size / 1e6:.0f} MB line"
    assert str(caught.value).endswith(f"a cell is longer than {MAX_TEXT:,} characters")
    # a cell at the limit is read
    path.write_text(
        "id,question,answer_a,answer_b,source_a,source_b\n" + f"b1,q,a,{'y' * MAX_TEXT},m,n\n"
    )
    s = Study.open(tmp_path / "s.db")
    try:
        import_file(s, path, "pairwise", actor="t")
        assert s.conn.execute("SELECT count(*) FROM items").fetchone()[0] == 1
    finally:
        s.close()
